"""The contract every registered engine keeps (issue 18), run over ``registry.engine_names()`` and
a minimal engine defined in the tests (tests/example_engine.py, registered with
``engines.register``): point ids deterministic and unique, rows of the common schema, a rerun that
reuses every stored point without running the engine, the safety gate before any write, the
engine's version in the manifest; and points stored by the code before the one measure loop keep
their ids and are reused.

Real engines where they run here: fio, the real vdbench (``.engines/vdbench``; skipped saying so
without it), dd for the example engine; SLOB through its runit.sh REPLAY DOUBLE on recorded runs
(tests/replay/slob_replay.py); the DBA's job (sqlscript) on the Oracle REPLAY DOUBLE
(tests/replay/oracle_replay.py), its runs being the loop's points of phase ``sql`` (ids, row,
reuse without connecting, the database's version in the manifest; no probe, sweep or target);
HammerDB through its hammerdbcli REPLAY DOUBLE on the recorded
runs of real HammerDB 6.0 on PostgreSQL 15 (tests/replay/hammerdb_replay.py: a real point takes
whole minutes; tests/engines/hammerdb/test_hammerdb_measure_real.py runs the real one end to end).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

import example_engine
from conftest import DATA, TESTS, quick_campaign, real_vdbench, require_fio
from flashpoc import engines, phases
from flashpoc.engines import loop
from flashpoc.core import registry
from flashpoc.core.errors import CheckFailed, ParameterError
from flashpoc.params import campaign_from_dict
from flashpoc.analysis.rows import base_row
from flashpoc.campaign.session import campaign_from_manifest
from flashpoc.engines.loop import point_spec
from flashpoc.hosts.workbench import Workbench
from flashpoc.core.store import CampaignStore

sys.path.insert(0, str(TESTS / "replay"))
import hammerdb_replay  # noqa: E402
import slob_replay  # noqa: E402
from oracle_replay import ReplayDatabase  # noqa: E402

PLAN = {"fio": "randread-4k", "vdbench": "rr", "slob": "slob-read", "ddread": "ddr", "hammerdb": "tprocc"}
"""The read workload each case's probe and sweep measure (at 1 and 2 threads)."""


def fio_case(tmp_path: Path, monkeypatch) -> dict:
    require_fio()
    return quick_campaign(tmp_path, workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
                          probe={"strategy": "linear", "min_threads": 1, "max_threads": 2, "step": 1})


def vdbench_case(tmp_path: Path, monkeypatch) -> dict:
    return {
        "campaign": "contract", "engine": {"vdbench": {"elapsed_s": 2, "interval_s": 1, "openflags": "o_direct"}},
        "hosts": [{"name": "local", "address": "localhost", "vdbench": str(real_vdbench()),
                   "workdir": str(tmp_path / "work")}],
        "targets": [{"name": f"sd{i}", "path": str(tmp_path / f"sd{i}.dat"), "size": "16m", "create": True}
                    for i in (1, 2)],
        "workloads": [{"name": "rr", "rw": "randread", "bs": "4k"}],
        "probe": {"strategy": "linear", "min_threads": 1, "max_threads": 2, "step": 1},
        "results_dir": str(tmp_path / "results"),
    }


def slob_case(tmp_path: Path, monkeypatch) -> dict:
    single = "12.2-single-update0"
    home = slob_replay.install(tmp_path / "SLOB", sys.executable, {1: [single, single], 2: [single, single]})
    return {
        "campaign": "contract", "engine": {"slob": {
            "home": str(home), "env_file": str(home / "slob.env"), "schemas": 256, "scale": "32768",
            "run_time_s": 360, "workloads": [{"name": "slob-read", "update_pct": 0}]}},
        "hosts": [{"name": "db1", "address": "localhost", "workdir": str(tmp_path / "work")}],
        "probe": {"workload": "slob-read", "strategy": "linear", "min_threads": 1, "max_threads": 2, "step": 1},
        "results_dir": str(tmp_path / "results"),
    }


def hammerdb_case(tmp_path: Path, monkeypatch) -> dict:
    home = hammerdb_replay.install(tmp_path / "HammerDB", sys.executable, {1: "sweep_1vu", 2: "sweep_2vu"})
    return {
        "campaign": "contract", "engine": {"hammerdb": {**hammerdb_replay.SETTINGS, "hammerdb_dir": str(home)}},
        "hosts": [{"name": "load1", "address": "localhost", "workdir": str(tmp_path / "work")}],
        "probe": {"strategy": "linear", "min_threads": 1, "max_threads": 2, "step": 1},
        "results_dir": str(tmp_path / "results"),
    }


