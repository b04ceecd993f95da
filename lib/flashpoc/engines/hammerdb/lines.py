"""HammerDB's console and log lines, read the way HammerDB writes them (pure).

Every line of a console, a virtual-user log or the job store's output goes through
:func:`line_text` first: a console captured from HammerDB's interactive CLI carries what its
line editor (tclreadline) prints to redraw the ``hammerdb>`` prompt under a virtual user's
asynchronous output (``ESC[2K``, carriage returns, a cursor move ``ESC[9C``): on a terminal, and in
a copy of one, the line reads ``hammerdb>Vuser 1:End Snapshot 94 taken at ...``. The text is the
line as a terminal shows it, without the prompt.

:func:`read_lines` then reads what the lines say (a ``TEST RESULT``, the active virtual users, each
virtual user's ``FINISHED`` status, the job id, AWR snapshots, errors). What HammerDB 6.0 prints
for a transaction's error (its TPROC-C drivers, ``src/postgresql/pgoltp.tcl`` and
``src/oracle/oraoltp.tcl``), each counted against its transaction (:data:`TRANSACTION_NAMES`):

- PostgreSQL with RAISEERROR false (HammerDB's default, ``pg_raiseerror``): ``<Transaction>
  Procedure Error set RAISEERROR for Details`` for each failed call, and the virtual user goes on;
- with RAISEERROR true the error stops the virtual user: ``Error in Virtual User N: <message>``
  (the Oracle driver's message starts ``<Transaction> : ORA-...``), then ``Vuser N:FINISHED FAILED``;
  the Oracle driver prints nothing for an error with RAISEERROR false, so flashpoc runs it with
  RAISEERROR true (:mod:`.plan`);
- the asynchronous drivers: ``Error in <client> <Transaction> : <message>``.

Neither driver prints a deadlock retry: the stored procedures handle a deadlock inside the
database (PostgreSQL's ``WHEN serialization_failure OR deadlock_detected``, Oracle's ORA-00060 and
ORA-08177 handlers roll the transaction back); one that reaches the driver is an error like any
other. So every error line counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

NUMBER = r"\d+(?:\.\d+)?"
#: the transactions of TPROC-C as the time profile names them, and as the drivers' messages do
TRANSACTION_NAMES = {"New Order": "NEWORD", "Payment": "PAYMENT", "Delivery": "DELIVERY", "Stock Level": "SLEV",
                     "Order Status": "OSTAT"}
_TXN = "|".join(TRANSACTION_NAMES)
ERROR_FORMS = (re.compile(rf"^({_TXN}) Procedure Error set RAISEERROR for Details\s*$"),
               re.compile(rf"^Error in Virtual User \d+: ?({_TXN}) : "),
               re.compile(rf"^Error in \S+ ({_TXN}) : "))
"""A transaction's error, in each form a driver prints it (the transaction is group 1)."""
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")
_PROMPT = re.compile(r"^(?:hammerdb>(?:>>)?)+")
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
COUNTER_LINE = re.compile(r"^(\d+) (\S+ tpm)\s*$")
SNAPSHOT = re.compile(r"^(Start|End) Snapshot (\d+) taken at (.+) of instance (\S+) \((\d+)\) of database (\S+) "
                      r"\((\d+)\)\s*$")


def number(text: str) -> int | float:
    """A number as HammerDB printed it: an int when it has no decimal point, else a float."""
    return float(text) if "." in text else int(text)


def line_text(line: str) -> str:
    """``line`` as a terminal shows it, without HammerDB's interactive prompt: its control
    sequences and carriage returns dropped, then a leading ``hammerdb>`` (or the Python CLI's
    ``hammerdb>>>``), however many times the line editor printed it."""
    return _PROMPT.sub("", _CONTROL.sub("", line))


def vuser_message(text: str) -> tuple[int | None, str]:
    """The virtual user and message of a line (``Vuser N:message``), or ``(None, text)``."""
    match = VUSER_LINE.match(text)
    return (int(match.group(1)), match.group(2)) if match else (None, text)


def transaction_error(message: str) -> str | None:
    """The transaction (``NEWORD``...) an error line names in one of HammerDB's :data:`ERROR_FORMS`, or None."""
    for form in ERROR_FORMS:
        match = form.match(message)
        if match:
            return TRANSACTION_NAMES[match.group(1)]
    return None


