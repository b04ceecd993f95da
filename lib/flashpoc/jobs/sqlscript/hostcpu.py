"""The database host's CPU over a DBA's job: ``vmstat -t`` on the host while the sessions run.

AWR's Host CPU gives one %user and one %iowait for the whole snapshot interval; the seed showed
how they move during the job (the iowait of UNDO on disk). :class:`HostCpu` starts ``vmstat -t -n
<every>`` on the campaign's database host (its ``db_host``: the first host unless the engine's
settings name one) in the background before the sessions start, ends it after the last commit,
and keeps what vmstat printed (``vmstat.out``, stored with the run). :func:`cpu_series` reads it
(:func:`flashpoc.hosts.osstat.parse_vmstat`): one row per sample after the first (vmstat's first
line is the average since boot), its second into the job and us/sy/wa/id as vmstat printed them.

Nothing here stops the job: a host that cannot run vmstat leaves a note, and the run goes on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flashpoc.core.errors import FlashpocError, ParseError
from flashpoc.hosts.osstat import parse_vmstat
from flashpoc.hosts.host import connect, quote

VMSTAT = "vmstat"
"""The command run on the host (procps' vmstat: ``-t`` a timestamp per line, ``-n`` one header)."""
CPU_COLUMNS = {"us_pct": "%user", "sy_pct": "%sys", "wa_pct": "%iowait", "id_pct": "%idle"}
"""vmstat's CPU columns (:func:`~flashpoc.hosts.osstat.parse_vmstat` keys) and how the report names them."""
START_TIMEOUT_S = 60.0
"""Seconds starting or ending vmstat on the host may take."""


class HostCpu:
    """vmstat on ``host`` (:class:`~flashpoc.params.HostParams`) every ``every_s`` seconds while
    its ``with`` block runs (none when ``every_s`` is 0).

    Attributes:
        text: what vmstat printed (None when it did not run).
        note: why there is no series, or None.
    """

    def __init__(self, host, every_s: int):
        self.host, self.every_s = host, every_s
        self.text: str | None = None
        self.note: str | None = None if every_s else "sql_workload.cpu_every_s is 0: no vmstat during the job"
        self._started: tuple[str, str] | None = None

    def __enter__(self) -> HostCpu:
        if not self.every_s:
            return self
        command = (f'd=$(mktemp -d "${{TMPDIR:-/tmp}}/flashpoc-vmstat.XXXXXX") || exit 1; '
                   f'{VMSTAT} -t -n {int(self.every_s)} >"$d/vmstat.out" 2>&1 </dev/null & echo "$! $d"')
        try:
            with connect(self.host) as host:
                out = host.run(command, purpose="start vmstat for the DBA's job", timeout_s=START_TIMEOUT_S)
            pid, folder = out.stdout.split()
            self._started = (pid, folder)
        except (FlashpocError, ValueError) as error:
            self.note = f"vmstat could not be started on {self.host.name}: {error}"
        return self

    def __exit__(self, *exc) -> None:
        if self._started is None:
            return
        pid, folder = self._started
        out = f"{quote(folder)}/vmstat.out"
        try:
            with connect(self.host) as host:
                result = host.run(f"kill {quote(pid)} 2>/dev/null; sleep 0.2; cat {out}; rm -rf {quote(folder)}",
                                  purpose="end vmstat of the DBA's job", timeout_s=START_TIMEOUT_S)
            self.text = result.stdout
        except FlashpocError as error:
            self.note = f"vmstat's output could not be read from {self.host.name}: {error}"


def cpu_series(text: str) -> list[dict[str, Any]]:
    """The job's CPU samples of ``vmstat -t`` output: per line after the first (the average since
    boot), ``second`` (its timestamp's seconds after the first line's: the end of the interval it
    covers), ``clock`` (the time printed) and :data:`CPU_COLUMNS` as printed.

    Raises:
        ParseError: the text is not vmstat's, or a line has no timestamp.
    """
    rows = parse_vmstat(text)
    try:
        times = [datetime.strptime(r["timestamp"], "%Y-%m-%d %H:%M:%S") for r in rows]
    except (TypeError, ValueError):
        raise ParseError("vmstat: expected a timestamp on every line (vmstat -t)") from None
    return [{"second": (when - times[0]).total_seconds(), "clock": row["timestamp"][11:],
             **{key: row[key] for key in CPU_COLUMNS}} for row, when in zip(rows[1:], times[1:])]
