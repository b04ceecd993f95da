"""HammerDB's fixed-work driver (its ``test`` driver script) read into a point's row (pure).

Every virtual user (``Vuser 1`` to ``N``: the test driver has no monitor) runs ``iterations``
times ``total_iterations`` transactions, ``user_delay_ms`` after the user before it and
``repeat_delay_ms`` after each iteration (HammerDB's ``vuset iterations/delay/repeat``). What it
prints, the same lines on PostgreSQL and Oracle (``src/postgresql/pgoltp.tcl``, ``src/oracle/oraoltp.tcl``,
``loadpgtpcc``/``loadoratpcc``): per iteration ``Vuser N:RUNNING``, ``Processing T transactions
without output suppressed...`` and ``Vuser N:FINISHED SUCCESS`` (or ``FAILED``); before each
transaction its kind (``new order``, ``payment``, ``delivery``, ``stock level``, ``order status``),
then its result or an error line (:mod:`.lines`). The test driver keeps no job store (HammerDB
disables it: ``Benchmark Run (No jobid)``) and no time profile.

The point's headline is the **test completion time** (``completion_s``): how long HammerDB's
``vurun`` took, every user's every iteration done, as flashpoc's script times it around the call
(``@@flashpoc elapsed_ms N``). The virtual-user log's timestamps date the same work from its
first line to its last, to the second: the log cannot span more than the completion time (1 s
allowed for the resolution), else the figure is refused. The work done is counted from the kind
lines (``neword_calls``...), per virtual user from the console and the log alike (they must
agree), and must be the work asked (every user ``iterations`` x ``total_iterations``): a run that
did other work, or whose users failed, is refused. ``nopm`` and ``tpm`` are the new orders and the
transactions done without error per minute of the completion time: the virtual users' side, not
the database's count of the timed driver's TEST RESULT.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flashpoc.core.damage import Loss, note_losses
from flashpoc.core.errors import ParseError, RemoteError
from flashpoc.engines.hammerdb.lines import MARK_ERROR, TIMESTAMP_LINE, line_text, transaction_error, vuser_message
from flashpoc.engines.hammerdb.parse import TRANSACTIONS, errors_text
from flashpoc.engines.hammerdb.window import CPU_COLUMNS, LOG_NAMED, Window, is_vuser_log, parse_time, read_host_cpu

KINDS = {"new order": "NEWORD", "payment": "PAYMENT", "delivery": "DELIVERY", "stock level": "SLEV",
         "order status": "OSTAT"}
PROCESSING = re.compile(r"^Processing (\d+) transactions without output suppressed\.\.\.\s*$")
FINISHED = re.compile(r"^FINISHED (SUCCESS|FAILED)\s*$")
ELAPSED = re.compile(r"^@@flashpoc elapsed_ms (\d+)\s*$")
_STAMP = re.compile(r"^Timestamp (\d+) @ (.+?)\s*$")
#: the row's columns of a fixed-work point (with the error columns and the CPU's)
FIXED_WORK_COLUMNS = ("completion_s", "iterations", "transactions_per_iteration", "transactions", "nopm", "tpm")


@dataclass(frozen=True)
class Work:
    """What one text says each virtual user did: iterations begun (with their transactions),
    transactions of each kind, error lines per transaction, iterations finished (and failed)."""

    processing: dict[int, list[int]]
    kinds: dict[int, dict[str, int]]
    errors: dict[str, int]
    finished: dict[int, list[str]]
    failures: list[str]
    elapsed_ms: int | None
    script_errors: list[str]
    lines: int = 0


def whole_lines(text: str) -> list[str]:
    """``text``'s lines but a last one without its newline (cut while written: left out)."""
    lines = text.split("\n")
    lines.pop()
    return lines


def read_work(text: str) -> Work:
    """The work one console or virtual-user log says was done (``lines``: the virtual users' own
    lines, which the console and the log both hold: not RUNNING and FINISHED, the CLI's)."""
    work = Work({}, {}, {}, {}, [], None, [])
    elapsed, lines = None, 0
    for raw in whole_lines(text):
        line = line_text(raw).strip()
        vu, message = vuser_message(line)
        if vu is not None:
            processing, finished = PROCESSING.match(message), FINISHED.match(message)
            lines += not (finished or message == "RUNNING")
            if processing:
                work.processing.setdefault(vu, []).append(int(processing.group(1)))
            elif finished:
                work.finished.setdefault(vu, []).append(finished.group(1))
            elif message in KINDS:
                kinds = work.kinds.setdefault(vu, {})
                kinds[KINDS[message]] = kinds.get(KINDS[message], 0) + 1
        failed = transaction_error(message)
        if failed:
            work.errors[failed] = work.errors.get(failed, 0) + 1
        if message.startswith("Error in Virtual User"):
            work.failures.append(message)
        mark, refused = ELAPSED.match(line), MARK_ERROR.match(line)
        elapsed = int(mark.group(1)) if mark else elapsed
        if refused:
            work.script_errors.append(refused.group(1))
    return Work(work.processing, work.kinds, work.errors, work.finished, work.failures, elapsed, work.script_errors,
                lines)


