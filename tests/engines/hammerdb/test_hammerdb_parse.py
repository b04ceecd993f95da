"""HammerDB output parsing on the real recorded outputs (PostgreSQL 15) and on the Oracle driver's
format strings quoted from HammerDB's source; cross-checks refuse a number two sources disagree on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import TESTS
from flashpoc.engines.hammerdb.parse import parse_files, parse_path, parse_result_line
from flashpoc.core.errors import ParseError

DATA = TESTS / "data" / "hammerdb"
TIMED = DATA / "timed_2vu"
JOB = "6B049B05676003E263238343"


def _files(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in folder.iterdir()}


def test_timed_run_numbers_as_printed():
    result = parse_path(TIMED)
    assert (result.jobid, result.database, result.nopm, result.tpm, result.virtual_users) == (
        JOB, "PostgreSQL", 5533, 12649, 2)
    neword = result.transactions[0]
    assert [t.name for t in result.transactions] == ["NEWORD", "PAYMENT", "DELIVERY", "SLEV", "OSTAT"]
    # the SUMMARY OF 2 ACTIVE VIRTUAL USERS block of hdbxtprofile.log, as printed (milliseconds)
    assert (neword.calls, neword.min_ms, neword.avg_ms, neword.max_ms) == (11698, 1.175, 9.803, 322.792)
    assert (neword.p50_ms, neword.p95_ms, neword.p99_ms) == (8.032, 19.915, 37.522)
    slev = result.transactions[3]
    assert (slev.calls, slev.p95_ms, slev.sd_ms, slev.ratio_pct) == (1155, 8.794, 4.59, 1.72)
    assert result.tcount_metric == "PostgreSQL tpm"
    assert result.tcount[:2] == (("2026-11-23 19:59:01", 0), ("2026-11-23 19:59:11", 13332))
    assert result.tcount[-1] == ("2026-11-23 20:01:02", 12264) and len(result.tcount) == 13
    # every source that gives the result was read and agreed
    assert {"02_timed_run.txt", "hammerdb.log", f"{JOB}_result.json", "jobs_result.json",
            "hdbxtprofile.log", f"{JOB}_timing.json"} <= set(result.sources)
    assert result.problems == ()


@pytest.mark.parametrize("folder,jobid,nopm,tpm,users,samples", [
    ("sweep_1vu", "6B049B94EF8003E213232353", 11088, 25984, 1, 13),
    ("sweep_2vu", "6B049C1516AB03E263339353", 9341, 21554, 2, 0),  # the counter never reported: no series
    ("sweep_4vu", "6B049C9C1EB203E203832333", 6594, 15260, 4, 14),
])
def test_sweep_runs(folder, jobid, nopm, tpm, users, samples):
    result = parse_path(DATA / folder)
    assert (result.jobid, result.nopm, result.tpm, result.virtual_users, len(result.tcount)) == (
        jobid, nopm, tpm, users, samples)
    assert len(result.transactions) == 5


def test_sweep_4vu_series_and_times():
    result = parse_path(DATA / "sweep_4vu")
    assert result.tcount[1] == ("2026-11-23 20:05:58", 21978)
    payment = result.transactions[1]
    assert payment.name == "PAYMENT" and payment.calls > 0


@pytest.mark.parametrize("name", ["hammerdb.log", "02_timed_run.txt", f"{JOB}_result.json"])
def test_single_file(name):
    result = parse_path(TIMED / name)
    assert (result.nopm, result.tpm, result.virtual_users) == (5533, 12649, 2)


def test_job_store_answers_of_every_job_need_the_job_id():
    with pytest.raises(ParseError, match="answers of 5 jobs"):
        parse_path(DATA / "jobs_json_all")
    result = parse_path(DATA / "jobs_json_all", jobid="6B049C9C1EB203E203832333")
    assert (result.nopm, result.tpm, result.virtual_users) == (6594, 15260, 4)


def test_console_of_several_runs_is_refused():
    with pytest.raises(ParseError, match="3 TEST RESULT lines"):
        parse_path(DATA / "console" / "03_vu_sweep.txt")


def test_schema_build_has_no_result():
    with pytest.raises(ParseError, match="no TEST RESULT line"):
        parse_path(DATA / "console" / "01_buildschema.txt")


def test_both_result_orders():
    assert parse_result_line("Vuser 1:TEST RESULT : System achieved 5533 NOPM from 12649 PostgreSQL TPM") == (
        5533, 12649, "PostgreSQL")
    # the older order, HammerDB's testresult with first_result TPM (modules/tpcccommon-1.0.tm:354)
    assert parse_result_line("TEST RESULT : System achieved 12649 PostgreSQL TPM at 5533 NOPM") == (
        5533, 12649, "PostgreSQL")
    assert parse_result_line("TEST RESULT : System achieved 5533 NOPM from 1264") is None


def test_older_order_in_a_real_run(tmp_path):
    """The real run's files with every result line in the older order still agree."""
    files = _files(TIMED)
    old = "TEST RESULT : System achieved 12649 PostgreSQL TPM at 5533 NOPM"
    files = {n: t.replace("TEST RESULT : System achieved 5533 NOPM from 12649 PostgreSQL TPM", old)
             for n, t in files.items()}
    result = parse_files(files)
    assert (result.nopm, result.tpm) == (5533, 12649)


