"""Each HammerDB output a run's folder holds, read into what it says (pure): :func:`read_source`
files it by name and content (:func:`classify`) and reads it into a :class:`Found`, each value with
the source that said it, for :mod:`.parse` to cross-check:

- a console or virtual-user log: its lines (:func:`.lines.read_lines`), and a console's counter samples;
- the time profile ``hdbxtprofile*.log``: its ``SUMMARY OF N ACTIVE VIRTUAL USERS`` block;
- the counter log ``hdbtcount*.log``: its ``<N> <db> tpm [@ <time>]`` samples;
- the job store's JSON answers (``<jobid>_result.json``, ``_timing.json``, ``_tcount.json``,
  ``_status.json``, ``<jobid>.json``, the job's output) and ``jobs_result.json``.

A source that cannot be read whole is left out with a :class:`~flashpoc.core.damage.Loss` naming it
(``Found.problems``); a line is read only when complete.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from flashpoc.core.damage import Loss
from flashpoc.core.errors import ParseError
from flashpoc.engines.hammerdb.lines import NUMBER, Snapshot, number, read_lines
from flashpoc.engines.hammerdb.window import parse_time

TCOUNT_LINE = re.compile(rf"^({NUMBER}) (\S+) tpm(?: @ (.+?))?\s*$")
XT_SUMMARY = re.compile(r"^>>>>> SUMMARY OF (\d+) ACTIVE VIRTUAL USERS : MEDIAN ELAPSED TIME : (" + NUMBER + r")ms\s*$")
XT_PROC = re.compile(r"^>>>>> PROC: (\w+)\s*$")
XT_CALLS = re.compile(rf"^CALLS: (\d+)\tMIN: ({NUMBER})ms\tAVG: ({NUMBER})ms\tMAX: ({NUMBER})ms\tTOTAL: ({NUMBER})ms\s*$")
XT_PCTL = re.compile(rf"^P99: ({NUMBER})ms\tP95: ({NUMBER})ms\tP75: ({NUMBER})ms\tP50: ({NUMBER})ms\tP25: ({NUMBER})ms"
                     rf"\tSD: ({NUMBER})ms\tRATIO: ({NUMBER})%\s*$")
TRANSACTIONS = ("NEWORD", "PAYMENT", "DELIVERY", "SLEV", "OSTAT")
#: the response-time fields, in HammerDB's JSON names (milliseconds, but ``ratio_pct``)
TIME_FIELDS = ("min_ms", "avg_ms", "max_ms", "total_ms", "p99_ms", "p95_ms", "p75_ms", "p50_ms", "p25_ms", "sd_ms",
               "ratio_pct")


@dataclass(frozen=True)
class Transaction:
    """One transaction's calls and response times (milliseconds; ``ratio_pct`` in percent), over
    every active virtual user (the time profile's summary)."""

    name: str
    calls: int
    min_ms: float
    avg_ms: float
    max_ms: float
    total_ms: float
    p99_ms: float
    p95_ms: float
    p75_ms: float
    p50_ms: float
    p25_ms: float
    sd_ms: float
    ratio_pct: float


@dataclass
class Found:
    """What the sources said, each value with the source that said it."""

    results: list[tuple[str, tuple[int | float, int | float, str]]] = field(default_factory=list)
    users: list[tuple[str, int]] = field(default_factory=list)
    jobids: list[tuple[str, str]] = field(default_factory=list)
    finished: dict[int, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    script_errors: list[str] = field(default_factory=list)
    timings: list[tuple[str, dict[str, Transaction]]] = field(default_factory=list)
    tcounts: list[tuple[str, str, list[tuple[str, int | float]]]] = field(default_factory=list)
    snapshots: list[tuple[str, Snapshot]] = field(default_factory=list)
    error_counts: list[tuple[str, tuple[tuple[str, int], ...]]] = field(default_factory=list)
    vusers: set[int] = field(default_factory=set)
    complete: bool = False
    problems: list[Loss] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


def read_source_lines(found: Found, name: str, lines: list[str], *, counts_errors: bool = True,
                vusers: list[int | None] | None = None) -> None:
    """Result, users, job id, statuses, errors and snapshots of console or log lines (:func:`.lines.read_lines`);
    with ``counts_errors`` the source's error lines per transaction are one count to cross-check (a
    console, a virtual-user log and the job's output each hold every line a virtual user printed)."""
    read = read_lines(lines, vusers)
    if len(read.results) > 1:
        raise ParseError(f"{name} holds {len(read.results)} TEST RESULT lines (several runs in one file): give the "
                         "files of one run")
    found.results += [(name, r) for r in read.results]
    found.users += [(name, u) for u in read.users]
    found.jobids += [(name, j) for j in read.jobids]
    found.snapshots += [(name, s) for s in read.snapshots]
    found.finished.update(read.finished)
    found.errors += read.errors
    found.script_errors += read.script_errors
    found.vusers |= read.vusers
    found.complete = found.complete or read.complete
    if counts_errors:
        found.error_counts.append((name, tuple(sorted(read.error_counts.items()))))
    if read.counter:  # a console shows the counter's samples too, without their times
        found.tcounts.append((name, read.counter[0][0], [("", v) for _, v in read.counter]))


def read_xtprof(found: Found, name: str, text: str) -> None:
    """The summary block of an xtprof time profile."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if XT_SUMMARY.match(line)]
    if not starts:
        found.problems.append(Loss(name, "no SUMMARY block (cut short?)"))
        return
    summary = XT_SUMMARY.match(lines[starts[-1]])
    found.users.append((name, int(summary.group(1))))
    timings: dict[str, Transaction] = {}
    i = starts[-1] + 1
    while i < len(lines):
        proc = XT_PROC.match(lines[i])
        if not proc:
            break
        calls = XT_CALLS.match(lines[i + 1]) if i + 1 < len(lines) else None
        pctl = XT_PCTL.match(lines[i + 2]) if i + 2 < len(lines) else None
        if not (calls and pctl):
            found.problems.append(Loss(name, f"{proc.group(1)}'s lines are incomplete (left out)"))
            break
        min_ms, avg_ms, max_ms, total_ms = (float(calls.group(k)) for k in range(2, 6))
        p99, p95, p75, p50, p25, sd, ratio = (float(pctl.group(k)) for k in range(1, 8))
        timings[proc.group(1)] = Transaction(proc.group(1), int(calls.group(1)), min_ms, avg_ms, max_ms, total_ms,
                                             p99, p95, p75, p50, p25, sd, ratio)
        i += 3
    found.timings.append((name, timings))


def counter_time(text: str) -> str | None:
    """A counter sample's time as the job store prints it (``2026-11-23 20:05:48``), from either
    form HammerDB prints (the log's ``Mon Nov 23 20:05:48 UTC 2026``); "" for none; None when unreadable."""
    if not text:
        return ""
    when = parse_time(text)
    return when.strftime("%Y-%m-%d %H:%M:%S") if when else None


def read_tcount_log(found: Found, name: str, text: str) -> None:
    """The counter log's samples (``<N> <db> tpm [@ <time>]``, after its two header lines); a line
    that is none (but the last, cut while written) leaves the log out, named."""
    samples, metric = [], None
    lines = text.split("\n")
    lines.pop()  # after the last newline: nothing, or a line cut while written
    header = ("Hammerdb Transaction Counter Log @ ", "+-+-")
    if len(lines) < 2 or not all(line.startswith(h) for line, h in zip(lines, header)):
        found.problems.append(Loss(name, "no header lines (emptied or cut?); left out"))
        return
    for number_, line in enumerate(lines[2:], 3):
        match = TCOUNT_LINE.match(line)
        when = counter_time(match.group(3) or "") if match else None
        if when is None:
            found.problems.append(Loss(name, f"line {number_} is not a counter sample; left out"))
            return
        if when and samples and samples[-1][0] and when <= samples[-1][0]:
            found.problems.append(Loss(name, f"line {number_} is not later than the sample before it; left out"))
            return
        metric = f"{match.group(2)} tpm"
        samples.append((when, number(match.group(1))))
    found.tcounts.append((name, metric or "", samples))


def _load_json(found: Found, name: str, text: str):
    try:
        return json.loads(text)
    except ValueError:
        found.problems.append(Loss(name, "not valid JSON (cut short?); left out"))
        return None


def _no_data(value) -> bool:
    """HammerDB's "no data" answers: ``{"<id>": {"Jobid": "has", "no": ...}}`` or a message."""
    if isinstance(value, dict) and len(value) == 1:
        inner = next(iter(value.values()))
        return isinstance(inner, str) or (isinstance(inner, dict) and inner.get("Jobid") == "has")
    return isinstance(value, dict) and "message" in value


def read_job_answer(found: Found, name: str, what: str, jobid: str, text: str) -> None:
    """One ``jobs <jobid> <what>`` answer (JSON)."""
    value = _load_json(found, name, text)
    if value is None or _no_data(value):
        return
    if what == "result" and isinstance(value, list) and len(value) == 4:
        read_source_lines(found, name, [str(value[2]), str(value[3])], counts_errors=False)
        found.jobids.append((name, str(value[0])))
    elif what == "timing" and isinstance(value, dict):
        timings = {}
        for proc, fields in value.items():
            try:
                values = {k: float(fields[k if k != "sd_ms" else "sd"]) for k in TIME_FIELDS}
                timings[proc] = Transaction(proc, int(fields["calls"]), **values)
            except (KeyError, TypeError, ValueError):
                found.problems.append(Loss(name, f"{proc}'s times are incomplete (left out)"))
        found.timings.append((name, timings))
    elif what == "tcount" and isinstance(value, dict) and len(value) == 1:
        metric, samples = next(iter(value.items()))
        series = [(counter_time(t), number(str(v))) for t, v in samples.items()] if isinstance(samples, dict) and all(
            re.fullmatch(NUMBER, str(v)) for v in samples.values()) else None
        if series is None or any(t is None for t, _ in series) or not re.fullmatch(r"\S+ tpm", metric):
            found.problems.append(Loss(name, "the transaction counter's answer is not a whole series (left out)"))
        else:
            found.tcounts.append((name, metric, series))
    elif what in ("status", "output") and isinstance(value, list):
        vusers = [int(v) if str(v).isdigit() else None for v in value[0::2]]
        read_source_lines(found, name, [str(v) for v in value[1::2]], counts_errors=what == "output", vusers=vusers)


def read_jobs_result(found: Found, name: str, text: str, jobid: str | None) -> None:
    """``jobs result``: every job's NOPM/TPM/users, keyed by job id (only ``jobid``'s is read)."""
    value = _load_json(found, name, text)
    if not isinstance(value, dict):
        return
    with_results = {k: v for k, v in value.items() if isinstance(v, dict)}
    if jobid is None and len(with_results) == 1:
        jobid = next(iter(with_results))
    entry = with_results.get(jobid) if jobid else None
    if entry is None:
        return
    try:
        found.results.append((name, (number(entry["nopm"]), number(entry["tpm"]), entry["db"])))
        found.users.append((name, int(entry["activevu"])))
    except (KeyError, TypeError, ValueError):
        found.problems.append(Loss(name, f"{jobid}'s entry is incomplete (left out)"))


JOB_FILE = re.compile(r"^([0-9A-F]{16,64})(?:_(result|timing|tcount|status|vu1))?\.json$")


def classify(name: str, text: str) -> str:
    """What a file is, by its name and (for a console) its first line."""
    if name == "jobs_result.json":
        return "jobs_result"
    if JOB_FILE.match(name):
        return "job"
    if name.startswith("hdbxtprofile") or name.startswith("hdbetprofile"):
        return "xtprof"
    if name.startswith("hdbtcount"):
        return "tcount"
    if name.startswith("hammerdb") and name.endswith(".log"):
        return "log"
    if text.lstrip().startswith("HammerDB CLI") or "@@flashpoc jobid" in text or "TEST RESULT" in text:
        return "console"
    return "other"
