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

Each source is read by :mod:`.sources`. A number two sources disagree on is refused
(:class:`~flashpoc.core.errors.ParseError` naming both); a truncated or corrupt source loses what it
cannot give whole (a line is read only when complete) and never changes a number: the result's
``damaged`` names it (:class:`~flashpoc.core.damage.Loss`), and so does a file the run wrote (named by the
console or the job store) that is missing. The console, the virtual-user log and the job's output
each hold every line the virtual users printed, so the error lines per transaction
(:mod:`.lines`) are one count the console and the job's output must agree on, and the log may
hold fewer of, never more (:func:`error_counts`); so are the active virtual users and the
users that printed lines and finished. A failed run (a virtual user ``FINISHED FAILED``, or no ``TEST RESULT``
line) raises, naming what failed; so does a script that stopped itself (an ``@@flashpoc error``
line of :mod:`.plan`'s scripts, e.g. a password variable not set on the load host).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

from flashpoc.core.damage import Loss
from flashpoc.core.errors import ParseError
from flashpoc.engines.hammerdb.plan import JOB_ANSWERS
from flashpoc.engines.hammerdb.lines import (ERROR_LINE, JOBID, MARK_ERROR, TIMESTAMP_LINE, VUSER_LINE, Snapshot, line_text, number,
                    parse_result_line)
from flashpoc.engines.hammerdb.sources import (JOB_FILE, TRANSACTIONS, Found, Transaction, classify, read_job_answer, read_jobs_result,
                      read_source_lines, read_tcount_log, read_xtprof)
from flashpoc.engines.hammerdb.window import is_vuser_log

__all__ = ["ERROR_LINE", "JOBID", "TIMESTAMP_LINE", "VUSER_LINE", "HammerdbResult", "Snapshot", "Transaction",
           "TimeProfileBug", "line_text", "number", "parse_check", "parse_files", "parse_path", "parse_result_line",
           "read_files"]


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
        errors: each transaction's error lines (:mod:`.lines`: ``(("NEWORD", 3), ...)``, every
            transaction, 0 included), as every source that prints them agrees; None when none did.
        sources: the files each number came from.
        damaged: the sources that could not be read whole (their numbers were left out), each
            with what its loss cost (``lost``: ``tcount``, ``transactions``) where no other
            source gave it.
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
    errors: tuple[tuple[str, int], ...] | None = None
    sources: tuple[str, ...] = ()
    damaged: tuple[Loss, ...] = ()

    @property
    def problems(self) -> tuple[str, ...]:
        """What was damaged, in words (``FILE: WHAT``)."""
        return tuple(loss.text() for loss in self.damaged)

    def to_dict(self) -> dict:
        """The result as plain JSON-ready values (``damaged`` as the row's column says it)."""
        values = asdict(self)
        values["tcount"] = [{"time": t, "tpm": v} for t, v in self.tcount]
        values["errors"] = None if self.errors is None else dict(self.errors)
        values["damaged"] = "; ".join(self.problems) or None
        return values

    def rows(self) -> list[dict]:
        """One row per transaction (with the run's NOPM, TPM and users), or one row without
        transaction times when the run had no time profile."""
        base = {"jobid": self.jobid, "database": self.database, "virtual_users": self.virtual_users,
                "nopm": self.nopm, "tpm": self.tpm}
        if not self.transactions:
            return [base]
        return [base | asdict(t) for t in self.transactions]


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
    found = Found()
    kinds = {name: classify(name, text) for name, text in files.items()}
    for name, text in sorted(files.items()):
        kind = kinds[name]
        if kind in ("console", "log"):
            read_source_lines(found, name, text.splitlines())
        elif kind == "xtprof":
            read_xtprof(found, name, text)
        elif kind == "tcount":
            read_tcount_log(found, name, text)
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
            read_job_answer(found, name, match.group(2) or "output", jobid, text)
        elif kinds[name] == "jobs_result":
            read_jobs_result(found, name, text, jobid)
    _missing_files(found, files, kinds, jobid)
    return _result(found, jobid)


_NAMED_FILE = re.compile(r"(?:Logging activated to|Writing timing data to) \S*?([^/\s]+\.log)\s*$", re.M)


def _missing_files(found: Found, files: dict[str, str], kinds: dict[str, str], jobid: str | None) -> None:
    """A loss for each file the run wrote that is not among ``files``: the logs the console and
    the virtual-user log name (``Logging activated to ...``, ``Writing timing data to ...``), and
    the job store's answers of a job with one of them present (:data:`.plan.JOB_ANSWERS`)."""
    named = {m.group(1) for name, text in files.items() if kinds[name] in ("console", "log")
             for m in _NAMED_FILE.finditer(text)}
    if jobid and any(JOB_FILE.match(n) and JOB_FILE.match(n).group(1) == jobid for n in files):
        named |= {f"{jobid}.json", *(f"{jobid}_{what}.json" for what in JOB_ANSWERS)}
    found.problems += [Loss(name, "missing") for name in sorted(named - set(files))]