def parse_result_line(line: str) -> tuple[int | float, int | float, str] | None:
    """``(nopm, tpm, database)`` of a ``TEST RESULT`` line in either order, or None."""
    match = RESULT_NOPM_FIRST.search(line)
    if match:
        return number(match.group(1)), number(match.group(2)), match.group(3)
    match = RESULT_TPM_FIRST.search(line)
    if match:
        return number(match.group(3)), number(match.group(1)), match.group(2)
    return None


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


@dataclass
class LinesRead:
    """What one source's lines said.

    Attributes:
        results: ``(nopm, tpm, database)`` of each TEST RESULT line.
        users: the active virtual users each ``... Active Virtual Users configured`` line gave.
        jobids, snapshots, script_errors: job ids, AWR snapshot lines, ``@@flashpoc error`` reasons.
        finished: virtual user -> ``SUCCESS`` or ``FAILED``.
        errors: every line that says "error" (with the reason HammerDB printed on the next line).
        error_counts: transaction -> error lines naming it (:func:`transaction_error`).
        vusers: the virtual users that printed a line.
        complete: HammerDB said ``ALL VIRTUAL USERS COMPLETE`` (every user's FINISHED line is before it).
        counter: the transaction counter's samples a console shows (``<N> <db> tpm``): metric, value.
    """

    results: list[tuple[int | float, int | float, str]] = field(default_factory=list)
    users: list[int] = field(default_factory=list)
    jobids: list[str] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)
    script_errors: list[str] = field(default_factory=list)
    finished: dict[int, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    error_counts: dict[str, int] = field(default_factory=dict)
    vusers: set[int] = field(default_factory=set)
    complete: bool = False
    counter: list[tuple[str, int]] = field(default_factory=list)


def read_lines(lines: list[str], vusers: list[int | None] | None = None) -> LinesRead:
    """What console or log ``lines`` say (:class:`LinesRead`); ``vusers``: each line's virtual user
    where the source keeps it apart (the job store's output), else read from ``Vuser N:``."""
    read, errors_open = LinesRead(), False
    for i, raw in enumerate(lines):
        line = line_text(raw).rstrip()
        if TIMESTAMP_LINE.match(line):
            continue
        finished = FINISHED.match(line.strip())
        if finished:
            read.finished[int(finished.group(1))] = finished.group(2)
        read.complete = read.complete or line.strip() == "ALL VIRTUAL USERS COMPLETE"
        vu, text = vuser_message(line)
        counter = COUNTER_LINE.match(line) if vu is None and vusers is None else None
        if counter:
            read.counter.append((counter.group(2), int(counter.group(1))))
        vu = vusers[i] if vusers is not None else vu
        if vu:
            read.vusers.add(vu)
        _read_message(read, text)
        if ERROR_LINE.search(text) and not text.startswith(MARK_JOBID):
            read.errors.append(text.strip())
        elif read.errors and errors_open and text.strip() and not VUSER_LINE.match(line):
            read.errors[-1] += f" ({text.strip()})"  # the reason, on the line after "Error in Virtual User N"
        errors_open = bool(ERROR_LINE.search(text))
    return read


def _read_message(read: LinesRead, text: str) -> None:
    """One message's result, users, job id, snapshot, script error or transaction error into ``read``."""
    result = parse_result_line(text)
    if result:
        read.results.append(result)
    users = ACTIVE_USERS.match(text) or ACTIVE_SESSIONS.match(text)
    if users:
        read.users.append(int(users.group(1)))
    jobid = JOBID.search(text)
    if jobid:
        read.jobids.append(jobid.group(1))
    snap = SNAPSHOT.match(text)
    if snap:
        read.snapshots.append(Snapshot(snap.group(1), int(snap.group(2)), snap.group(3), snap.group(4),
                                       int(snap.group(5)), snap.group(6), int(snap.group(7))))
    refused = MARK_ERROR.match(text)
    if refused:
        read.script_errors.append(refused.group(1))
    failed = transaction_error(text)
    if failed:
        read.error_counts[failed] = read.error_counts.get(failed, 0) + 1
