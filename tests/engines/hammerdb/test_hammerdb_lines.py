"""HammerDB's lines read the way HammerDB writes them: the error lines of every transaction counted
and cross-checked (issue 29, defect 1), the interactive CLI's prompt interleaved with a virtual
user's output (defect 8), the transaction counter's first sample (defect 6), all on real recorded
runs (tests/data/hammerdb: ``errors_statement_timeout`` ran against a 4 ms statement timeout)."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import TESTS
from flashpoc.engines.hammerdb.lines import line_text, transaction_error
from flashpoc.engines.hammerdb.metrics import intervals, run_metrics
from flashpoc.engines.hammerdb.parse import parse_files, read_files
from flashpoc.engines.hammerdb.window import timed_window
from flashpoc.core.errors import ParseError

DATA = TESTS / "data" / "hammerdb"
ERRORS = DATA / "errors_statement_timeout"
JOB = "6B0989F74D6E03E293332363"
LOG = "hammerdb_6B0989F64D6C03E273737353.log"
#: what HammerDB printed per transaction, counted by hand (grep -c "<Transaction> Procedure Error")
PRINTED = {"NEWORD": 366, "PAYMENT": 148, "DELIVERY": 303, "SLEV": 115, "OSTAT": 8}
_NAMES = {"New Order": "NEWORD", "Payment": "PAYMENT", "Delivery": "DELIVERY", "Stock Level": "SLEV",
          "Order Status": "OSTAT"}


def test_every_error_line_is_counted_per_transaction():
    files = read_files(ERRORS)
    for name in ("console.txt", LOG):  # the count above is what each of the run's texts holds
        found = re.findall(r"^Vuser \d+:(New Order|Payment|Delivery|Stock Level|Order Status) Procedure Error set "
                           r"RAISEERROR for Details$", files[name], re.M)
        assert {_NAMES[n]: found.count(n) for n in _NAMES} == PRINTED
    output = json.loads(files[f"{JOB}.json"])[1::2]
    assert sum("Procedure Error" in line for line in output) == sum(PRINTED.values()) == 940
    result = parse_files(files)
    assert dict(result.errors) == PRINTED and (result.nopm, result.tpm) == (12566, 29568)
    _, metrics, _ = run_metrics(files)
    assert {k: metrics[k] for k in ("errors", "neword_errors", "slev_errors", "ostat_errors")} == {
        "errors": 940, "neword_errors": 366, "slev_errors": 115, "ostat_errors": 8}
    clean = run_metrics(read_files(DATA / "compare_fsync_on_1vu"))[1]
    assert (clean["errors"], clean["neword_errors"]) == (0, 0)  # a run without errors says 0, not nothing


@pytest.mark.parametrize("name", ["console.txt", f"{JOB}.json"])
def test_an_error_line_missing_from_one_text_is_refused(name):
    """The console and the job's output get every error line; one that lacks one is not taken."""
    files = read_files(ERRORS)
    files[name] = files[name].replace("Stock Level Procedure Error", "Stock Level Procedure", 1)
    with pytest.raises(ParseError, match=r"disagree on the error lines per transaction"):
        parse_files(files)


def test_the_log_may_lack_the_last_error_lines_never_hold_more():
    """HammerDB writes the virtual-user log asynchronously and closes it when it destroys the
    virtual users: a line printed after (a failed run whose users were still running) is only in
    the console and the job's output, which count it. A log with an error line more is refused."""
    files = read_files(ERRORS)
    log = files[LOG].splitlines(keepends=True)
    last = max(i for i, line in enumerate(log) if "Procedure Error" in line)
    lost = log[last].split(":", 1)[1].split(" Procedure")[0]
    files[LOG] = "".join(log[:last - 1] + log[last + 1:])  # the last error line and its timestamp
    assert dict(parse_files(files).errors) == PRINTED and _NAMES[lost] in PRINTED
    files[LOG] = "".join(log[:last + 1] + log[last - 1:])  # the same line twice
    with pytest.raises(ParseError, match=rf"disagree on the error lines per transaction .*{LOG}: "):
        parse_files(files)


