"""vdbench's rules that the parameters alone decide, checked when they are validated
(:meth:`flashpoc.engines.vdbench.engine.VdbenchEngine.check_params`): ``flashpoc validate`` refuses
them before any I/O, and the check and the plan never meet them."""

from __future__ import annotations

from flashpoc.core.errors import ParameterError
from flashpoc.params import Campaign
from flashpoc.engines.vdbench.plan.checks import _check_campaign, _check_timing
from flashpoc.engines.vdbench.plan.hosts import remote_hosts, ssh_config
from flashpoc.engines.vdbench.plan.parmfile import _check_workloads
from flashpoc.engines.vdbench.plan.rd import warmup_s


def check_params(campaign: Campaign) -> None:
    """Every rule of the parmfile on the parameters: the hosts', targets' and workloads' names
    and values as vdbench reads them, the run timings of every phase (``vdbench.elapsed_s``, and
    ``probe.runtime_s``, ``sweep.runtime_s``, ``precondition.round_s`` where they replace it), the
    ssh configuration of ``shell=ssh`` and the user of each remote slave. Target paths are checked
    as given (the plan makes them absolute).

    Raises:
        ParameterError: the first rule broken, naming its key.
    """
    _check_campaign(campaign, resolved=False)
    vd = campaign.settings
    runtimes = (("probe.runtime_s", campaign.probe.runtime_s), ("sweep.runtime_s", campaign.sweep.runtime_s),
                ("precondition.round_s", campaign.precondition.round_s))
    for key, runtime in runtimes:
        if runtime:
            _check_timing(runtime, vd.interval_s, warmup_s(campaign), (key, "vdbench.interval_s", "vdbench.warmup_s"))
    _check_workloads(campaign, campaign.workloads)
    ssh_config(campaign)
    _check_slave_users(campaign)


def _check_slave_users(campaign: Campaign) -> None:
    """vdbench's master starts the slave of each remote host but its own with ``SHELL ADDRESS -l
    USER`` (``shell: ssh`` or ``rsh``; hd ``user=``): each names its user."""
    shell = campaign.settings.shell
    controller = campaign.settings.controller or campaign.hosts[0].name
    for host in remote_hosts(campaign) if shell != "vdbench" else []:
        if host.name != controller and not host.user:
            i = campaign.hosts.index(host)
            raise ParameterError(f"hosts[{i}].user: vdbench starts the slaves of {host.name} with '{shell} "
                                 f"{host.address} -l USER' (hd user=; without it vdbench stops): set the user")
