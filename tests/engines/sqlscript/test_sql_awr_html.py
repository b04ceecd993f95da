"""A DBA job's AWR report in HTML (DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_HTML) beside the text one.

No Oracle server runs here: the replay double (tests/replay/oracle_replay.py) answers
AWR_REPORT_TEXT and AWR_REPORT_HTML with the lines of the two real renderings of the recorded
snapshot pair's report (tests/data/slob/slob2.5_19c_rac2node_s256_t1_wu4_update10/awr.txt and
awr.html.gz: instance 2, snaps 47-48).
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytest

from conftest import DATA, TESTS
from flashpoc.jobs.sqlscript.measure import run_sql_workload
from flashpoc.jobs.sqlscript.report import awr_reports_text, latest_runs
from flashpoc.core.errors import ParameterError
from flashpoc.params import campaign_from_dict
from flashpoc.oracle.awr import parse_awr

sys.path.insert(0, str(TESTS / "replay"))
from oracle_replay import ReplayDatabase  # noqa: E402

RUN = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
SCRIPT = "INSERT INTO t1 (id) VALUES (&session);\nCOMMIT;\n"


def campaign(tmp_path, name="undo", **job):
    (tmp_path / "job.sql").write_text(SCRIPT)
    return campaign_from_dict({
        "campaign": name, "engine": "sqlscript", "oracle": {"dsn": "db1:1521/pdb1", "user": "system"},
        "sql_workload": {"script": "job.sql", "sessions": 2, "label": "undo-on-hdd", **job},
        "results_dir": str(tmp_path / "results")})


def replay(**kwargs) -> ReplayDatabase:
    return ReplayDatabase(DATA / "oracle" / "facts_slob19c_rac2node.json",
                          DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json", **kwargs)


def run_dir(tmp_path, name="undo") -> Path:
    return next((tmp_path / "results" / name / "points" / "sql").iterdir())


def test_both_renderings_stored_with_the_run(tmp_path):
    db = replay(awr_report=RUN / "awr.txt", awr_report_html=RUN / "awr.html.gz")
    cfg = campaign(tmp_path, awr_report="both")
    row = run_sql_workload(cfg, connect=db.connect)
    assert row["awr_report"] == "awr.txt" and row["awr_reports"] == ["awr.txt", "awr.html"]
    assert row["awr_report_note"] is None
    stored = run_dir(tmp_path)
    html = (stored / "awr.html").read_text()
    assert html == gzip.decompress((RUN / "awr.html.gz").read_bytes()).decode()
    assert (stored / "awr.txt").read_text() == (RUN / "awr.txt").read_text()
    binds = {"dbid": 1451622190, "instance_number": 2, "begin_snap": 47, "end_snap": 48}
    assert [b for n, b in db.queries if n == "awr_report_html"] == [binds]
    # the stored HTML is the same report as the text: same database, instance and snapshots
    text_header, html_header = parse_awr((stored / "awr.txt").read_text())["header"], parse_awr(html)["header"]
    assert html_header == text_header and (html_header["db_name"], html_header["begin_snap"]) == ("P30SDB", 47)
    lines = awr_reports_text(latest_runs(cfg))
    assert f"`points/sql/{row['run_id']}/awr.txt`, `points/sql/{row['run_id']}/awr.html`" in lines


def test_html_only_and_a_refused_html_report_leaves_a_note(tmp_path):
    db = replay(awr_report=RUN / "awr.txt", awr_report_html=RUN / "awr.html.gz")
    row = run_sql_workload(campaign(tmp_path, "html-only", awr_report="html"), connect=db.connect)
    assert row["awr_report"] == "awr.html" and row["awr_reports"] == ["awr.html"]
    assert "awr_report_text" not in {n for n, _ in db.queries}
    assert not (run_dir(tmp_path, "html-only") / "awr.txt").exists()

    refusing = replay(awr_report=RUN / "awr.txt", report_error="ORA-01031: insufficient privileges")
    row = run_sql_workload(campaign(tmp_path, "refused", awr_report="both"), connect=refusing.connect)
    assert row["awr_reports"] == ["awr.txt"] and round(row["read_iops"], 1) == 29792.8  # the run is kept
    assert row["awr_report_note"] == ("no AWR report (html): Oracle query sql/awr_report_html.sql failed: "
                                      "ORA-01031: insufficient privileges")


def test_an_unknown_rendering_is_one_line_naming_the_key(tmp_path):
    with pytest.raises(ParameterError, match=r"sql_workload\.awr_report") as error:
        campaign(tmp_path, awr_report="pdf")
    assert "\n" not in str(error.value)
