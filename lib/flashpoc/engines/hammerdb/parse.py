"""Parse HammerDB TPROC-C outputs (pure): one timed run's console, logs and job-store answers.

A run's numbers come from several places, and each one read is cross-checked against the others:

- the console (``hammerdbcli`` standard output) and the virtual-user log ``hammerdb*.log``: the
  ``TEST RESULT`` line in either order HammerDB has printed (``N NOPM from M <db> TPM`` and the
  older ``M <db> TPM at N NOPM``), ``N Active Virtual Users configured``, the ``FINISHED`` status
  of each virtual user, the job id (``jobid=...``) and, on Oracle, the AWR snapshot lines;
- the time profile ``hdbxtprofile*.log``: the ``SUMMARY OF N ACTIVE VIRTUAL USERS`` block, each
  transaction's calls and response times in milliseconds as HammerDB prints them;
- the transaction-counter log ``hdbtcount*.log``: the ``<N> <db> tpm [@ <time>]`` series;
- the job store's JSON answers (``<jobid>_result.json``, ``_timing.json``, ``_tcount.json``,
  ``_status.json``, ``<jobid>.json`` and ``jobs_result.json``), as the planner's script writes them.

A number two sources disagree on is refused (:class:`~flashpoc.errors.ParseError` naming both); a
truncated or corrupt source loses what it cannot give whole (a line is read only when complete)
and never changes a number. A failed run (a virtual user ``FINISHED FAILED``, or no ``TEST RESULT``
line) raises, naming what failed; so does a script that stopped itself (an ``@@flashpoc error``
line of :mod:`.plan`'s scripts, e.g. a password variable not set on the load host).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ...errors import ParseError

NUMBER = r"\d+(?:\.\d+)?"
RESULT_NOPM_FIRST = re.compile(rf"TEST RESULT : System achieved ({NUMBER}) NOPM from ({NUMBER}) (\S+) TPM\s*$")
RESULT_TPM_FIRST = re.compile(rf"TEST RESULT : System achieved ({NUMBER}) (\S+) TPM at ({NUMBER}) NOPM\s*$")
ACTIVE_USERS = re.compile(r"^(\d+) Active Virtual Users configured\s*$")
ACTIVE_SESSIONS = re.compile(r"^(\d+) VU \\?\* (\d+) AC \\?= (\d+) Active Sessions configured\s*$")
VUSER_LINE = re.compile(r"^Vuser (\d+):(.*)$")
TIMESTAMP_LINE = re.compile(r"^Timestamp \d+ @ ")
FINISHED = re.compile(r"^Vuser (\d+):FINISHED (SUCCESS|FAILED)\s*$")
JOBID = re.compile(r"(?:jobid=|^@@flashpoc jobid )([0-9A-F]{16,64})\s*$")
ERROR_LINE = re.compile(r"(?i)\berror\b")
MARK_JOBID = "@@flashpoc jobid"
MARK_ERROR = re.compile(r"^@@flashpoc error (.+?)\s*$")
SNAPSHOT = re.compile(r"^(Start|End) Snapshot (\d+) taken at (.+) of instance (\S+) \((\d+)\) of database (\S+) "
                      r"\((\d+)\)\s*$")
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


def number(text: str) -> int | float:
    """A number as HammerDB printed it: an int when it has no decimal point, else a float."""
    return float(text) if "." in text else int(text)


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


@dataclass(frozen=True)
class Snapshot:
    """An AWR snapshot line of the Oracle timed driver (``Start``/``End Snapshot ... taken at ...``)."""

    which: str
    snap_id: int
    taken_at: str
    instance: str
    instance_number: int
    database: str
    dbid: int


@dataclass(frozen=True)
class HammerdbResult:
    """One timed run: HammerDB's own numbers.

    Attributes:
        database: the database as the result line names it (``PostgreSQL``, ``Oracle``).
        nopm: new orders per minute.
        tpm: the database's transactions per minute (``<db> TPM``; on Oracle from AWR).
        virtual_users: active virtual users (the monitor not counted).
        jobid: HammerDB's job id, when a source gave it.
        transactions: per-transaction response times (empty without a time profile).
        tcount: the transaction counter's samples, ``(time as printed, tpm)``.
        tcount_metric: the counter's metric as printed (``PostgreSQL tpm``).
        snapshots: the AWR snapshot lines (Oracle).
        sources: the files each number came from.
        problems: sources that could not be read whole (their numbers were left out).
    """

    database: str
    nopm: int | float
    tpm: int | float
    virtual_users: int
    jobid: str | None = None
    transactions: tuple[Transaction, ...] = ()
    tcount: tuple[tuple[str, int | float], ...] = ()
    tcount_metric: str | None = None
    snapshots: tuple[Snapshot, ...] = ()
    sources: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """The result as plain JSON-ready values."""
        values = asdict(self)
        values["tcount"] = [{"time": t, "tpm": v} for t, v in self.tcount]
        return values

    def rows(self) -> list[dict]:
        """One row per transaction (with the run's NOPM, TPM and users), or one row without
        transaction times when the run had no time profile."""
        base = {"jobid": self.jobid, "database": self.database, "virtual_users": self.virtual_users,
                "nopm": self.nopm, "tpm": self.tpm}
        if not self.transactions:
            return [base]
        return [base | asdict(t) for t in self.transactions]


@dataclass
class _Found:
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
    problems: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


def parse_result_line(line: str) -> tuple[int | float, int | float, str] | None:
    """``(nopm, tpm, database)`` of a ``TEST RESULT`` line in either order, or None."""
    match = RESULT_NOPM_FIRST.search(line)
    if match:
        return number(match.group(1)), number(match.group(2)), match.group(3)
    match = RESULT_TPM_FIRST.search(line)
    if match:
        return number(match.group(3)), number(match.group(1)), match.group(2)
    return None


def _message(line: str) -> str:
    """A console or log line without HammerDB's ``Vuser N:`` prefix."""
    match = VUSER_LINE.match(line)
    return match.group(2) if match else line


def _read_lines(found: _Found, name: str, lines: list[str]) -> None:
    """Result, users, job id, statuses, errors and snapshots of console or log lines."""
    results, errors_open = [], False
    for line in lines:
        if TIMESTAMP_LINE.match(line):
            continue
        finished = FINISHED.match(line.strip())
        if finished:
            found.finished[int(finished.group(1))] = finished.group(2)
        text = _message(line.rstrip())
        result = parse_result_line(text)
        if result:
            results.append(result)
        users = ACTIVE_USERS.match(text) or ACTIVE_SESSIONS.match(text)
        if users:
            found.users.append((name, int(users.group(1))))
        jobid = JOBID.search(text)
        if jobid:
            found.jobids.append((name, jobid.group(1)))
        snap = SNAPSHOT.match(text)
        if snap:
            found.snapshots.append((name, Snapshot(snap.group(1), int(snap.group(2)), snap.group(3), snap.group(4),
                                            int(snap.group(5)), snap.group(6), int(snap.group(7)))))
        refused = MARK_ERROR.match(text)
        if refused:
            found.script_errors.append(refused.group(1))
        if ERROR_LINE.search(text) and not text.startswith(MARK_JOBID):
            found.errors.append(text.strip())
        elif found.errors and errors_open and text.strip() and not VUSER_LINE.match(line):
            found.errors[-1] += f" ({text.strip()})"  # the reason, on the line after "Error in Virtual User N"
        errors_open = bool(ERROR_LINE.search(text))
    if len(results) > 1:
        raise ParseError(f"{name} holds {len(results)} TEST RESULT lines (several runs in one file): give the "
                         "files of one run")
    found.results += [(name, r) for r in results]


def _read_xtprof(found: _Found, name: str, text: str) -> None:
    """The summary block of an xtprof time profile."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if XT_SUMMARY.match(line)]
    if not starts:
        found.problems.append(f"{name}: no SUMMARY block (cut short?)")
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
            found.problems.append(f"{name}: {proc.group(1)}'s lines are incomplete (left out)")
            break
        min_ms, avg_ms, max_ms, total_ms = (float(calls.group(k)) for k in range(2, 6))
        p99, p95, p75, p50, p25, sd, ratio = (float(pctl.group(k)) for k in range(1, 8))
        timings[proc.group(1)] = Transaction(proc.group(1), int(calls.group(1)), min_ms, avg_ms, max_ms, total_ms,
                                             p99, p95, p75, p50, p25, sd, ratio)
        i += 3
    found.timings.append((name, timings))


def _read_tcount_log(found: _Found, name: str, text: str) -> None:
    samples, metric = [], None
    for line in text.splitlines():
        match = TCOUNT_LINE.match(line)
        if match:
            metric = f"{match.group(2)} tpm"
            samples.append((match.group(3) or "", number(match.group(1))))
    found.tcounts.append((name, metric or "", samples))


def _load_json(found: _Found, name: str, text: str):
    try:
        return json.loads(text)
    except ValueError:
        found.problems.append(f"{name}: not valid JSON (cut short?); left out")
        return None


def _no_data(value) -> bool:
    """HammerDB's "no data" answers: ``{"<id>": {"Jobid": "has", "no": ...}}`` or a message."""
    if isinstance(value, dict) and len(value) == 1:
        inner = next(iter(value.values()))
        return isinstance(inner, str) or (isinstance(inner, dict) and inner.get("Jobid") == "has")
    return isinstance(value, dict) and "message" in value


def _read_job_answer(found: _Found, name: str, what: str, jobid: str, text: str) -> None:
    """One ``jobs <jobid> <what>`` answer (JSON)."""
    value = _load_json(found, name, text)
    if value is None or _no_data(value):
        return
    if what == "result" and isinstance(value, list) and len(value) == 4:
        _read_lines(found, name, [str(value[2]), str(value[3])])
        found.jobids.append((name, str(value[0])))
    elif what == "timing" and isinstance(value, dict):
        timings = {}
        for proc, fields in value.items():
            try:
                values = {k: float(fields[k if k != "sd_ms" else "sd"]) for k in TIME_FIELDS}
                timings[proc] = Transaction(proc, int(fields["calls"]), **values)
            except (KeyError, TypeError, ValueError):
                found.problems.append(f"{name}: {proc}'s times are incomplete (left out)")
        found.timings.append((name, timings))
    elif what == "tcount" and isinstance(value, dict) and len(value) == 1:
        metric, samples = next(iter(value.items()))
        if isinstance(samples, dict) and all(re.fullmatch(NUMBER, str(v)) for v in samples.values()):
            found.tcounts.append((name, metric, [(t, number(str(v))) for t, v in samples.items()]))
        else:
            found.problems.append(f"{name}: the transaction counter's answer is not a series: {metric[:120]}")
    elif what in ("status", "output") and isinstance(value, list):
        _read_lines(found, name, [str(v) for v in value[1::2]])


def _read_jobs_result(found: _Found, name: str, text: str, jobid: str | None) -> None:
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
        found.problems.append(f"{name}: {jobid}'s entry is incomplete (left out)")


JOB_FILE = re.compile(r"^([0-9A-F]{16,64})(?:_(result|timing|tcount|status|vu1))?\.json$")


def _classify(name: str, text: str) -> str:
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


def parse_files(files: dict[str, str], jobid: str | None = None) -> HammerdbResult:
    """Parse one run's files (name -> text) into its result, cross-checked.

    Args:
        files: what the run wrote (console, logs, the job store's JSON answers). The answers of
            other jobs are ignored once the run's job id is known (from the console, or ``jobid``).
        jobid: the run's job id, when the files hold several jobs' answers.

    Raises:
        ParseError: the run failed (naming the virtual users and their errors), no source gives
            a result, or two sources disagree on a number.
    """
    found = _Found()
    kinds = {name: _classify(name, text) for name, text in files.items()}
    for name, text in sorted(files.items()):
        kind = kinds[name]
        if kind in ("console", "log"):
            _read_lines(found, name, text.splitlines())
        elif kind == "xtprof":
            _read_xtprof(found, name, text)
        elif kind == "tcount":
            _read_tcount_log(found, name, text)
        if kind != "other":
            found.sources.append(name)
    jobid = jobid or _one(found.jobids, "job id")
    answered = {JOB_FILE.match(n).group(1) for n, k in kinds.items() if k == "job"}
    if jobid is None and len(answered) > 1:
        raise ParseError(f"the files hold the answers of {len(answered)} jobs and nothing says which run is this "
                         "one: give the job id")
    jobid = jobid or (answered.pop() if answered else None)
    for name, text in sorted(files.items()):
        match = JOB_FILE.match(name) if kinds[name] == "job" else None
        if match and match.group(1) == jobid:
            _read_job_answer(found, name, match.group(2) or "output", jobid, text)
        elif kinds[name] == "jobs_result":
            _read_jobs_result(found, name, text, jobid)
    return _result(found, jobid)


def _one(values: list[tuple[str, object]], what: str):
    """The one value every source gave, or None; refuses a disagreement."""
    distinct = {}
    for source, value in values:
        distinct.setdefault(value, source)
    if len(distinct) > 1:
        shown = "; ".join(f"{source}: {value}" for value, source in distinct.items())
        raise ParseError(f"the sources disagree on the {what} ({shown}): refusing to choose")
    return next(iter(distinct), None)


def _failure(found: _Found) -> str | None:
    failed = sorted(vu for vu, status in found.finished.items() if status == "FAILED")
    if not failed:
        return None
    errors = list(dict.fromkeys(found.errors))[:3]
    detail = f": {' | '.join(errors)}" if errors else ""
    return f"HammerDB virtual user{'s' if len(failed) > 1 else ''} {', '.join(map(str, failed))} FINISHED FAILED{detail}"


def _result(found: _Found, jobid: str | None) -> HammerdbResult:
    if found.script_errors:
        raise ParseError(f"the HammerDB script stopped: {'; '.join(dict.fromkeys(found.script_errors))}")
    failure = _failure(found)
    if failure:
        raise ParseError(f"the run failed: {failure}")
    if not found.results:
        why = f" ({'; '.join(found.problems)})" if found.problems else ""
        raise ParseError("no TEST RESULT line in the run's files: the run was cut short, is not a timed run, or "
                         f"these are not HammerDB's outputs{why}")
    nopm = _one([(s, r[0]) for s, r in found.results], "NOPM")
    tpm = _one([(s, r[1]) for s, r in found.results], "TPM")
    database = _one([(s, r[2]) for s, r in found.results], "database")
    users = _one(found.users, "active virtual users")
    if users is None:
        raise ParseError("no source gives the number of active virtual users")
    transactions = _one_timing(found.timings)
    metric, series = _one_tcount(found.tcounts)
    by_source: dict[str, tuple[Snapshot, ...]] = {}
    for source, snapshot in found.snapshots:
        by_source[source] = by_source.get(source, ()) + (snapshot,)
    snapshots = _one(list(by_source.items()), "AWR snapshots") or ()
    return HammerdbResult(database, nopm, tpm, users, jobid, transactions, series, metric,
                          snapshots, tuple(found.sources), tuple(found.problems))


def _one_timing(timings: list[tuple[str, dict[str, Transaction]]]) -> tuple[Transaction, ...]:
    """The transactions, each one's numbers agreed by every source that has it."""
    merged: dict[str, Transaction] = {}
    for name in dict.fromkeys(n for _, t in timings for n in t):
        merged[name] = _one([(source, t[name]) for source, t in timings if name in t], f"{name} response times")
    order = {n: i for i, n in enumerate(TRANSACTIONS)}
    return tuple(sorted(merged.values(), key=lambda t: order.get(t.name, len(order))))


def _one_tcount(tcounts: list[tuple[str, str, list]]) -> tuple[str | None, tuple]:
    """The counter's series: the longest (the job store's, with its times, among equals); every
    other source's values must be the same sequence or its beginning (a log cut short)."""
    with_samples = [(s, m, v) for s, m, v in tcounts if v]
    if not with_samples:
        return None, ()
    _one([(s, m) for s, m, _ in with_samples], "transaction counter metric")
    source, metric, samples = max(with_samples, key=lambda item: (len(item[2]), item[0].endswith(".json")))
    values = [x for _, x in samples]
    for other, _, other_samples in with_samples:
        mine = [x for _, x in other_samples]
        if mine != values[: len(mine)]:
            raise ParseError(f"the sources disagree on the transaction counter series ({other}: {mine}; "
                             f"{source}: {values}): refusing to choose")
    return metric, tuple(samples)


def parse_path(path: str | Path, jobid: str | None = None) -> HammerdbResult:
    """Parse a run's file, or every file of a run's directory (its subfolders too).

    Raises:
        ParseError: as :func:`parse_files`; also when the path holds no file.
    """
    return parse_files(read_files(path), jobid)


def read_files(path: str | Path) -> dict[str, str]:
    """The text of a run's file, or of every file of a run's directory (its subfolders too), by
    name; HammerDB's SQLite stores and the Tcl scripts left out.

    Raises:
        ParseError: the path holds no file.
    """
    path = Path(path)
    paths = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    if not paths:
        raise ParseError(f"{path}: no files to parse")
    files = {}
    for p in paths:
        if p.suffix.lower() in (".db", ".tcl"):
            continue
        files[p.name] = p.read_text(encoding="utf-8", errors="replace")
    return files


CHECK_FACT = re.compile(r"^@@flashpoc check (\w+) ?(.*?)\s*$")
HAMMERDB_BANNER = re.compile(r"^HammerDB CLI (v\S+)\s*$")


def parse_check(console: str) -> dict[str, str]:
    """The facts a check script printed (``@@flashpoc check KEY VALUE``), with ``hammerdb`` (the
    version of the ``HammerDB CLI vX`` banner) and ``error`` (a script that stopped itself)."""
    facts: dict[str, str] = {}
    for line in console.splitlines():
        fact = CHECK_FACT.match(line)
        banner = HAMMERDB_BANNER.match(line)
        refused = MARK_ERROR.match(line)
        if fact:
            facts[fact.group(1)] = fact.group(2)
        elif banner:
            facts["hammerdb"] = banner.group(1)
        elif refused:
            facts["error"] = refused.group(1)
    return facts
