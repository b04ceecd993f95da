"""vdbench's rows of the environment check: vdbench and Java on every host, a simulated parmfile,
the controller's address and the shells that start the slaves."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import Any

from flashpoc.core.records import CAMPAIGN_ROW_HOST, Row, check_row
from flashpoc.core.errors import RemoteError
from flashpoc.params import Campaign, HostParams
from flashpoc.hosts import host as _hosts
from flashpoc.hosts.group import Group


VDBENCH_BANNER_RE = re.compile(r"Vdbench distribution: (\S+)")
#: connections to the controller at once for the slaves' shells: sshd drops new connections at
#: random beyond 10 not yet logged in (its MaxStartups 10:30:100)
SHELLS_AT_ONCE = 8


def check_vdbench(campaign: Campaign, *,
                  connect: Callable[[HostParams], Any] = _hosts.connect) -> list[Row]:
    """vdbench rows of the check: vdbench and Java on every host, ``vdbench -s`` accepting the
    probe's parmfile on the controller, and with remote hosts, on the controller as vdbench's master will run: the address its slaves will
    call back ("slaves call back") and, for ``shell=ssh``/``rsh``, the command that starts each
    remote slave ("ssh to HOST"). The hosts are checked side by side (:class:`~flashpoc.hosts.group.Group`),
    and so are the slaves' shells, each over a connection of its own to the controller; the rows
    come in the hosts' order.
    """
    from flashpoc.core.errors import ParameterError
    from flashpoc.engines.vdbench.plan import probe_run, render_parmfile

    campaign = campaign.resolved()
    try:
        parmfile = render_parmfile(campaign, [w.name for w in campaign.workloads], probe_run(campaign))
    except ParameterError as error:
        return [check_row(CAMPAIGN_ROW_HOST, "vdbench parmfile", None, "fail", str(error))]
    ctl_name = campaign.settings.controller or campaign.hosts[0].name
    done = Group(campaign.hosts).map(lambda params: _host_rows(campaign, params, ctl_name, parmfile, connect),
                                     purpose="check vdbench")
    return [row for p in campaign.hosts for row in (done.succeeded.get(p.name) or
                                                   [check_row(p.name, "vdbench", None, "fail", str(done.failed[p.name]))])]


def _host_rows(campaign: Campaign, params: HostParams, ctl_name: str, parmfile: str,
               connect: Callable[[HostParams], Any]) -> list[Row]:
    """One host's rows: vdbench and Java, and on the controller its own (:func:`_vdbench_controller_rows`);
    a host that cannot be reached is one ``fail`` row."""
    from flashpoc.engines.vdbench.run import find_vdbench_and_java, run_vdbench, vdbench_executable

    rows: list[Row] = []
    try:
        with connect(params) as host:
            exe = vdbench_executable(host)
            found, java = find_vdbench_and_java(host, exe)
            rows.append(check_row(params.name, "vdbench", exe if found else "missing", "pass" if found else "fail",
                             exe if found else f"{exe} not found: install vdbench or set the host's vdbench: dir"))
            rows.append(check_row(params.name, "java", java or "missing", "pass" if java else "fail",
                             "" if java else "java not found: vdbench needs a Java runtime"))
            if params.name == ctl_name and found:
                rows += _vdbench_controller_rows(campaign, params, host, parmfile, run_vdbench, connect)
    except (RemoteError, OSError, EOFError) as error:
        rows.append(check_row(params.name, "vdbench", None, "fail", str(error)))
    return rows


def _vdbench_controller_rows(campaign: Campaign, params: HostParams, host: Any, parmfile: str,
                             run_vdbench: Callable[..., Any], connect: Callable[[HostParams], Any]) -> list[Row]:
    """The controller's rows: ``vdbench -s`` on the parmfile, then, with remote hosts, the
    address vdbench gives its slaves and the very command it starts each remote slave with."""
    from flashpoc.engines.vdbench.plan import remote_hosts
    from flashpoc.engines.vdbench.run import master_setup

    run_dir = f"{params.workdir}/{campaign.campaign}/check"
    setup = master_setup(campaign)
    run = run_vdbench(host, parmfile, run_dir, timeout_s=300, purpose="vdbench -s (simulate)", simulate=True,
                      setup=setup)
    banner = VDBENCH_BANNER_RE.search(run.console)
    tail = "\n".join(run.console.strip().splitlines()[-6:])
    rows = [check_row(params.name, "vdbench -s parmfile", "accepted" if run.exit_code == 0 else f"exit {run.exit_code}",
                 "pass" if run.exit_code == 0 else "fail",
                 (banner.group(1) if banner else "simulate run") if run.exit_code == 0 else tail)]
    remote = remote_hosts(campaign)
    if not remote:
        return rows
    rows.append(_controller_address_row(campaign, params, host, run_dir, setup))
    if campaign.settings.shell == "vdbench":
        return rows

    def slave_row(other: HostParams) -> Row:
        with connect(params) as own:  # a connection of its own: the shells run side by side
            return _slave_shell_row(campaign, params, other, own, run_dir, setup)

    others = [other for other in remote if other.name != params.name]
    shells = Group(others, max_workers=SHELLS_AT_ONCE).map(slave_row, purpose="run the slaves' shells")
    return rows + [shells[o.name] if o.name in shells.succeeded else
                   check_row(params.name, f"{campaign.settings.shell} to {o.name}", "no answer", "fail",
                        str(shells.failed[o.name])) for o in others]


def _controller_address_row(campaign: Campaign, params: HostParams, host: Any, run_dir: str, setup: Any) -> Row:
    """The address vdbench's master gives its slaves, as its Java resolves the host name (a
    one-line Java program run the way vdbench runs, with ``vdbench.controller_address``'s hosts
    file; ``getent ahosts`` where Java cannot run a source file, as Java 8 or a JRE without its
    compiler cannot; :func:`.run.resolve_own_address`)."""
    from flashpoc.engines.vdbench.plan import remote_hosts
    from flashpoc.engines.vdbench.run import resolve_own_address

    out = resolve_own_address(host, run_dir, setup)
    return controller_address_row(params.name, out, campaign.settings.controller_address,
                                  [h.address for h in remote_hosts(campaign)])


def controller_address_row(host: str, output: str, controller_address: str | None, addresses: list[str]) -> Row:
    """The "slaves call back" row from the address check's output (pure; see
    :func:`_controller_address_row`).

    vdbench starts a slave of each ``hd=`` host (``addresses``) whose address is not the one its
    Java resolves the host name to over ``shell=``, and gives it that address to call back:
    exactly 127.0.0.1 it refuses ("Invalid network definition for multi-host processing"), and
    another loopback address would make a slave on another machine call itself. With
    ``vdbench.controller_address`` Java must have resolved the host name to it.
    """
    lines = output.splitlines()
    name = next((line[5:] for line in lines if line.startswith("name=")), "") or "(unknown)"
    own = next((line[4:].split() for line in lines if line.startswith("own=")), [])
    java = next((line.split() for line in lines if line.startswith("flashpoc-localhost ")), None)
    resolved = [line[7:].split()[0] for line in lines if line.startswith("getent=") and len(line) > 7]
    if java is not None and len(java) == 3:
        address, how = java[2], "vdbench's Java resolves"
    elif resolved and controller_address is None:
        # Java's order: IPv4 addresses first (java.net.preferIPv6Addresses=false)
        address = next((a for a in resolved if ":" not in a), resolved[0])
        how = "getent (Java could not run the check program) resolves"
    else:
        error = " ".join(line.strip() for line in lines if line.strip() and not line.startswith(("name=", "own=",
                                                                                                  "getent=")))[-300:]
        return check_row(host, "slaves call back", None, "fail",
                    f"could not resolve the host name {name} as vdbench's Java does: {error or 'no output'}")
    where = f"{how} the host name {name} to {address}"
    own_text = ", ".join(a for a in own if not _loopback(a)) or "none found"
    remote = [a for a in addresses if a != address]  # vdbench starts the others as local slaves
    if not remote:
        return check_row(host, "slaves call back", address, "pass",
                    f"{where}: vdbench starts every slave on this host ({', '.join(addresses)})")
    if controller_address is not None and address != controller_address:
        return check_row(host, "slaves call back", address, "fail",
                    f"{where}, not vdbench.controller_address {controller_address}: vdbench's Java did not read the "
                    "hosts file given to it (-Djdk.net.hosts.file needs Java 9 or later); map the host name to the "
                    "address in /etc/hosts instead")
    fix = (f"set vdbench.controller_address to this host's address that the other hosts reach (this host's: "
           f"{own_text}), or map {name} to it in /etc/hosts")
    if address == "127.0.0.1":
        return check_row(host, "slaves call back", address, "fail",
                    f"{where}: vdbench refuses remote hosts then (\"Invalid network definition for multi-host "
                    f"processing\"); {fix}")
    if _loopback(address) and not all(_loopback(a) for a in remote):
        return check_row(host, "slaves call back", address, "fail",
                    f"{where}, a loopback address: the slaves on {', '.join(a for a in remote if not _loopback(a))} "
                    f"would call themselves; {fix}")
    given = " (vdbench.controller_address)" if controller_address is not None else ""
    if own and address not in own and not _loopback(address):
        return check_row(host, "slaves call back", address, "warn",
                    f"{where}{given}, which is not among this host's addresses ({own_text}): the slaves call it "
                    "back there")
    return check_row(host, "slaves call back", address, "pass", f"{where}{given}; the slaves call the master there")


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _slave_shell_row(campaign: Campaign, params: HostParams, other: HostParams, host: Any, run_dir: str,
                     setup: Any) -> Row:
    """Run on the controller the command vdbench starts a slave of ``other`` with (``SHELL
    ADDRESS -l USER VDBENCH_DIR/vdbench SlaveJvm ...`` through ``/bin/bash -c``, stdin not a
    terminal, with the ssh wrapper first on the PATH), its remote part replaced by
    ``test -x VDBENCH_DIR/vdbench``."""
    from flashpoc.engines.vdbench.run import run_slave_shell

    shell = campaign.settings.shell
    name = f"{shell} to {other.name}"
    i = campaign.hosts.index(other)  # its user is set: validation refuses a remote slave without one
    directory = other.vdbench or params.vdbench
    launcher = f"{directory.rstrip('/')}/vdbench" if directory else None
    remote = ["test", "-x", launcher] if launcher else ["true"]
    shown = f"{shell} {other.address} -l {other.user}"
    how = " (with the ssh config the workbook writes: port, key, known_hosts)" if setup.ssh_config else ""
    try:
        result = run_slave_shell(host, run_dir, setup, [shell, other.address, "-l", other.user, *remote],
                                 purpose=f"{shell} to {other.name} as vdbench does",
                                 timeout_s=other.connect_timeout_s + 30)
    except RemoteError as error:
        return check_row(params.name, name, "no answer", "fail", f"{shown}{how}: {error}")
    if result.ok:
        found = f"; {launcher} is there" if launcher else ""
        return check_row(params.name, name, "ok", "pass", f"{shown}{how}: password-less{found}")
    error = (result.stderr.strip() or result.stdout.strip())[-300:]
    if result.exited != 255 and launcher:
        return check_row(params.name, name, "no vdbench", "fail",
                    f"{shown}{how}: {launcher} is not there (vdbench starts its slaves with it; set hosts[{i}].vdbench)"
                    + (f": {error}" if error else ""))
    return check_row(params.name, name, "refused", "fail",
                f"{shown}{how}: {error or 'failed'} (vdbench's shell={shell} needs password-less SSH from the "
                "controller)")


# -- SLOB and the database -----------------------------------------------------------------