def log_span(text: str) -> tuple[Window | None, str | None]:
    """The first and last time the virtual-user log stamps a user's line, and what is damaged in it
    (a ``Vuser N:`` line without its own ``Timestamp N`` line right before it, a time that does
    not read): then no span."""
    first = last = None
    stamp: tuple[int, datetime | None] | None = None
    for number, raw in enumerate(whole_lines(text), 1):
        line = line_text(raw).rstrip()
        if TIMESTAMP_LINE.match(line):
            match = _STAMP.match(line)
            stamp = (int(match.group(1)), parse_time(match.group(2))) if match else (0, None)
            continue
        vu, _ = vuser_message(line)
        if vu is not None:
            if stamp is None or stamp[0] != vu or stamp[1] is None:
                return None, f"line {number} (Vuser {vu}) has no readable timestamp of its own"
            first, last = first or stamp[1], stamp[1]
            if last < first:
                return None, f"line {number} is dated before the log's first line"
        stamp = None
    return ((first, last) if first else None), None


def _agreed(works: dict[str, Work], what: str, value, *, empty_says: bool = False) -> Any:
    """The one value of ``value(work)`` the texts give (an empty one gives nothing, unless
    ``empty_says``: no error line is an answer)."""
    given = {name: value(w) for name, w in works.items() if value(w) or empty_says}
    if len({repr(v) for v in given.values()}) > 1:
        shown = "; ".join(f"{name}: {v}" for name, v in given.items())
        raise ParseError(f"the console and the virtual-user log disagree on {what} ({shown}): refusing to choose")
    return next(iter(given.values()), None)


@dataclass(frozen=True)
class FixedWork:
    """One fixed-work run: the virtual users, their work as asked and done, the completion time."""

    virtual_users: int
    iterations: int
    transactions_per_iteration: int
    calls: tuple[tuple[str, int], ...]
    errors: tuple[tuple[str, int], ...]
    elapsed_ms: int
    span: Window | None
    span_loss: Loss | None = None


def parse_fixed_work(files: dict[str, str]) -> FixedWork:
    """A fixed-work run's console and virtual-user log (name -> text) read and cross-checked.

    Raises:
        ParseError: the script stopped, a virtual user failed, the completion time is not there
            (a console cut short) or the log spans more, the texts disagree, or the work done is
            not the work every user was given.
    """
    works = {name: read_work(text) for name, text in files.items() if name == "console.txt" or is_vuser_log(name)}
    console = works.get("console.txt")
    if console is None or console.elapsed_ms is None:
        raise ParseError("no completion time (@@flashpoc elapsed_ms) in the run's console: the run was cut short or "
                         "this is not a fixed-work run of flashpoc's")
    if console.script_errors:
        raise ParseError(f"the HammerDB script stopped: {'; '.join(dict.fromkeys(console.script_errors))}")
    failed = sorted(vu for vu, states in console.finished.items() if "FAILED" in states)
    if failed or console.failures:
        told = errors_text(tuple(console.errors.items())) if console.errors else ""
        raise ParseError(f"the run failed: HammerDB virtual users {', '.join(map(str, failed)) or '?'} FINISHED FAILED: "
                         f"{' | '.join(dict.fromkeys(console.failures))[:300]}{'; ' + told if told else ''}")
    processing = _agreed(works, "the iterations begun", lambda w: w.processing)
    kinds = _agreed(works, "the transactions done", lambda w: w.kinds)
    errors = _agreed(works, "the error lines per transaction", lambda w: w.errors, empty_says=True) or {}
    users = sorted(processing or {})
    if not users or users != list(range(1, len(users) + 1)):
        raise ParseError(f"the virtual users that worked are {users}, not 1 to N")
    per_iteration = {n for counts in processing.values() for n in counts}
    iterations = {len(counts) for counts in processing.values()} | {len(console.finished.get(vu, [])) for vu in users}
    done = {sum((kinds.get(vu) or {}).values()) for vu in users}
    if len(per_iteration) != 1 or len(iterations) != 1 or done != {per_iteration.copy().pop() * iterations.copy().pop()}:
        raise ParseError(f"the virtual users did not all do the work asked: iterations {sorted(iterations)} of "
                         f"{sorted(per_iteration)} transactions, {sorted(done)} done")
    spans = {name: log_span(text) if works[name].lines == console.lines else (
        None, f"holds {works[name].lines} virtual-user lines, console.txt {console.lines}: one of the two is cut "
              "or damaged")
        for name, text in files.items() if is_vuser_log(name)}
    span = next((s for s, _ in spans.values() if s), None)
    damaged = [Loss(name, damage, ("test_start", "test_end", *CPU_COLUMNS)) for name, (_, damage) in spans.items()
               if damage]
    if not spans:
        named = next((m.group(1) for m in LOG_NAMED.finditer(files["console.txt"])), "hammerdb*.log")
        damaged.append(Loss(named, "missing (the virtual-user log, whose timestamps date the work)",
                            ("test_start", "test_end", *CPU_COLUMNS)))
    if span and (span[1] - span[0]).total_seconds() > console.elapsed_ms / 1000 + 1:
        raise ParseError(f"the virtual-user log spans {(span[1] - span[0]).total_seconds():g} s, more than the "
                         f"completion time {console.elapsed_ms / 1000:g} s: refusing it")
    calls = tuple((t, sum((kinds.get(vu) or {}).get(t, 0) for vu in users)) for t in TRANSACTIONS)
    return FixedWork(len(users), iterations.pop(), per_iteration.pop(), calls,
                     tuple((t, errors.get(t, 0)) for t in TRANSACTIONS), console.elapsed_ms, span,
                     damaged[0] if damaged and span is None else None)