def _one(values: list[tuple[str, object]], what: str):
    """The one value every source gave, or None; refuses a disagreement."""
    distinct = {}
    for source, value in values:
        distinct.setdefault(value, source)
    if len(distinct) > 1:
        shown = "; ".join(f"{source}: {value}" for value, source in distinct.items())
        raise ParseError(f"the sources disagree on the {what} ({shown}): refusing to choose")
    return next(iter(distinct), None)


class TimeProfileBug(ParseError):
    """The run's only failure is HammerDB 6.0's known time-profiler bug: its monitor read a virtual
    user's clock timings before the user stored them (``key "msperclick" not found``,
    TPC-Council/HammerDB issue 774); the run's TEST RESULT stands, its response times are lost."""


MSPERCLICK = 'key "msperclick" not found'
#: what Tcl prints when the failed user's thread is gone before a message to it arrives (seen beside the
#: time profiler's failure on a busy machine: a consequence of it, not an error of its own)
THREAD_GONE = re.compile(r'Error from thread \S+ \(thread "\S+" does not exist\)', re.ASCII)


def error_counts(found: Found) -> tuple[tuple[str, int], ...] | None:
    """Each transaction's error lines as every source that prints them agrees (0 included), or None.

    The console and the job's output get each line as a virtual user prints it; the virtual-user
    log gets it after, asynchronously (HammerDB's ``puts`` in ``src/generic/genvu.tcl`` sends
    ``logtofile`` with ``thread::send -async``), and a line a user prints after HammerDB closed the
    log (virtual users destroyed while still running, a failed run) is not in it: the log may count
    fewer error lines than they, never more."""
    whole = [(name, counts) for name, counts in found.error_counts if not is_vuser_log(name)]
    counts = _one(whole or found.error_counts, "error lines per transaction")
    if counts is None:
        return None
    for name, logged in found.error_counts if whole else ():
        if is_vuser_log(name) and any(n > dict(counts).get(t, 0) for t, n in logged):
            raise ParseError(f"the sources disagree on the error lines per transaction ({whole[0][0]}: {counts}; "
                             f"{name}: {logged}): refusing to choose")
    given = dict(counts)
    return tuple((name, given.get(name, 0)) for name in TRANSACTIONS) + tuple(
        (name, n) for name, n in counts if name not in TRANSACTIONS)


def errors_text(errors: tuple[tuple[str, int], ...] | None) -> str:
    """``1016 errors (NEWORD 501, PAYMENT 188, ...)``: the transactions with errors."""
    if not errors:
        return "no error lines"
    total = sum(n for _, n in errors)
    return f"{total} error{'s' if total != 1 else ''} (" + ", ".join(f"{t} {n}" for t, n in errors if n) + ")"


def _failure(found: Found) -> ParseError | None:
    failed = sorted(vu for vu, status in found.finished.items() if status == "FAILED")
    if not failed:
        return None
    errors = list(dict.fromkeys(" ".join(e.split()) for e in found.errors))[:3]  # one line each
    detail = f": {' | '.join(errors)}" if errors else ""
    counts = error_counts(found)
    told = f"; {errors_text(counts)}" if counts and any(n for _, n in counts) else ""
    message = (f"the run failed: HammerDB virtual user{'s' if len(failed) > 1 else ''} {', '.join(map(str, failed))} "
               f"FINISHED FAILED{detail}{told}")
    if failed == [1] and found.results and any(MSPERCLICK in e for e in errors) and all(
            MSPERCLICK in e or THREAD_GONE.fullmatch(e) for e in errors):
        return TimeProfileBug(f"{message} (HammerDB's time profiler, TPC-Council/HammerDB issue 774)")
    return ParseError(message)


