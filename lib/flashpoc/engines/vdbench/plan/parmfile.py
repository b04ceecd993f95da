"""The parmfile text: general, ``hd=``, ``sd=``, ``wd=`` and ``rd=`` lines, and the fill's parmfile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flashpoc.core.errors import ParameterError
from flashpoc.params import Campaign, HostParams, TargetParams, Workload, parse_size
from flashpoc.engines.vdbench.plan.checks import _check_campaign, _check_name, _num, vdbench_size
from flashpoc.engines.vdbench.plan.rd import RunDefinition


_HD_SETTINGS = ("vdbench", "user", "shell", "jvms")


#: the fill of a scratch file: sequential writes of this size (vdbench's own format uses 128k),
#: rounded up to a multiple of dedupunit, by this many threads per sd
FILL_XFERSIZE = 128 * 1024
FILL_THREADS = 2
#: the fill's rd: its elapsed= is only an upper bound (seekpct=eof ends the run at the end of the files)
FILL_ELAPSED_S = 86400


# -- the parmfile ---------------------------------------------------------------------

def render_parmfile(campaign: Campaign, workload_names: Sequence[str] | None,
                    rd: RunDefinition | Sequence[RunDefinition]) -> str:
    """Return the vdbench parmfile text.

    Args:
        campaign: validated campaign with absolute target paths (``campaign.resolved()``).
        workload_names: workloads to define as ``wd=`` (None: every workload); each rd's
            workload must be among them.
        rd: the run definition, or several (run in order).

    Raises:
        ParameterError: a value vdbench cannot take or that would break the line, naming its key.
    """
    rds = [rd] if isinstance(rd, RunDefinition) else list(rd)
    if not rds or not all(isinstance(r, RunDefinition) for r in rds):
        raise ParameterError(f"rd: one RunDefinition or a non-empty list of them, got {rd!r}")
    names = [w.name for w in campaign.workloads] if workload_names is None else list(workload_names)
    if isinstance(workload_names, str) or not names:
        raise ParameterError(f"workload_names: a non-empty list of workload names, got {workload_names!r}")
    workloads = [campaign.workload(n) for n in names]
    if len(set(names)) != len(names):
        raise ParameterError(f"workload_names: a workload is named twice in {names}")
    seen_rds: set[str] = set()
    for r in rds:
        if r.workload not in names:
            raise ParameterError(f"rd {r.name}: workload {r.workload!r} is not among workload_names {names}")
        if r.name in seen_rds:
            raise ParameterError(f"rd {r.name}: vdbench refuses duplicate rd names")
        seen_rds.add(r.name)
    _check_campaign(campaign)
    _check_workloads(campaign, workloads)

    sds = [t.name for t in campaign.targets]
    lines = [f"* flashpoc campaign {campaign.campaign}: vdbench parmfile (generated; edit the parameters instead)",
             f"* threads are per sd: outstanding I/Os = threads x {len(sds)} sd{'s' if len(sds) > 1 else ''}",
             "*"]
    general = _general_lines(campaign)
    hosts = _host_lines(campaign)
    for block in (general, hosts):
        if block:
            lines += block + [""]
    named_hosts = not (len(campaign.hosts) == 1 and campaign.hosts[0].is_local)
    lines += _sd_lines(campaign, named_hosts) + [""]
    writers = [w.name for w in workloads if w.writes]
    if writers:
        lines.append(f"* {', '.join(writers)} write{'s' if len(writers) == 1 else ''}: "
                     "run only on LUNs and files whose data may be destroyed")
    selector = _sd_selector(sds)
    for wl in workloads:
        needs_xfersize = any(r.workload == wl.name and not r.carries_xfersize for r in rds)
        lines.append(_wd_line(wl, selector, needs_xfersize))
    lines.append("")
    lines += [r.line() for r in rds]
    return "\n".join(lines) + "\n"


def render_fill_parmfile(campaign: Campaign, targets: Sequence[TargetParams], sizes: dict[str, int] | None = None
                         ) -> str:
    """The parmfile that fills targets (scratch files, or LUNs that allow writing) with vdbench's own
    data, once (``sizes``: each working set in bytes, for a LUN without a ``size``).

    The general ``compratio=``/``dedupratio=``/``dedupunit=`` lines (as in every parmfile of the
    campaign), one sd per file (without ``host=``: it runs on the host that holds the files),
    and one sequential write of each file to its end (``seekpct=eof``, which ends the run; its
    ``elapsed=`` is only an upper bound), so that reads later read data of the configured
    reducibility rather than holes or another tool's data. The files must already exist at
    their size (else vdbench runs its own format first); a LUN without a ``size`` is filled whole.
    """
    if not targets or not all(t.writable for t in targets):
        raise ParameterError(f"targets: the fill writes targets that allow it (create or allow_write), got {targets!r}")
    _check_campaign(campaign)
    xfer = fill_xfersize(campaign, targets, sizes)
    interval = campaign.settings.interval_s
    rd = RunDefinition("fill", "fill", (FILL_THREADS,), elapsed_s=-(-FILL_ELAPSED_S // interval) * interval,
                       interval_s=interval)
    names = [t.name for t in targets]
    lines = [f"* flashpoc campaign {campaign.campaign}: fill of the scratch files {', '.join(names)} with vdbench "
             "data (generated)", "*"]
    general = _general_lines(campaign)
    lines += general + [""] if general else []
    lines += _sd_lines(campaign, False, targets) + [""]
    lines.append(f"wd=fill,sd={names[0] if len(names) == 1 else '(' + ','.join(names) + ')'},rdpct=0,"
                 f"seekpct=eof,xfersize={vdbench_size(xfer)}")
    lines += ["", rd.line()]
    return "\n".join(lines) + "\n"


def fill_xfersize(campaign: Campaign, targets: Sequence[TargetParams], sizes: dict[str, int] | None = None) -> int:
    """The fill's transfer size in bytes: :data:`FILL_XFERSIZE` rounded up to a multiple of
    ``dedupunit`` (vdbench dedups in dedupunit blocks), or one dedupunit (512 bytes without
    one) for files smaller than two of those (``sizes``: working sets of targets without a size)."""
    unit = parse_size(campaign.settings.dedupunit) if campaign.settings.dedupunit else 512
    xfer = -(-FILL_XFERSIZE // unit) * unit
    smallest = min(t.size_bytes or (sizes or {}).get(t.name) or 2 * xfer for t in targets)
    return unit if smallest < 2 * xfer else xfer


def data_text(campaign: Campaign) -> str:
    """The data vdbench writes, in its own words: ``compratio=2 dedupratio=2 dedupunit=4k``,
    or its default (incompressible data without duplicates)."""
    text = " ".join(line for line in _general_lines(campaign) if line.startswith(("compratio", "dedup")))
    return text or "vdbench's default data (compratio=1, no dedup)"


def _general_lines(campaign: Campaign) -> list[str]:
    vd = campaign.settings
    out = []
    if vd.compratio is not None:
        out.append(f"compratio={_num(vd.compratio)}")
    if vd.dedupratio is not None:
        out.append(f"dedupratio={_num(vd.dedupratio)}")
    if vd.dedupunit is not None:
        out.append(f"dedupunit={vdbench_size(parse_size(vd.dedupunit))}")
    if vd.data_errors is not None:
        out.append(f"data_errors={vd.data_errors}")
    if vd.messagescan is not None:
        out.append(f"messagescan={'yes' if vd.messagescan else 'no'}")
    return out


def _host_settings(campaign: Campaign, host: HostParams) -> dict[str, Any]:
    return {"vdbench": host.vdbench, "user": host.user, "shell": campaign.settings.shell,
            "jvms": host.jvms if host.jvms is not None else campaign.settings.jvms}


def _host_lines(campaign: Campaign) -> list[str]:
    """``hd=`` lines: none for one local host (bar ``jvms``), else ``hd=default`` with the
    settings every host shares and one ``hd=NAME,system=ADDRESS`` line per host."""
    hosts = campaign.hosts
    if len(hosts) == 1 and hosts[0].is_local:
        jvms = _host_settings(campaign, hosts[0])["jvms"]
        return [f"hd=default,jvms={jvms}"] if jvms is not None else []
    settings = [_host_settings(campaign, h) for h in hosts]
    shared = {k: settings[0][k] for k in _HD_SETTINGS
              if settings[0][k] is not None and all(s[k] == settings[0][k] for s in settings)}
    lines = []
    if shared:
        lines.append("hd=default," + ",".join(f"{k}={v}" for k, v in shared.items()))
    for host, own in zip(hosts, settings):
        extra = [f"{k}={own[k]}" for k in _HD_SETTINGS if k not in shared and own[k] is not None]
        lines.append(",".join([f"hd={host.name}", f"system={host.address}", *extra]))
    return lines


def _sd_lines(campaign: Campaign, with_hosts: bool, targets: Sequence[TargetParams] | None = None) -> list[str]:
    all_hosts = {h.name for h in campaign.hosts}
    flags = campaign.settings.openflags
    if flags is not None and "," in flags and not flags.startswith("("):
        flags = f"({flags})"
    lines = []
    for target in campaign.targets if targets is None else targets:
        parts = [f"sd={target.name}"]
        # a target on some hosts only gets host= (as fixtures/vdbench/multi_host); without it
        # vdbench expects the lun on every host (its default host=*), as the guide's shared LUNs
        if with_hosts and target.hosts is not None and set(target.hosts) != all_hosts:
            chosen = [h.name for h in campaign.hosts if h.name in target.hosts]
            parts.append(f"host={chosen[0]}" if len(chosen) == 1 else f"host=({','.join(chosen)})")
        parts.append(f"lun={target.path}")
        if target.size_bytes is not None:
            parts.append(f"size={vdbench_size(target.size_bytes)}")
        if flags is not None:
            parts.append(f"openflags={flags}")
        lines.append(",".join(parts))
    return lines


def _sd_selector(sds: list[str]) -> str:
    """The wd's ``sd=``: one name, or a trailing wildcard (vdbench's only kind) matching
    exactly the campaign's SDs: ``sd*`` for sd1..sd4 (every SD of the file is a target)."""
    if len(sds) == 1:
        return sds[0]
    prefix = sds[0]
    for name in sds[1:]:
        while not name.startswith(prefix):
            prefix = prefix[:-1]
    return f"{prefix}*"


