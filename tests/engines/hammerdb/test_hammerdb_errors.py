"""A HammerDB point with error lines is refused as a measurement above ``max_errors``, and a stored
point with errors is never reused as a clean one (issue 29, defect 1).

Through the campaign's loop, with HammerDB's hammerdbcli REPLAY DOUBLE (tests/replay) serving two
real recorded 2-virtual-user runs of one campaign's settings: ``errors_statement_timeout`` (940
error lines under a 4 ms statement timeout) and ``clean_2vu`` (none). The real HammerDB and
PostgreSQL run the same in tests/engines/hammerdb/test_hammerdb_failures_real.py."""

from __future__ import annotations

import json
import re
import sys

import pytest

from conftest import TESTS
sys.path.insert(0, str(TESTS / "replay"))
import hammerdb_replay  # noqa: E402

from flashpoc.engines.hammerdb.parse import read_files  # noqa: E402
from flashpoc.core.errors import RemoteError  # noqa: E402
from flashpoc.params import campaign_from_dict  # noqa: E402
from flashpoc.phases import open_campaign  # noqa: E402

DATA = TESTS / "data" / "hammerdb"
ERRORS, CLEAN = DATA / "errors_statement_timeout", DATA / "clean_2vu"
REFUSED = r"HammerDB printed 940 errors \(NEWORD 366, PAYMENT 148, DELIVERY 303, SLEV 115, OSTAT 8\), more than " \
          r"max_errors \(0\): not a measurement \(the run's files: .*/points/refused/probe-tprocc_t00002_\w+-\d+T\d+\)"


def _campaign(tmp_path, recorded: str, **settings):
    """A campaign of the recordings' settings (their script's diset), its hammerdbcli the double."""
    script = (ERRORS / "script.tcl").read_text()
    port = int(re.search(r"^diset connection pg_port (\d+)$", script, re.M).group(1))
    home = hammerdb_replay.install(tmp_path / f"HammerDB-{recorded}", sys.executable, {2: recorded})
    return campaign_from_dict({
        "campaign": "oltp", "results_dir": str(tmp_path / "results"),
        "hosts": [{"name": "load1", "address": "localhost", "workdir": str(tmp_path / "work")}],
        "engine": {"hammerdb": {"database": "postgresql", "hammerdb_dir": str(home), "host": "127.0.0.1", "port": port,
                                "password_env": "TPCC_PW", "superuser_password_env": "PG_PW", "warehouses": 1,
                                "rampup_minutes": 0, "duration_minutes": 1, **settings}},
        "probe": {"strategy": "linear", "min_threads": 2, "max_threads": 2, "step": 1}})


def _measure(cfg) -> dict:
    with open_campaign(cfg) as wb:
        return cfg.engine_object.measure_point(wb, "probe", cfg.probe_workload, 2, runtime_s=60)


def test_a_point_with_errors_is_refused_and_its_files_kept(tmp_path):
    cfg = _campaign(tmp_path, "errors_statement_timeout")
    with pytest.raises(RemoteError, match=REFUSED):
        _measure(cfg)
    points = cfg.results_path() / "points"
    assert not (points / "probe").exists() or not any((points / "probe").iterdir())  # no point stored
    (kept,) = (points / "refused").iterdir()
    assert (kept / "console.txt").read_text().count("Procedure Error") == 940
    assert not list((tmp_path / "work").rglob("*.db")) and not list((tmp_path / "work" / "oltp" / "hammerdb" /
                                                                    "load1").iterdir())  # the attempt removed


def test_within_max_errors_a_point_is_stored_with_its_errors(tmp_path):
    row = _measure(_campaign(tmp_path, "errors_statement_timeout", max_errors=1000))
    assert (row["errors"], row["neword_errors"], row["slev_errors"], row["nopm"]) == (940, 366, 115, 12566)
    assert row["reused"] is False


def test_a_stored_point_with_errors_is_never_reused_as_a_clean_one(tmp_path):
    """A point stored by an earlier flashpoc, before errors were counted (no errors column), whose
    files hold 940 error lines: not reused but moved to points/refused and measured again; one
    stored within a higher max_errors is reused while that holds, measured again once it is 0."""
    cfg = _campaign(tmp_path, "clean_2vu")
    with open_campaign(cfg) as wb:
        (pid,) = cfg.engine_object.storage_keys(wb, [_spec(cfg)])
        old = {k: v for k, v in json.loads(_row_of(tmp_path, "errors_statement_timeout", 1000)).items()
               if not k.endswith("errors")} | {"point_id": pid}
        wb.store.save_point("probe", pid, old, read_files(ERRORS))
    row = _measure(cfg)
    assert (row["point_id"], row["errors"], row["nopm"], row["reused"]) == (pid, 0, 11674, False)
    (moved,) = (cfg.results_path() / "points" / "refused").iterdir()
    assert moved.name.startswith(f"probe-{pid}-")
    assert json.loads((moved / "point.json").read_text())["errors"] == 940  # counted from its files, kept with it
    assert _measure(cfg)["reused"] is True  # the clean one stands

    lenient = _campaign(tmp_path / "b", "errors_statement_timeout", max_errors=1000)
    assert _measure(lenient)["errors"] == 940 and _measure(lenient)["reused"] is True
    strict = campaign_from_dict({**lenient.model_dump(mode="json", exclude={"workloads"}),
                                 "engine": {"hammerdb": {**lenient.settings.model_dump(mode="json"), "max_errors": 0}}})
    with pytest.raises(RemoteError, match=REFUSED):  # not reused: measured again, and refused again
        _measure(strict)


def _spec(cfg):
    from flashpoc.core.records import PointSpec

    return PointSpec("probe", cfg.probe_workload, 2, 60)


def _row_of(tmp_path, recorded: str, max_errors: int) -> str:
    """The row a campaign stores of ``recorded`` (``max_errors`` high enough to store it), as JSON."""
    return json.dumps(_measure(_campaign(tmp_path / f"row-{recorded}", recorded, max_errors=max_errors)))


def test_the_errors_are_in_the_points_table_and_marked_on_the_chart():
    """A point with errors (stored within max_errors) shows them: the table's Error lines, a red
    ring on the NOPM chart with the subtitle saying so; a point without none."""
    import pandas as pd

    from flashpoc.present.chart import draw, themed_spec
    from flashpoc.engines.hammerdb.metrics import run_metrics
    from flashpoc.engines.hammerdb.report import ERRORS_NOTE, nopm_vs_users, points_table

    rows = [{**run_metrics(read_files(folder))[1], "threads": 2, "workload": "tprocc", "config": config}
            for config, folder in (("timeout", ERRORS), ("clean", CLEAN))]
    points = pd.DataFrame(rows)
    assert list(points_table(points)["Error lines"]) == ["0", "940"]  # by configuration: clean, timeout
    spec = themed_spec(draw(nopm_vs_users(points)))
    rings = [layer for layer in spec["layer"] if layer["mark"].get("shape") == "circle"]
    assert len(rings) == 1 and ERRORS_NOTE in " ".join(spec["title"]["subtitle"])  # the subtitle in lines
    ringed = spec["datasets"][rings[0]["data"]["name"]]
    assert [(r["config"], r["errors"], r["nopm"]) for r in ringed] == [("timeout", 940, 12566)]
    clean = themed_spec(draw(nopm_vs_users(points[points["config"] == "clean"])))
    assert ERRORS_NOTE not in " ".join(clean["title"]["subtitle"]) and len(clean["layer"]) == 1
