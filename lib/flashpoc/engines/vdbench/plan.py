"""vdbench parameter files from campaign parameters (pure: parameters in, parmfile text out).

A parmfile holds, in this order: general parameters (``compratio=``, ``dedupratio=``,
``dedupunit=``, ``data_errors=``, ``messagescan=``), host definitions (``hd=``, only for
several hosts or a remote one), one storage definition (``sd=``) per target, one workload
definition (``wd=``) per workload, and the run definitions (``rd=``) last::

    hd=default,user=root,shell=ssh,jvms=16
    hd=hd1,system=srv1
    sd=sd1,lun=/dev/mapper/3600...,size=250g,openflags=o_direct
    wd=wd1,sd=sd*,rdpct=100,seekpct=100
    rd=rd1,wd=wd1,iorate=max,elapsed=60,interval=1,xfersize=4k,forthreads=(100-500,100)

Thread semantics: vdbench's ``threads`` are per SD (each storage definition gets that many
outstanding I/Os, shared by the hosts and slave JVMs that run it), so a run point keeps
threads x SDs I/Os in flight: the guide's 300 threads on 4 LUNs show a queue depth of 1198 in
totals.html. See :func:`outstanding_ios`.

Every SD is named after its target and every WD after its workload, so vdbench's per-SD
reports and ``Starting RD=`` lines join back to the campaign. Target paths are written as
given: pass ``campaign.resolved()`` so that relative scratch paths become absolute (vdbench
runs in its own directory). Values that vdbench cannot read, or that would break a parmfile
line, raise :class:`~flashpoc.errors.ParameterError` naming the key.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from ...errors import ParameterError
from ...params import Campaign, HostParams, TargetParams, Workload, parse_size
from ...plan.sweep import format_forthreads

#: characters vdbench's parameter scanner treats specially (separators, quotes, substitutes)
UNSAFE_CHARS = frozenset(',=()"[^{}?')
#: a parmfile name (sd=, wd=, rd=); one that vdbench would read as a number is refused as well
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
#: Java's Double.parseDouble, which vdbench tries on every value before keeping it as text
_JAVA_DOUBLE = re.compile(r"^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|"
                          r"0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*[pP][+-]?\d+)[fFdD]?$")
_SIZE_UNITS = (("t", 1024**4), ("g", 1024**3), ("m", 1024**2), ("k", 1024))
_HD_SETTINGS = ("vdbench", "user", "shell", "jvms")
#: intervals of ``warmup=`` on every run when ``vdbench.warmup_s`` is not set: vdbench 5.04.06
#: counts the last warm-up interval in its average, so two leave the first one out
WARMUP_INTERVALS = 2
#: the fill of a scratch file: sequential writes of this size (vdbench's own format uses 128k),
#: rounded up to a multiple of dedupunit, by this many threads per sd
FILL_XFERSIZE = 128 * 1024
FILL_THREADS = 2
#: the fill's rd: its elapsed= is only an upper bound (seekpct=eof ends the run at the end of the files)
FILL_ELAPSED_S = 86400


# -- run definitions ------------------------------------------------------------------

@dataclass(frozen=True)
class RunDefinition:
    """One ``rd=`` line: a workload run at each thread count (vdbench's ``forthreads``).

    Attributes:
        name: rd name, e.g. ``rd1`` (printed in ``Starting RD=rd1`` and flatfile's ``Run``).
        workload: the wd (campaign workload) the run uses.
        threads: thread counts per SD, in run order: ``forthreads=(lo-hi,step)`` for an
            arithmetic sequence, ``(lo-hi,d)`` for a doubling one, else the list ``(a,b,c)``.
        xfersize: transfer size on the rd line (e.g. ``4k``, as the guide does); None leaves
            it to the wd (which then carries the workload's ``bs``).
        forxfersize: transfer sizes to loop over (excludes ``xfersize``).
        forrdpct: read percentages to loop over (override the wd's ``rdpct``).
        iorate: ``max``, ``curve`` (with ``curve``) or a fixed I/O rate.
        curve: ``iorate=curve`` points: % of the measured maximum.
        stopcurve_ms: ``stopcurve=``: vdbench stops the curve once a step's response time passes it (ms).
        elapsed_s, interval_s, warmup_s: rd ``elapsed=``, ``interval=``, ``warmup=`` (s).
    """

    name: str
    workload: str
    threads: tuple[int, ...]
    xfersize: str | None = None
    forxfersize: tuple[str, ...] | None = None
    forrdpct: tuple[int, ...] | None = None
    iorate: Literal["max", "curve"] | int = "max"
    curve: tuple[float, ...] | None = None
    elapsed_s: int = 60
    interval_s: int = 1
    warmup_s: int | None = None
    stopcurve_ms: float | None = None

    def __post_init__(self) -> None:
        key = "RunDefinition"
        _check_name(self.name, f"{key}.name")
        _check_name(self.workload, f"{key}.workload")
        if isinstance(self.threads, (str, bytes)) or not isinstance(self.threads, Sequence) or not self.threads:
            raise ParameterError(f"{key}.threads: a non-empty list of thread counts, got {self.threads!r}")
        object.__setattr__(self, "threads",
                           tuple(_whole(f"{key}.threads[{i}]", t) for i, t in enumerate(self.threads)))
        if self.xfersize is not None:
            object.__setattr__(self, "xfersize", _xfer(self.xfersize, f"{key}.xfersize"))
        if self.forxfersize is not None:
            if self.xfersize is not None:
                raise ParameterError(f"{key}.forxfersize: give xfersize or forxfersize, not both "
                                     "(vdbench would keep only the last)")
            sizes = _seq(self.forxfersize, f"{key}.forxfersize")
            object.__setattr__(self, "forxfersize", _nonempty(
                [_xfer(x, f"{key}.forxfersize[{i}]") for i, x in enumerate(sizes)], f"{key}.forxfersize"))
        if self.forrdpct is not None:
            object.__setattr__(self, "forrdpct", _nonempty(
                [_whole(f"{key}.forrdpct[{i}]", p, minimum=0, maximum=100)
                 for i, p in enumerate(_seq(self.forrdpct, f"{key}.forrdpct"))], f"{key}.forrdpct"))
        _check_iorate(self.iorate, self.curve, key)
        if self.curve is not None:
            object.__setattr__(self, "curve", tuple(float(c) for c in self.curve))
        _check_timing(self.elapsed_s, self.interval_s, self.warmup_s,
                      (f"{key}.elapsed_s", f"{key}.interval_s", f"{key}.warmup_s"))

    def line(self) -> str:
        """The ``rd=`` line."""
        parts = [f"rd={self.name}", f"wd={self.workload}", f"iorate={self.iorate}"]
        if self.curve is not None:
            parts.append("curve=(" + ",".join(_num(c) for c in self.curve) + ")")
        if self.stopcurve_ms is not None:
            parts.append(f"stopcurve={_num(self.stopcurve_ms)}")
        parts += [f"elapsed={self.elapsed_s}", f"interval={self.interval_s}"]
        if self.warmup_s is not None:
            parts.append(f"warmup={self.warmup_s}")
        # for-loops nest in the order given: xfersize and rdpct outside, threads innermost
        if self.xfersize is not None:
            parts.append(f"xfersize={self.xfersize}")
        if self.forxfersize is not None:
            parts.append("forxfersize=(" + ",".join(self.forxfersize) + ")")
        if self.forrdpct is not None:
            parts.append("forrdpct=(" + ",".join(str(p) for p in self.forrdpct) + ")")
        parts.append(f"forthreads={format_threads(self.threads)}")
        return ",".join(parts)

    @property
    def carries_xfersize(self) -> bool:
        """True when the rd sets the transfer size (``xfersize=`` or ``forxfersize=``)."""
        return self.xfersize is not None or self.forxfersize is not None

    @property
    def runs(self) -> int:
        """The runs vdbench makes of this rd: one per thread count (and per transfer size and
        read percentage looped), each followed by one run per ``curve`` step."""
        loops = len(self.forxfersize or (None,)) * len(self.forrdpct or (None,))
        return len(self.threads) * loops * (1 + len(self.curve or ()))

    def owns(self, printed: str) -> bool:
        """True when ``printed`` (a ``Starting RD=`` name) is a run of this rd: its name, or a
        curve step ``rd1_(50%)``; not vdbench's own ``SD_format`` run or another rd's."""
        return printed == self.name or self.curve_pct(printed) is not None

    def curve_pct(self, printed: str) -> float | None:
        """The curve step (% of the measured maximum) of the run printed as ``printed``
        (``rd1_(50%)`` -> 50.0); None for the rd's own (uncontrolled) runs and other names."""
        step = re.fullmatch(re.escape(self.name) + r"_\((\d+(?:\.\d+)?)%\)", printed)
        return float(step.group(1)) if step and self.curve is not None else None


def format_threads(threads: Sequence[int]) -> str:
    """vdbench ``forthreads`` text: ``(1-16,d)`` for doubling counts, else as
    :func:`~flashpoc.plan.sweep.format_forthreads` (``(10-300,10)`` or ``(2,4,6,10)``)."""
    counts = list(threads)
    if len(counts) >= 3 and all(b == 2 * a for a, b in zip(counts, counts[1:])):
        return f"({counts[0]}-{counts[-1]},d)"
    return format_forthreads(counts)


def probe_run(campaign: Campaign, *, name: str = "rd1", threads: Sequence[int] | None = None) -> RunDefinition:
    """The saturation probe of ``campaign.probe_workload`` as one rd.

    ``linear``: ``forthreads=(min-max,step)`` (the guide's ``(100-500,100)``); ``adaptive``:
    the doubling ladder ``min, 2 min, 4 min, ...`` capped at max_threads, ``(1-16,d)`` when
    max_threads is on the ladder. vdbench runs every count (it cannot stop at the plateau).
    ``threads`` gives other counts (the adaptive probe's refine points, the plateau on fewer
    hosts). Each point runs ``probe.runtime_s``, else ``vdbench.elapsed_s``, seconds.

    The probe fits IOPS against threads, so it always runs ``iorate=max`` (``iorate: curve``
    and a fixed rate are the sweep's), with the warm-up of :func:`warmup_s`.
    """
    probe = campaign.probe
    if threads is not None:
        counts = list(threads)
    elif probe.strategy == "linear":
        counts = list(range(probe.min_threads, probe.max_threads + 1, probe.step))
    else:
        counts = [probe.min_threads]
        while counts[-1] < probe.max_threads:
            counts.append(min(probe.max_threads, 2 * counts[-1]))
    return _run(campaign, name, campaign.probe_workload, counts, probe.runtime_s, "probe.runtime_s",
                iorate="max", curve=None)


def sweep_run(campaign: Campaign, threads: Sequence[int], workload: Workload | str, *,
              name: str = "rd1") -> RunDefinition:
    """The fine sweep of ``workload`` over ``threads`` (e.g. :func:`~flashpoc.plan.sweep.plan_sweep`'s
    ``10, 20, ..., 300``: ``forthreads=(10-300,10)``), ``sweep.runtime_s`` (else
    ``vdbench.elapsed_s``) seconds per point, at ``vdbench.iorate`` (with ``iorate: curve``,
    each thread count's full-speed run is followed by one run per ``curve`` step), with the
    warm-up of :func:`warmup_s`. ``sweep.plan: rate-curve`` runs ``iorate=curve`` at
    ``sweep.curve_pct``, with ``stopcurve=`` at ``sweep.stop_ms``."""
    wl = campaign.workload(workload) if isinstance(workload, str) else workload
    vd = campaign.settings
    if campaign.sweep.rate_steps:  # sweep.plan: rate-curve, vdbench's own iorate=curve
        return replace(_run(campaign, name, wl, threads, campaign.sweep.runtime_s, "sweep.runtime_s", iorate="curve",
                            curve=tuple(campaign.sweep.rate_steps)), stopcurve_ms=campaign.sweep.stop_ms)
    return _run(campaign, name, wl, threads, campaign.sweep.runtime_s, "sweep.runtime_s", iorate=vd.iorate,
                curve=tuple(vd.curve) if vd.curve is not None else None)


def round_run(campaign: Campaign, workload: Workload, threads: int, runtime_s: int) -> RunDefinition:
    """One round of the write workloads' preconditioning: ``workload`` at ``threads`` at full
    speed for ``runtime_s`` seconds (``precondition.round_s``)."""
    return _run(campaign, "rd1", workload, [threads], runtime_s, "precondition.round_s", iorate="max", curve=None)


def warmup_s(campaign: Campaign) -> int | None:
    """The ``warmup=`` of every run (s): ``vdbench.warmup_s``, else :data:`WARMUP_INTERVALS`
    intervals, so that no point is measured cold (the first run in a new JVM, the first interval
    after the thread count changed); ``warmup_s: 0`` gives None, no ``warmup=`` (vdbench's default
    of one interval, which vdbench 5.04.06 counts in its average)."""
    vd = campaign.settings
    return (WARMUP_INTERVALS * vd.interval_s if vd.warmup_s is None else vd.warmup_s) or None


def longer_run(campaign: Campaign, workload: Workload, threads: int, runtime_s: int) -> RunDefinition:
    """A sweep point measured again longer (``sweep.extend_until_steady``): ``workload`` at
    ``threads`` at full speed for ``runtime_s`` rounded up to whole intervals."""
    interval = campaign.settings.interval_s
    return _run(campaign, "rd1", workload, [threads], -(-runtime_s // interval) * interval,
                "sweep.extend_until_steady.max_s", iorate="max", curve=None)


def _run(campaign: Campaign, name: str, workload: Workload, threads: Sequence[int], runtime_s: int | None,
         runtime_key: str, *, iorate: str | int, curve: tuple[float, ...] | None) -> RunDefinition:
    vd = campaign.settings
    elapsed = runtime_s or vd.elapsed_s
    warmup = warmup_s(campaign)
    _check_timing(elapsed, vd.interval_s, warmup,
                  (runtime_key if runtime_s else "vdbench.elapsed_s", "vdbench.interval_s", "vdbench.warmup_s"))
    return RunDefinition(name=name, workload=workload.name, threads=tuple(threads), xfersize=workload.bs,
                         iorate=iorate, curve=curve, elapsed_s=elapsed, interval_s=vd.interval_s, warmup_s=warmup)


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
    _check_workloads(campaign, workloads, rds)

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


def remote_hosts(campaign: Campaign) -> list[HostParams]:
    """The hosts vdbench's master may start its slaves on through ``shell=`` (ssh, rsh): those
    of the ``hd=`` lines whose address is not ``localhost`` (vdbench starts those itself, and
    also any whose address is its own, which it tells from its host name's address)."""
    hosts = campaign.hosts
    if len(hosts) == 1 and hosts[0].is_local:
        return []
    return [h for h in hosts if not h.is_local]


def ssh_config(campaign: Campaign) -> str | None:
    """The OpenSSH client configuration for vdbench's ``shell=ssh`` (None without a remote
    host or with another shell).

    vdbench starts a remote slave as ``ssh ADDRESS -l USER VDBENCH_DIR/vdbench SlaveJvm ...``
    (``Vdb/SlaveStarter.java``): no port, no key, no known_hosts file. The workbook runs that
    ``ssh`` with ``-F`` this file, one ``Host ADDRESS`` block per remote host with the settings
    of its parameters: ``Port``, ``User``, ``IdentityFile`` (``key_file``), ``UserKnownHostsFile``
    (``known_hosts``), ``StrictHostKeyChecking`` (``yes``, or ``accept-new`` with
    ``trust_unknown_host_key``), ``ConnectTimeout``, ``BatchMode yes`` (a prompt would hang
    vdbench) and ``GSSAPIAuthentication no`` (keys only, as the workbook's own SSH: Kerberos
    look-ups can stall a connection for tens of seconds). File paths are read on the controller.
    The ssh client's own configuration files follow, for anything the parameters do not set.

    Raises:
        ParameterError: two hosts at one address with other SSH settings (vdbench names a host by
            its address only, so ssh could not tell them apart).
    """
    if campaign.settings.shell != "ssh":
        return None
    hosts = remote_hosts(campaign)
    if not hosts:
        return None
    blocks: dict[str, list[str]] = {}
    for host in hosts:
        lines = [f"Host {host.address}", f"  Port {host.port}"]
        if host.user:
            lines.append(f"  User {host.user}")
        if host.key_file:
            lines += [f"  IdentityFile {host.key_file}", "  IdentitiesOnly yes"]
        if host.known_hosts:
            lines.append(f"  UserKnownHostsFile {host.known_hosts}")
        lines += [f"  StrictHostKeyChecking {'accept-new' if host.trust_unknown_host_key else 'yes'}",
                  f"  ConnectTimeout {math.ceil(host.connect_timeout_s)}", "  BatchMode yes",
                  "  GSSAPIAuthentication no"]
        seen = blocks.setdefault(host.address, lines)
        if seen != lines:
            i = campaign.hosts.index(host)
            raise ParameterError(f"hosts[{i}].address: {host.address} is also another host's address, with other "
                                 "SSH settings; vdbench names a remote host by its address only")
    out = ["# flashpoc: the OpenSSH client settings of vdbench's shell=ssh, from the hosts' parameters "
           "(generated)", ""]
    for lines in blocks.values():
        out += lines + [""]
    out += ["# the ssh client's own configuration, for anything not set above", "Match all",
            "  Include ~/.ssh/config", "  Include /etc/ssh/ssh_config"]
    return "\n".join(out) + "\n"


def threads_per_host(campaign: Campaign, threads: int) -> dict[str, int]:
    """The I/Os each host is asked to keep in flight at ``threads`` (per SD), as vdbench spreads
    them: each SD's threads go round-robin over the hosts that use it, one counter running on
    over the SDs (``RD_entry.spreadSdThreadsAcrossSlaves``), so at low counts some hosts get
    none (threads=1 on one SD shared by two hosts: 1 and 0) and the hosts' shares differ by a
    thread. Exact when every SD is on the same hosts; vdbench's own SD order decides ties
    otherwise. Host names in the parameters' order.
    """
    threads = _whole("threads", threads)
    hosts = [h.name for h in campaign.hosts]
    given = dict.fromkeys(hosts, 0)
    robin = 0
    for target in campaign.targets:
        on = [h for h in hosts if target.hosts is None or h in target.hosts]
        for _ in range(threads if on else 0):
            given[on[robin % len(on)]] += 1
            robin += 1
    return given


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


# -- sizing ---------------------------------------------------------------------------

def outstanding_ios(threads: int, campaign: Campaign) -> int:
    """I/Os in flight at a run point: threads x SDs (vdbench's threads are per SD).

    Every wd uses ``sd=`` all of the campaign's targets, so ``threads x len(targets)``: the
    guide's 100 threads on 4 LUNs are 400 (558,627 IOPS x 0.714 ms = 399), 300 threads 1200
    (totals.html queue depth 1198).
    """
    return _whole("threads", threads) * len(campaign.targets)


def vdbench_size(nbytes: int) -> str:
    """``nbytes`` in vdbench's notation (binary k/m/g/t): 268435456000 -> ``250g``."""
    for unit, factor in _SIZE_UNITS:
        if nbytes % factor == 0:
            return f"{nbytes // factor}{unit}"
    return str(nbytes)


# -- checks ---------------------------------------------------------------------------

def _check_campaign(campaign: Campaign) -> None:
    """What the schema allows but vdbench cannot take, or what would break a line."""
    for i, host in enumerate(campaign.hosts):
        if host.name.lower() == "default":
            raise ParameterError(f"hosts[{i}].name: 'default' is vdbench's hd=default; rename the host")
        _check_token(host.name, f"hosts[{i}].name")
        _check_token(host.address, f"hosts[{i}].address")
        if host.vdbench is not None:
            _check_token(host.vdbench, f"hosts[{i}].vdbench")
            if not host.vdbench.startswith("/"):
                raise ParameterError(f"hosts[{i}].vdbench: vdbench needs the absolute install directory, "
                                     f"got {host.vdbench!r}")
    for i, target in enumerate(campaign.targets):
        _check_name(target.name, f"targets[{i}].name")
        if target.name.lower() == "concat":
            raise ParameterError(f"targets[{i}].name: vdbench refuses an sd named 'concat'")
        _check_token(target.path, f"targets[{i}].path")
        if not target.path.startswith("/"):
            raise ParameterError(f"targets[{i}].path: vdbench needs an absolute path (it runs in its own "
                                 f"directory), got {target.path!r}: pass campaign.resolved()")
        is_device = target.path.startswith("/dev/")
        if target.size is None and not is_device:
            raise ParameterError(f"targets[{i}].size: vdbench needs a size for the file {target.path} "
                                 "(else 'Undefined size for sd'); e.g. size: 1g")
        if is_device and campaign.settings.openflags is None:
            raise ParameterError(f"vdbench.openflags: vdbench on Linux requires openflags (e.g. o_direct) for "
                                 f"a /dev/ lun (targets[{i}] {target.path})")
    vd = campaign.settings
    _check_timing(vd.elapsed_s, vd.interval_s, vd.warmup_s,
                  ("vdbench.elapsed_s", "vdbench.interval_s", "vdbench.warmup_s"))


def _check_workloads(campaign: Campaign, workloads: list[Workload], rds: list[RunDefinition]) -> None:
    index = {w.name: i for i, w in enumerate(campaign.workloads)}
    for i, wl in ((index[w.name], w) for w in workloads):
        _check_name(wl.name, f"workloads[{i}].name")
        if wl.iodepth != 1:
            raise ParameterError(f"workloads[{i}].iodepth: vdbench has no queue depth per thread (its threads "
                                 "are the outstanding I/Os per sd); leave iodepth at 1 or use engine: fio")
    for r in rds:
        wl = campaign.workload(r.workload)
        # vdbench: the skews of an rd's workloads must add up to 100 (HandleSkew)
        if wl.skew is not None and abs(wl.skew - 100.0) > 1e-4:
            raise ParameterError(f"workloads[{index[wl.name]}].skew: rd {r.name} runs {wl.name} alone, and vdbench "
                                 f"needs the skews of an rd's workloads to add up to 100 (got {_num(wl.skew)})")


def _check_timing(elapsed: int, interval: int, warmup: int | None, keys: tuple[str, str, str]) -> None:
    elapsed = _whole(keys[0], elapsed)
    interval = _whole(keys[1], interval)
    if elapsed < 2 * interval:
        raise ParameterError(f"{keys[0]}: vdbench needs elapsed ({elapsed}) at least twice the interval ({interval})")
    if elapsed % interval:
        raise ParameterError(f"{keys[0]}: vdbench needs elapsed ({elapsed}) a multiple of the interval ({interval})")
    if warmup is not None and _whole(keys[2], warmup, minimum=0) % interval:
        raise ParameterError(f"{keys[2]}: vdbench needs warmup ({warmup}) a multiple of the interval ({interval})")


def _check_iorate(iorate: object, curve: object, key: str) -> None:
    if iorate not in ("max", "curve"):
        _whole(f"{key}.iorate", iorate)
    if (iorate == "curve") != (curve is not None):
        raise ParameterError(f"{key}.curve: curve goes with iorate=curve (and only with it)")
    if curve is not None:
        values = list(_seq(curve, f"{key}.curve"))
        if not values or not all(isinstance(c, numbers.Real) and not isinstance(c, bool) and 0 < c <= 100
                                 for c in values):
            raise ParameterError(f"{key}.curve: percentages of the maximum (0-100], got {curve!r}")


def _check_token(value: str, key: str) -> None:
    """Refuse what vdbench's scanner splits on or rewrites: ``, = ( ) " [ ^ { } ?`` and blanks."""
    bad = sorted({ch for ch in value if ch in UNSAFE_CHARS or ch.isspace() or not ch.isprintable()})
    if bad:
        raise ParameterError(f"{key}: {value!r} has {''.join(bad)!r}, which would break the vdbench parmfile line")


def _check_name(value: object, key: str) -> None:
    if not isinstance(value, str) or not NAME_RE.match(value):
        raise ParameterError(f"{key}: {value!r} is not a vdbench name (letters, digits, "
                             "'.', '_' or '-')")
    if value.lower() == "default":
        raise ParameterError(f"{key}: 'default' sets vdbench's defaults; choose another name")
    if _reads_as_number(value):
        raise ParameterError(f"{key}: vdbench would read {value!r} as a number; choose another name")


def _reads_as_number(text: str) -> bool:
    """True when vdbench's scanner would store ``text`` as a number (Java double, or a
    number with a k/m/g/t/h/% suffix, optionally followed by 'b')."""
    if _JAVA_DOUBLE.match(text):
        return True
    if text[-1:].lower() == "b" and len(text) > 2:
        tail, front = text[-2].lower(), text[:-2]
    else:
        tail, front = text[-1:].lower(), text[:-1]
    return tail in ("k", "m", "g", "t", "h", "%") and bool(_JAVA_DOUBLE.match(front.strip()))


# -- small helpers --------------------------------------------------------------------

def _whole(key: str, value: object, minimum: int = 1, maximum: int | None = None) -> int:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value)
            or value != int(value) or value < minimum or (maximum is not None and value > maximum)):
        upper = f" and <= {maximum}" if maximum is not None else ""
        raise ParameterError(f"{key}: a whole number >= {minimum}{upper}, got {value!r}")
    return int(value)


def _seq(value: object, key: str) -> Sequence[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ParameterError(f"{key}: expected a list, got {value!r}")
    return value


def _nonempty(values: list[Any], key: str) -> tuple[Any, ...]:
    if not values:
        raise ParameterError(f"{key}: the list is empty")
    return tuple(values)


def _xfer(value: object, key: str) -> str:
    try:
        size = parse_size(value)  # type: ignore[arg-type]
    except ValueError as error:
        raise ParameterError(f"{key}: {error}") from None
    if size % 512:
        raise ParameterError(f"{key}: vdbench needs a transfer size that is a multiple of 512 bytes, got {value!r}")
    return vdbench_size(size)


def _num(value: float) -> str:
    """A number as vdbench reads it: ``100`` for 100.0, ``0.1`` for 0.1."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)