def _seekpct(workload: Workload) -> str:
    if workload.seekpct is None:
        return "100" if workload.random else "0"
    if isinstance(workload.seekpct, str):
        return workload.seekpct
    return _num(workload.seekpct)


def _wd_line(workload: Workload, selector: str, with_xfersize: bool) -> str:
    parts = [f"wd={workload.name}", f"sd={selector}"]
    if with_xfersize:
        parts.append(f"xfersize={vdbench_size(parse_size(workload.bs))}")
    parts += [f"rdpct={workload.read_pct}", f"seekpct={_seekpct(workload)}"]
    if workload.skew is not None:
        parts.append(f"skew={_num(workload.skew)}")
    return ",".join(parts)


def _check_workloads(campaign: Campaign, workloads: list[Workload]) -> None:
    """Each workload's name, queue depth and skew as vdbench takes them (an rd runs one workload)."""
    index = {w.name: i for i, w in enumerate(campaign.workloads)}
    for i, wl in ((index[w.name], w) for w in workloads):
        _check_name(wl.name, f"workloads[{i}].name")
        if wl.iodepth != 1:
            raise ParameterError(f"workloads[{i}].iodepth: vdbench has no queue depth per thread (its threads "
                                 "are the outstanding I/Os per sd); leave iodepth at 1 or use engine: fio")
        # vdbench: the skews of an rd's workloads must add up to 100 (HandleSkew)
        if wl.skew is not None and abs(wl.skew - 100.0) > 1e-4:
            raise ParameterError(f"workloads[{i}].skew: each rd runs {wl.name} alone, and vdbench needs the skews "
                                 f"of an rd's workloads to add up to 100 (got {_num(wl.skew)})")