@pytest.mark.parametrize("line,txn", [
    ("New Order Procedure Error set RAISEERROR for Details", "NEWORD"),  # pgoltp.tcl, RAISEERROR false
    ("Error in Virtual User 3: Stock Level : ORA-01013: user requested cancel", "SLEV"),  # oraoltp.tcl, RAISEERROR true
    ("Error in ac12 Order Status : ORA-00060: deadlock detected", "OSTAT"),  # the asynchronous driver
    ("Error in Virtual User 1: key \"msperclick\" not found", None),  # not a transaction's
    ("Checkpoint Error set RAISEERROR for Details", None)])
def test_the_forms_hammerdb_prints_an_error_in(line, txn):
    assert transaction_error(line) == txn


# tclreadline, HammerDB's line editor (modules/tclreadline-1.2.1.tm), redraws its prompt under a
# virtual user's asynchronous output: clearline (ESC[2K and a carriage return), "\r" and the
# prompt, then gotocol 9 (a carriage return and ESC[9C); on a terminal, and in a copy of one, the
# line reads "hammerdb>Vuser 1:...". Each form is put before lines of a real console.
PROMPTS = ("\x1b[2K\r\rhammerdb>\r\x1b[9C", "hammerdb>", "hammerdb>hammerdb>", "\rhammerdb>>>")


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_console_with_the_prompt_interleaved_reads_as_the_clean_one(data):
    files = read_files(ERRORS)
    clean = run_metrics({"console.txt": files["console.txt"]})[0]
    lines = files["console.txt"].splitlines(keepends=True)
    marked = data.draw(st.sets(st.integers(0, len(lines) - 1), min_size=1, max_size=400), label="lines")
    prompt = data.draw(st.sampled_from(PROMPTS), label="prompt")
    held_out = "".join(prompt + line if i in marked else line for i, line in enumerate(lines))
    assert run_metrics({"console.txt": held_out})[0] == clean


def test_the_oracle_snapshot_line_after_the_prompt():
    """Issue 29's case: ``hammerdb>Vuser 1:End Snapshot 94 taken at ...`` was read as no line, and
    the run refused ("1 AWR snapshot lines")."""
    from test_hammerdb_oracle import ORACLE_LOG
    log = ORACLE_LOG.format(users=8, nopm=1000, tpm=2300).replace("Vuser 1:End Snapshot", "hammerdb>Vuser 1:End Snapshot")
    assert [s.snap_id for s in parse_files({"console.txt": "HammerDB CLI v6.0\n" + log}).snapshots] == [47, 48]
    assert line_text("\x1b[2K\r\rhammerdb>\r\x1b[9CVuser 1:End Snapshot 94") == "Vuser 1:End Snapshot 94"


def test_the_counters_first_sample_is_never_counted():
    """HammerDB's counter prints 0 first (it has no earlier count, src/postgresql/pgotc.tcl). On a
    loaded host that sample comes after the monitor's 'Rampup complete' (the counter connects
    later), inside the window: it was counted and the scatter was 46.9 % instead of about 14 %."""
    files = read_files(DATA / "compare_fsync_on_1vu")
    result = parse_files(files)
    start, end = timed_window(files)
    assert result.tcount[0] == ("2026-11-24 16:26:13", 0) and start.isoformat() == "2026-11-24T16:26:13"
    earlier = intervals(result, (start - timedelta(seconds=1), end))  # the first sample now inside the window
    assert earlier[0]["tpm"] == 0 and not earlier[0]["counted"]
    assert [r["tpm"] for r in earlier if r["counted"]] == [r["tpm"] for r in intervals(result, (start, end))
                                                          if r["counted"]] == [17214, 18774, 22632, 23160, 20976, 11520]