JOB_SCRIPT = ("CREATE TABLE load_&session_name (id NUMBER);\n"
              "INSERT INTO load_&session_name SELECT level FROM dual CONNECT BY level <= 1000;\n"
              "COMMIT;\n")
"""The DBA's job of the sqlscript case (and of the run stored before the loop, tests/data/stored/sql-format1)."""


def sqlscript_case(tmp_path: Path, monkeypatch, label: str = "undo-on-hdd") -> dict:
    """The DBA's job alone, on the Oracle REPLAY DOUBLE (tests/replay/oracle_replay.py: recorded rows)."""
    from flashpoc.oracle import db as oracle

    monkeypatch.setattr(oracle, "connect", ReplayDatabase(
        DATA / "oracle" / "facts_slob19c_rac2node.json", DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json",
        statement_delay_s=0.005, awr_report=DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10" / "awr.txt").connect)
    (tmp_path / "job.sql").write_text(JOB_SCRIPT)
    return {"campaign": "contract", "engine": "sqlscript", "oracle": {"dsn": "db1:1521/pdb1"},
            "sql_workload": {"script": str(tmp_path / "job.sql"), "sessions": 4, "label": label},
            "results_dir": str(tmp_path / "results")}


def ddread_case(tmp_path: Path, monkeypatch) -> dict:
    data = tmp_path / "data.img"
    data.write_bytes(bytes(range(256)) * (16 * 4096))  # 16 MiB the dd reads
    return {
        "campaign": "contract", "engine": {"ddread": {"blocks": 64}},
        "hosts": [{"name": "local", "address": "localhost", "workdir": str(tmp_path / "work")}],
        "targets": [{"name": "data", "path": str(data), "size": "16m"}],
        "workloads": [{"name": "ddr", "rw": "read", "bs": "4k"}],
        "probe": {"strategy": "linear", "min_threads": 1, "max_threads": 2, "step": 1},
        "precondition": {"filled_elsewhere": ["data"]},  # written above, not by the campaign
        "results_dir": str(tmp_path / "results"),
    }


CASES = {"fio": fio_case, "vdbench": vdbench_case, "slob": slob_case, "hammerdb": hammerdb_case,
         "sqlscript": sqlscript_case, "ddread": ddread_case}


REAL = {"fio": pytest.mark.fio, "vdbench": pytest.mark.vdbench}
"""The markers of the cases that run the real engine (the others replay recorded runs, or run dd)."""


@pytest.fixture(params=[pytest.param(name, marks=REAL.get(name, ())) for name in [*registry.engine_names(), "ddread"]])
def case(request, tmp_path, monkeypatch) -> tuple[str, dict]:
    """(engine name, the parameters of a small campaign of it); the example engine registered for the test."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register("ddread", example_engine.ENGINE)  # the one registry line of a new engine
    name = request.param
    if name not in CASES:
        pytest.fail(f"engine {name} has no contract case: add one to CASES in {Path(__file__).name}")
    return name, CASES[name](tmp_path, monkeypatch)


def _forbid_runs(monkeypatch, engine) -> None:
    def run_points(*args, **kwargs):
        raise AssertionError(f"{engine.name} was run although every point is stored")
    monkeypatch.setattr(engine, "run_points", run_points)


def test_point_ids_are_deterministic_and_apart(case):
    """The ids of the same specs are the same on another workbench; a repeat is stored apart; each
    unit the engine measures in one invocation (:meth:`probe_batches`: a point, or vdbench's thread
    list) has its own id, naming the workload (and the count, for a unit of one)."""
    name, values = case
    cfg = campaign_from_dict(values)
    engine = registry.get_engine(name)
    if engine.skipped_text(cfg, "sweep"):
        pytest.skip(f"{name} measures no probe or sweep points: its runs are the job's (test_a_job_run_*)")
    workload = cfg.engine_workloads[0] if engine.data_elsewhere(cfg) else cfg.workload(PLAN[name])
    runtime = engine.point_runtime_s(cfg)
    first = [point_spec(cfg, "probe", workload, t, runtime) for t in (1, 2)]
    again = [s.again(1) for s in first]
    with phases.open_campaign(cfg) as wb:
        keys = engine.storage_keys(wb, first)
        keys_again = engine.storage_keys(wb, again)
    with phases.open_campaign(cfg) as wb:
        assert engine.storage_keys(wb, first) == keys
    assert not set(keys) & set(keys_again)
    units = engine.probe_batches([1, 2])
    assert len(set(keys)) == len(units) and all(k.startswith(f"{workload.name}_") for k in keys)
    for unit in units:
        if len(unit) == 1:  # a point of its own: its id names its count
            assert keys[unit[0] - 1].startswith(f"{workload.name}_t{unit[0]:05d}_")
    assert all(k.endswith("_r1") for k in keys_again)


RECORDED = {"hammerdb": [11088, 9341]}
"""The sweep's rates of the replayed engines: HammerDB's TEST RESULT NOPM of the recorded 1- and 2-VU runs."""


def test_rows_have_the_common_schema_and_a_rerun_reuses_every_point(case, monkeypatch):
    name, values = case
    cfg = campaign_from_dict(values)
    engine = registry.get_engine(name)
    if engine.skipped_text(cfg, "sweep"):
        pytest.skip(f"{name} measures no probe or sweep points: its runs are the job's (test_a_job_run_*)")
    plan = {PLAN[name]: [1, 2]}
    phases.run_check(cfg)
    probe = phases.run_probe(cfg, progress=False)
    rows = phases.run_sweep(cfg, plan, progress=False)
    workload = cfg.engine_workloads[0]
    common = set(base_row(cfg, phase="sweep", point_id="x", engine=name, workload=workload, iodepth=1, threads=1,
                          outstanding=1, hosts=["h"], runtime_s=1, ramp_s=0, repeat=0, wall_s=0.0))
    rate, latency = engine.rate_column, engine.latency_column  # the engine's own: HammerDB's NOPM, ...
    assert common | {rate, latency, "reused"} <= set(rows.columns)
    assert list(rows["threads"]) == [1, 2] and set(rows["engine"]) == {name} and not rows["reused"].any()
    assert rows["point_id"].is_unique and (rows[rate] > 0).all() and (rows[latency] > 0).all()
    assert [p["threads"] for p in probe["points"]] == [1, 2]
    if name in RECORDED:  # a replayed engine: the recorded runs' numbers, as printed
        assert list(rows[rate]) == RECORDED[name]

    _forbid_runs(monkeypatch, engine)
    again = phases.run_sweep(cfg, plan, progress=False)
    assert again["reused"].all() and list(again["point_id"]) == list(rows["point_id"])
    assert list(again[rate]) == list(rows[rate])
    assert phases.run_probe(cfg, progress=False)["points"] == probe["points"]


TPROCC_RAMP = {1: 8305, 2: 15371, 3: 36686, 4: 50728}
"""Issue 29's probe: a real HammerDB 6.0 TPROC-C run on PostgreSQL, NOPM at 1-4 virtual users as it
printed them; the probe answered "stop rising at 1 virtual user" and the sweep ran 1."""


def test_a_rising_probe_is_never_answered_below_its_best_point(case):
    """The recorded rising series as every engine's probe (in its rate column: IOPS, HammerDB's NOPM)
    at 1-4 of its threads: still rising, and the sweep goes to 4, the highest probed."""
    name, values = case
    engine = registry.get_engine(name)
    if engine.skipped_text(campaign_from_dict(values), "sweep"):
        pytest.skip(f"{name} measures no probe or sweep points: its runs are the job's (test_a_job_run_*)")
    sweep = {k: v for k, v in values.get("sweep", {}).items() if k != "max_threads"}  # up to the probe's answer
    cfg = campaign_from_dict({**values, "probe": {**values["probe"], "max_threads": 4}, "sweep": sweep})
    workload = cfg.engine_workloads[0] if engine.data_elsewhere(cfg) else cfg.workload(PLAN[name])
    rows = [{**base_row(cfg, phase="probe", point_id=f"p{t}", engine=name, workload=workload, iodepth=1, threads=t,
                        outstanding=t, hosts=[h.name for h in cfg.hosts], runtime_s=10, ramp_s=0, repeat=0,
                        wall_s=10.0), "iops": float(rate), engine.rate_column: float(rate), engine.latency_column: 1.0}
            for t, rate in TPROCC_RAMP.items()]
    probe = phases.summarize_probe(cfg, rows)
    sat = probe["saturation"]
    assert sat["threads"] is None and sat["kind"] == "still_rising"
    assert probe["followup_sweep"]["up_to"] == 4 and max(probe["followup_sweep"]["threads"]) >= 4
    assert probe["answer"].startswith(f"No saturation found: {engine.rate_word} still rising at 4 {engine.threads_word}")


def _job(case) -> tuple[str, dict, engines.base.Engine]:
    name, values = case
    engine = registry.get_engine(name)
    if not engine.skipped_text(campaign_from_dict(values), "sweep"):
        pytest.skip(f"{name} measures probe and sweep points, not a DBA's job")
    return name, values, engine


def _no_database(*args, **kwargs):
    raise AssertionError("the database was reached although the run is stored")


def test_a_job_run_id_is_deterministic_and_apart(case):
    """A run of the job is the loop's point of phase ``sql`` at N sessions, stored as
    ``<label>_s<sessions>_<hash of label, sessions, script and database>``; another label, other
    sessions or another script is another run."""
    from flashpoc.jobs.sqlscript.measure import job_spec

    name, values, engine = _job(case)
    cfg = campaign_from_dict(values).resolved()
    with phases.open_campaign(cfg) as wb:
        (key,) = engine.storage_keys(wb, [job_spec(cfg)])
    with phases.open_campaign(cfg) as wb:
        assert engine.storage_keys(wb, [job_spec(cfg)]) == [key]
    assert re.fullmatch(r"undo-on-hdd_s0004_[0-9a-f]{10}", key)
    others = [{**values["sql_workload"], "sessions": 5}, {**values["sql_workload"], "label": "undo-on-ssd"}]
    Path(values["sql_workload"]["script"]).with_name("other.sql").write_text(JOB_SCRIPT + "COMMIT;\n")
    others.append({**values["sql_workload"], "script": str(Path(values["sql_workload"]["script"]).with_name("other.sql"))})
    for job in others:
        other = campaign_from_dict({**values, "sql_workload": job}).resolved()
        with phases.open_campaign(other) as wb:
            assert engine.storage_keys(wb, [job_spec(other)]) != [key]


def test_a_job_run_has_its_row_and_a_rerun_reuses_it_without_running(case, monkeypatch):
    from flashpoc.jobs.sqlscript.measure import TABLE_COLUMNS, run_sql_workload, sql_runs_table
    from flashpoc.oracle import db as oracle

    name, values, engine = _job(case)
    cfg = campaign_from_dict(values)
    phases.run_check(cfg)
    row = run_sql_workload(cfg)
    assert row["reused"] is False and row["label"] == "undo-on-hdd" and row["sessions"] == 4
    assert set(TABLE_COLUMNS) <= set(row) and row["elapsed_s"] > 0
    assert round(row["read_iops"], 1) == 29792.8  # the recorded snapshot pair's (AWR: 29,792.8 per second)
    stored = json.loads((Path(values["results_dir"]) / "contract" / "points" / "sql" / row["run_id"]
                         / "point.json").read_text())
    assert "reused" not in stored
    _forbid_runs(monkeypatch, engine)
    monkeypatch.setattr(oracle, "connect", _no_database)
    again = run_sql_workload(cfg)
    assert again["reused"] is True and {**again, "reused": False} == row
    assert list(sql_runs_table(cfg)["label"]) == ["undo-on-hdd"]


def test_the_safety_gate_refuses_a_write_workload_on_a_target_holding_data(case, monkeypatch, tmp_path):
    """An engine that writes the campaign's targets: the safety gate refuses the write before any
    point; one whose data lives elsewhere (:meth:`data_elsewhere`, the database): parameters that
    would have it write a target (a scratch file) are refused. Either way the target is untouched."""
    name, values = case
    engine = registry.get_engine(name)
    lun = tmp_path / "lun7.img"
    with open(lun, "wb") as handle:
        handle.truncate(16 * 1024**2)
        handle.seek(32)
        handle.write(b"ORCLDISK")  # an ASM disk header
    before = hashlib.sha256(lun.read_bytes()).hexdigest()
    if engine.data_elsewhere(campaign_from_dict(values)) is not None:
        target = {"name": "lun7", "path": str(lun), "size": "16m", "allow_write": True, "create": True}
        with pytest.raises(ParameterError, match=rf"targets.*: engine {name} writes no target"):
            campaign_from_dict({**values, "targets": [target]})
        assert hashlib.sha256(lun.read_bytes()).hexdigest() == before
        return
    values = {**{k: v for k, v in values.items() if k != "precondition"}, "targets": [{"name": "lun7", "path": str(lun), "size": "16m", "allow_write": True}],
              "workloads": [{"name": "w", "rw": "randwrite", "bs": "4k"}],
              "probe": {**values["probe"], "workload": "w"}}
    cfg = campaign_from_dict(values)
    _forbid_runs(monkeypatch, engine)
    with pytest.raises(CheckFailed, match="lun7"):
        phases.run_sweep(cfg, {"w": [1]}, progress=False)
    assert hashlib.sha256(lun.read_bytes()).hexdigest() == before
    assert not (tmp_path / "results" / cfg.campaign / "points").exists()


VERSION = {"fio": r"^\d+\.\d+", "vdbench": r"^5\.04\.06$", "hammerdb": r"^v6\.0$"}
"""What the manifest says of the engines whose check finds their version (vdbench: the kit's;
HammerDB: its banner in the recorded check)."""


def test_the_engine_version_lands_in_the_manifest(case):
    name, values = case
    cfg = campaign_from_dict(values)
    table = phases.run_check(cfg)
    manifest = json.loads((Path(values["results_dir"]) / cfg.campaign / "manifest.json").read_text())
    assert manifest["engine"] == name
    assert manifest["engine_versions"] == registry.get_engine(name).check_versions(table)
    if name in VERSION:
        hosts = [h["name"] for h in values["hosts"]]
        assert list(manifest["engine_versions"]) == hosts
        assert all(re.match(VERSION[name], v) for v in manifest["engine_versions"].values())


@pytest.mark.parametrize("stored, said", [("fio-format1", "fio-{}"), ("vdbench-format1", "{}")])
def test_points_stored_before_the_one_loop_keep_their_ids_and_are_reused(stored, said, tmp_path, monkeypatch):
    """tests/data/stored: campaigns the code before the loop stored (see PROVENANCE.md there). The
    same specs give the same ids, and the loop reuses every point without running the engine. The
    engine's version is pinned to the recorded one: a fio point's definition holds ``fio --version``
    as fio says it (``said``: 'fio-3.33'), the manifest its number."""
    root = tmp_path / "results" / stored
    shutil.copytree(DATA / "stored" / stored, root)
    manifest = json.loads((root / "manifest.json").read_text())
    cfg = campaign_from_manifest(manifest, stored)
    engine = registry.get_engine(cfg.engine)
    versions = {host: said.format(v) for host, v in manifest["engine_versions"].items()}
    wb = Workbench(cfg, CampaignStore(root), engine_versions=versions)
    _forbid_runs(monkeypatch, engine)
    for phase in ("probe", "sweep"):
        stored_rows = [r for f in sorted((root / "points" / phase).glob("*/point*.json"))
                       for r in (lambda x: x if isinstance(x, list) else [x])(json.loads(f.read_text()))]
        stored_rows.sort(key=lambda r: (r["workload"], r["threads"]))
        specs = [point_spec(cfg, phase, cfg.workload(r["workload"]), r["threads"], r["runtime_s"], r["repeat"])
                 for r in stored_rows]
        done = loop.measure(wb, specs)
        assert [p.point_id for p in done] == [r["point_id"] for r in stored_rows]
        assert all(p.reused for p in done) and [p.row["iops"] for p in done] == [r["iops"] for r in stored_rows]


def test_a_job_run_stored_before_the_loop_keeps_its_id_and_is_reused(tmp_path, monkeypatch):
    """tests/data/stored/sql-format1: a run of the DBA's job the code before the loop stored (its
    own skeleton: run id, reuse, save). On the loop the same job has the same id and its run is
    reused as stored, without connecting to the database."""
    from flashpoc.jobs.sqlscript.measure import run_sql_workload
    from flashpoc.oracle import db as oracle

    shutil.copytree(DATA / "stored" / "sql-format1", tmp_path / "results" / "sql-format1")
    (stored,) = (tmp_path / "results" / "sql-format1" / "points" / "sql").iterdir()
    (tmp_path / "job.sql").write_text(JOB_SCRIPT)
    cfg = campaign_from_dict({"campaign": "sql-format1", "engine": "sqlscript", "oracle": {"dsn": "db1:1521/pdb1"},
                              "sql_workload": {"script": str(tmp_path / "job.sql"), "sessions": 4,
                                               "label": "undo-on-hdd"},
                              "results_dir": str(tmp_path / "results")})
    monkeypatch.setattr(oracle, "connect", _no_database)
    row = run_sql_workload(cfg)
    assert row["reused"] is True and row["run_id"] == stored.name == "undo-on-hdd_s0004_c7d782e88a"
    assert (row["elapsed_s"], round(row["read_iops"], 1)) == (0.033, 29792.8)
    assert {**row, "reused": None} == {**json.loads((stored / "point.json").read_text()), "reused": None}