def _result(found: Found, jobid: str | None) -> HammerdbResult:
    if found.script_errors:
        raise ParseError(f"the HammerDB script stopped: {'; '.join(dict.fromkeys(found.script_errors))}")
    failure = _failure(found)
    if failure:
        raise failure
    if not found.results:
        why = f" ({'; '.join(p.text() for p in found.problems)})" if found.problems else ""
        raise ParseError("no TEST RESULT line in the run's files: the run was cut short, is not a timed run, or "
                         f"these are not HammerDB's outputs{why}")
    nopm = _one([(s, r[0]) for s, r in found.results], "NOPM")
    tpm = _one([(s, r[1]) for s, r in found.results], "TPM")
    database = _one([(s, r[2]) for s, r in found.results], "database")
    users = _one(found.users, "active virtual users")
    if users is None:
        raise ParseError("no source gives the number of active virtual users")
    _check_users(found, users)
    transactions = _one_timing(found.timings)
    if len(transactions) < len(TRANSACTIONS):
        _lose(found, [p for p in found.problems if p.file.startswith("hdbxtprofile") or p.file.endswith("_timing.json")],
              "transactions")
    metric, series = _one_tcount(found)
    by_source: dict[str, tuple[Snapshot, ...]] = {}
    for source, snapshot in found.snapshots:
        by_source[source] = by_source.get(source, ()) + (snapshot,)
    snapshots = _one(list(by_source.items()), "AWR snapshots") or ()
    return HammerdbResult(database, nopm, tpm, users, jobid, transactions, series, metric, snapshots,
                          error_counts(found), tuple(found.sources), tuple(found.problems))


def _check_users(found: Found, users: int) -> None:
    """The active virtual users against the users that printed lines and finished (the monitor is
    Vuser 1, the users 2..N+1): a figure the run's other lines contradict is refused."""
    beyond = sorted(vu for vu in found.vusers if vu > users + 1)
    if beyond:
        raise ParseError(f"HammerDB reports {users} active virtual users but virtual user {beyond[-1]} printed "
                         "lines (the monitor is Vuser 1): the sources do not make one run, refusing")
    finished = sorted(found.finished)
    if found.complete and finished and finished != list(range(1, users + 2)):
        raise ParseError(f"HammerDB reports {users} active virtual users but virtual users "
                         f"{', '.join(map(str, finished))} finished (the monitor is Vuser 1): refusing")


def _one_timing(timings: list[tuple[str, dict[str, Transaction]]]) -> tuple[Transaction, ...]:
    """The transactions, each one's numbers agreed by every source that has it."""
    merged: dict[str, Transaction] = {}
    for name in dict.fromkeys(n for _, t in timings for n in t):
        merged[name] = _one([(source, t[name]) for source, t in timings if name in t], f"{name} response times")
    order = {n: i for i, n in enumerate(TRANSACTIONS)}
    return tuple(sorted(merged.values(), key=lambda t: order.get(t.name, len(order))))


def _one_tcount(found: Found) -> tuple[str | None, tuple]:
    """The counter's series: every source's values must be the same sequence as the longest, or its
    beginning (a log cut short); the longest must be shown by two sources when a third is shorter
    (one source longer than all the others may hold a repeated line), and one of them must date
    its samples (the job store's is taken among equals). Else the series is lost (``tcount`` in the
    loss naming the sources): a shorter or longer one would count other samples."""
    with_samples = [(s, m, v) for s, m, v in found.tcounts if v]
    left_out = [p for p in found.problems if _is_counter(p.file)]
    if not with_samples:
        _lose(found, left_out, "tcount")
        return None, ()
    _one([(s, m) for s, m, _ in with_samples], "transaction counter metric")
    values = [x for _, x in max(with_samples, key=lambda item: len(item[2]))[2]]
    for other, _, other_samples in with_samples:
        mine = [x for _, x in other_samples]
        if mine != values[: len(mine)]:
            raise ParseError(f"the sources disagree on the transaction counter series ({other}: {mine}; "
                             f"{values}): refusing to choose")
    longest = [item for item in with_samples if len(item[2]) == len(values)]
    timed = [item for item in longest if all(t for t, _ in item[2])]
    if (len(longest) == 1 and len(with_samples) > 1) or (timed == [] and (left_out or len(longest) < len(with_samples))):
        counts = ", ".join(f"{s} {len(v)}" for s, _, v in with_samples)
        lost = [Loss(s, f"the counter's samples differ in number between its sources ({counts})")
                for s, _, _ in with_samples]
        found.problems += lost
        _lose(found, lost + left_out, "tcount")
        return None, ()
    if timed and _one([(s, tuple(t for t, _ in v)) for s, _, v in timed], "transaction counter's times"):
        _, metric, samples = max(timed, key=lambda item: item[0].endswith(".json"))
        return metric, tuple(samples)
    _, metric, samples = longest[0]
    return metric, tuple(samples)


def _is_counter(name: str) -> bool:
    return name.startswith("hdbtcount") or name.endswith("_tcount.json")


def _lose(found: Found, losses: list[Loss], what: str) -> None:
    """Mark ``losses`` (of ``found.problems``) as costing ``what`` (a result field)."""
    for loss in losses:
        if loss in found.problems:
            found.problems[found.problems.index(loss)] = Loss(loss.file, loss.what, (*loss.lost, what))


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
    for line in map(line_text, console.splitlines()):
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