def test_disagreement_is_refused():
    files = _files(TIMED)
    files["hammerdb.log"] = files["hammerdb.log"].replace("achieved 5533 NOPM", "achieved 5534 NOPM")
    with pytest.raises(ParseError, match=r"disagree on the NOPM .*5534.*5533|disagree on the NOPM .*5533.*5534"):
        parse_files(files)


def test_timing_disagreement_is_refused():
    files = _files(TIMED)
    files["hdbxtprofile.log"] = files["hdbxtprofile.log"].replace("P95: 19.915ms", "P95: 19.916ms")
    with pytest.raises(ParseError, match="NEWORD response times"):
        parse_files(files)


def test_truncated_outputs_lose_numbers_never_change_them():
    files = _files(TIMED)
    log = files["hammerdb.log"]
    cut = log.index("TEST RESULT") + len("TEST RESULT : System achieved 553")
    files["hammerdb.log"] = log[:cut]  # the result line cut inside its first number
    timing = files[f"{JOB}_timing.json"]
    files[f"{JOB}_timing.json"] = timing[: len(timing) // 2]  # half a JSON document
    xt = files["hdbxtprofile.log"]
    files["hdbxtprofile.log"] = xt[: xt.index("P95: 19.915ms") + len("P95: 19.9")]  # NEWORD's summary line cut
    tc = files["hdbtcount.log"]
    files["hdbtcount.log"] = tc[: tc.index("12264") + 3]  # the last sample cut to "122"
    result = parse_files(files)
    assert (result.nopm, result.tpm) == (5533, 12649)
    assert result.transactions == ()  # the summary lost NEWORD's line; the JSON answer is lost
    assert len(result.tcount) == 13 and result.tcount[-1][1] == 12264  # "122 PostgreSQL tpm" never read
    assert any("not valid JSON" in p for p in result.problems)
    assert any("NEWORD" in p for p in result.problems)


def test_only_a_truncated_result_is_no_result():
    text = (TIMED / "hammerdb.log").read_text()
    cut = text[: text.index("TEST RESULT") + len("TEST RESULT : System achieved 5533 NOPM from 126")]
    with pytest.raises(ParseError, match="no TEST RESULT line"):
        parse_files({"hammerdb.log": cut})


def test_failed_run_names_the_users():
    """A real run whose every virtual user failed (a wrong password): an error naming them and why."""
    with pytest.raises(ParseError, match=r"the run failed: HammerDB virtual users 1, 2, 3 FINISHED FAILED: "
                                         r"Error in Virtual User 1: Connection to database failed \(connection to "
                                         r"server at .* password authentication failed for user \"tpcc\"\)"):
        parse_path(DATA / "failed_password")


@pytest.mark.parametrize("name", ["console.txt", "6B05230921E003E263339333_status.json"])
def test_failed_run_from_one_file(name):
    with pytest.raises(ParseError, match="FINISHED FAILED"):
        parse_path(DATA / "failed_password" / name)


def test_failed_run_without_statuses_has_no_result():
    with pytest.raises(ParseError, match="no TEST RESULT line"):
        parse_path(DATA / "failed_password" / "hammerdb_6B05230921DF03E213839353.log")


# The Oracle driver's lines (no Oracle database ran: these are HammerDB v6.0's format strings from
# src/oracle/oraoltp.tcl as quoted in the shared fixtures' ORACLE_NOTES.md, with numbers put in).
ORACLE_LOG = """Hammerdb Log @ Fri Jun 05 10:13:00 UTC 2026
+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-
Vuser 1:DBVersion:19.0.0.0.0
Vuser 1:Beginning rampup time of 2 minutes
Vuser 1:Rampup 1 minutes complete ...
Vuser 1:Rampup 2 minutes complete ...
Vuser 1:Rampup complete, Taking start AWR snapshot.
Vuser 1:Start Snapshot 123 taken at 05 JUN 2026 10:15 of instance ORCL1 (1) of database ORCL (1234567890)
Vuser 1:Timing test period of 5 in minutes
Vuser 1:1 ...,
Vuser 1:Test complete, Taking end AWR snapshot.
Vuser 1:End Snapshot 124 taken at 05 JUN 2026 10:20 of instance ORCL1 (1) of database ORCL (1234567890)
Vuser 1:Test complete: view report from SNAPID  123 to 124
Vuser 1:96 Active Virtual Users configured
Vuser 1:{result}
"""


@pytest.mark.parametrize("line", ["TEST RESULT : System achieved 250123 NOPM from 575000 Oracle TPM",
                                  "TEST RESULT : System achieved 575000 Oracle TPM at 250123 NOPM"])
def test_oracle_lines(line):
    result = parse_files({"hammerdb.log": ORACLE_LOG.format(result=line)})
    assert (result.database, result.nopm, result.tpm, result.virtual_users) == ("Oracle", 250123, 575000, 96)
    start, end = result.snapshots
    assert (start.which, start.snap_id, start.taken_at, start.instance, start.instance_number, start.database,
            start.dbid) == ("Start", 123, "05 JUN 2026 10:15", "ORCL1", 1, "ORCL", 1234567890)
    assert (end.which, end.snap_id) == ("End", 124)


def test_oracle_console_and_log_agree_on_the_snapshots():
    log = ORACLE_LOG.format(result="TEST RESULT : System achieved 250123 NOPM from 575000 Oracle TPM")
    console = "HammerDB CLI v6.0\n" + log.split("\n", 2)[2]
    result = parse_files({"hammerdb.log": log, "console.txt": console})
    assert [s.snap_id for s in result.snapshots] == [123, 124]
    with pytest.raises(ParseError, match="disagree on the AWR snapshots"):
        parse_files({"hammerdb.log": log, "console.txt": console.replace("Snapshot 124", "Snapshot 125")})


def test_counter_series_disagreement_is_refused():
    files = _files(TIMED)
    files["hdbtcount.log"] = files["hdbtcount.log"].replace("\n8208 PostgreSQL tpm", "\n8209 PostgreSQL tpm")
    with pytest.raises(ParseError, match="disagree on the transaction counter series"):
        parse_files(files)


def test_oracle_async_sessions_line():
    # oraoltp.tcl:3017 prints "... VU \* $async_client AC \= ... Active Sessions configured"; Tcl drops the backslashes
    log = ORACLE_LOG.replace("96 Active Virtual Users configured", "8 VU * 10 AC = 80 Active Sessions configured")
    result = parse_files({"hammerdb.log": log.format(result="TEST RESULT : System achieved 1000 NOPM from 2300 "
                                                            "Oracle TPM")})
    assert result.virtual_users == 8


def test_rows_and_json(tmp_path):
    result = parse_path(TIMED)
    rows = result.rows()
    assert len(rows) == 5 and rows[0]["nopm"] == 5533 and rows[0]["name"] == "NEWORD" and rows[0]["p95_ms"] == 19.915
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["tcount"][1] == {"time": "2026-11-23 19:59:11", "tpm": 13332}


def test_empty_directory(tmp_path):
    with pytest.raises(ParseError, match="no files"):
        parse_path(tmp_path)


def test_parse_reads_a_copied_run_directory(tmp_path):
    shutil.copytree(DATA / "sweep_1vu", tmp_path / "run" / "jobs")
    assert parse_path(tmp_path / "run").nopm == 11088