def fixed_work_metrics(work: FixedWork) -> dict[str, Any]:
    """The row's columns of a fixed-work run (:data:`FIXED_WORK_COLUMNS`, the calls and error columns)."""
    completion_s = work.elapsed_ms / 1000
    calls, errors = dict(work.calls), dict(work.errors)
    done = sum(calls.values())
    return {"completion_s": completion_s, "virtual_users": work.virtual_users, "iterations": work.iterations,
            "transactions_per_iteration": work.transactions_per_iteration, "transactions": done,
            **{f"{t.lower()}_calls": n for t, n in calls.items()},
            "errors": sum(errors.values()), **{f"{t.lower()}_errors": n for t, n in errors.items()},
            "nopm": (calls["NEWORD"] - errors["NEWORD"]) / completion_s * 60 if completion_s else None,
            "tpm": (done - sum(errors.values())) / completion_s * 60 if completion_s else None,
            "test_start": work.span[0].isoformat() if work.span else None,
            "test_end": work.span[1].isoformat() if work.span else None}


def is_fixed_work(files: dict[str, str]) -> bool:
    """Whether a run's files are a fixed work's (its console marks the completion time)."""
    return any(ELAPSED.search(line_text(line)) for text in files.values() for line in text.splitlines()
               if "@@flashpoc elapsed_ms" in line)


def fixed_work_files(files: dict[str, str], virtual_users: int | None = None) -> dict[str, Any]:
    """One load host's fixed-work run (its files): its row's columns, the load host's CPU over the
    work (:mod:`.window`), each damaged file's loss named in ``damaged``.

    Raises:
        ParseError: as :func:`parse_fixed_work`; or HammerDB ran other than ``virtual_users``.
    """
    work = parse_fixed_work(files)
    if virtual_users is not None and work.virtual_users != virtual_users:
        raise ParseError(f"HammerDB ran {work.virtual_users} virtual users, not {virtual_users}")
    metrics = fixed_work_metrics(work)
    cpu, cpu_loss = read_host_cpu(files, work.span)
    metrics.update(cpu)
    note_losses(metrics, [loss for loss in (work.span_loss, cpu_loss) if loss])
    return metrics


def fixed_work_hosts(runs, purpose: str, virtual_users: int) -> dict[str, Any]:
    """The point's columns from every load host's fixed-work run: the work is done when the last
    host's is (``completion_s`` the longest, each host's in ``per_host``), the work summed (users,
    transactions and errors of each kind; ``nopm`` and ``tpm`` over the longest completion time),
    the load host CPU the hosts' mean.

    Raises:
        RemoteError: naming the host whose run failed or does not read whole.
    """
    per_host = {}
    for run in runs:
        try:
            per_host[run.host] = fixed_work_files({"console.txt": run.console, **run.files}, virtual_users)
        except ParseError as error:
            raise RemoteError(f"{run.host}: {purpose}: {error}") from None
    first = next(iter(per_host.values()))
    if len(per_host) == 1:
        return first
    metrics = dict(first)
    summed = [k for k in first if k.endswith(("_calls", "_errors")) or k in ("errors", "transactions", "virtual_users")]
    for key in summed:
        metrics[key] = sum(m[key] for m in per_host.values())
    metrics["completion_s"] = completion_s = max(m["completion_s"] for m in per_host.values())
    metrics["nopm"] = (metrics["neword_calls"] - metrics["neword_errors"]) / completion_s * 60
    metrics["tpm"] = (metrics["transactions"] - metrics["errors"]) / completion_s * 60
    cpu = [m.get("host_cpu_busy_pct") for m in per_host.values()]
    metrics["host_cpu_busy_pct"] = None if None in cpu else sum(cpu) / len(cpu)
    metrics["per_host"] = {h: {k: m.get(k) for k in ("completion_s", "virtual_users", "transactions", "errors",
                                                     "host_cpu_busy_pct", "test_start", "test_end")}
                           for h, m in per_host.items()}
    return metrics
