"""The database's storage path in the check, for every database campaign (flashpoc.hosts.dbstorage,
flashpoc.hosts.storage): the paths the database names (v$datafile / v$tempfile outside ASM,
v$asm_disk, PostgreSQL's data directory), read on its host with the target facts.

Oracle cannot run here: a SLOB campaign's database is the Oracle REPLAY DOUBLE answering flashpoc's
SQL with recorded rows. Its datafile names are those a real 11.2.0.4 report's File IO Stats print
(tests/data/oracle/facts_xydb_11.2.0.4.json); no public v$asm_disk output exists to record, so ASM
disks are tested only by their documented path forms. The transports this machine lacks are read
from sysfs/procfs entries captured by node_exporter (tests/data/sysfs); a real PostgreSQL on a loop
device is tests/engines/hammerdb/test_hammerdb_storage_real.py.
"""

from __future__ import annotations

import json
import sys

from conftest import DATA, TESTS
from flashpoc.campaign import environment
from flashpoc import phases
from flashpoc.hosts.storage import oracle_paths, oracle_unread, postgresql_paths
from flashpoc.params import HostParams, campaign_from_dict
from flashpoc.oracle import db as oracle
from flashpoc.hosts.facts import collect_host_facts
from flashpoc.hosts.host import LocalHost
from flashpoc.campaign.session import manifest_params
from test_environment import captured, run_functions  # noqa: F401  (the captured sysfs and procfs trees)
from test_phases_slob import RAC, slob_campaign

sys.path.insert(0, str(TESTS / "replay"))
from oracle_replay import ReplayDatabase  # noqa: E402

XYDB = DATA / "oracle" / "facts_xydb_11.2.0.4.json"
RAC_FACTS = DATA / "oracle" / "facts_slob19c_rac2node.json"
AWR_ROWS = DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json"
DIRECTORIES = ["/home/loie/db/oracle/oradata/dev", "/u01/app/oracle/oradata/xydb"]


def test_the_paths_an_oracle_database_names():
    """The directories of the recorded data files (File IO Stats of the xydb report: 18 files in two
    directories); ASM disks by their documented path forms (a device, ASMLib's ORCL:, AFD:)."""
    assert oracle_paths(json.loads(XYDB.read_text())) == [{"path": d, "role": "datafiles"} for d in DIRECTORIES]
    asm = {"asm_disks": [{"diskgroup": "DATA", "path": "/dev/mapper/asm1"}, {"diskgroup": "DATA", "path": "ORCL:DISK2"},
                         {"diskgroup": "FRA", "path": "AFD:FRA1"}],
           "datafile_names": ["+DATA/ORCL/DATAFILE/users.260.1", "/u02/temp/temp01.dbf"]}
    assert oracle_paths(asm) == [{"path": "/dev/mapper/asm1", "role": "ASM disk (DATA)"},
                                 {"path": "/dev/oracleasm/disks/DISK2", "role": "ASM disk (DATA)"},
                                 {"path": "/dev/oracleafd/disks/FRA1", "role": "ASM disk (FRA)"},
                                 {"path": "/u02/temp", "role": "datafiles"}]
    rac = json.loads(RAC_FACTS.read_text())  # in ASM; the recording has no v$asm_disk row
    assert oracle_paths(rac) == [] and "disk groups FRA, P30S" in oracle_unread(rac)
    assert postgresql_paths("/var/lib/postgresql/15/main") == [
        {"path": "/var/lib/postgresql/15/main", "role": "data directory"},
        {"path": "/var/lib/postgresql/15/main/pg_wal", "role": "WAL"}]
    assert postgresql_paths(None) == [] == postgresql_paths("relative/dir")


def test_rows_conditions_and_text_of_captured_devices(captured):  # noqa: F811
    """Datafiles on the captured NFSv4 mount and a WAL on the captured dm-multipath device with one
    path of four offline, on hosts whose fastest link is 1 Gb/s: each says how it is reached."""
    facts = run_functions(*captured, [
        "printf 'target.0.path=/mnt/nfs/test\\ntarget.0.type=directory\\n'", "mount_facts target.0 /mnt/nfs/test",
        "printf 'target.1.path=/dev/mapper/mpatha\\ntarget.1.type=block\\n'", "transport_facts target.1 dm-5"])
    paths = [{"path": "/mnt/nfs/test", "role": "datafiles"}, {"path": "/dev/mapper/mpatha", "role": "WAL"}]
    section = environment.storage_section("db1", paths, facts)
    rows = {r["check"]: r for r in environment.storage_rows(section)}
    nfs = rows["database datafiles /mnt/nfs/test: transport"]
    assert (nfs["value"], nfs["status"]) == ("NFS v4.0", "pass") and "192.168.1.1:/srv/test" in nfs["detail"]
    paths_row = rows["database WAL /dev/mapper/mpatha: paths"]
    assert (paths_row["value"], paths_row["status"]) == ("3 of 4", "warn")
    network = rows["database network"]
    assert (network["value"], network["status"]) == ("1 Gb/s", "warn") and "NFS over links" in network["detail"]
    assert environment.storage_conditions(section) == {
        "database transport": "NFS v4.0, SCSI", "database multipath paths": "3 of 4 live",
        "database file system": "nfs4", "database network": "fastest link 1 Gb/s"}
    assert environment.storage_text(section) == (
        "on db1: datafiles /mnt/nfs/test: NFS v4.0, nfs4 on 192.168.1.1:/srv/test; WAL /dev/mapper/mpatha: SCSI, "
        "dm mpathA, 3 of 4 paths live; fastest link 1 Gb/s")


def slob_with(tmp_path, monkeypatch, facts, **overrides):
    """A SLOB campaign on the replay doubles: runit.sh's, and the database's answering with ``facts``."""
    monkeypatch.setattr(oracle, "connect", ReplayDatabase(facts, AWR_ROWS).connect)
    cfg, _ = slob_campaign(tmp_path, {1: [RAC]}, oracle={"dsn": "db1:1521/xydb", "user": "system"}, **overrides)
    table = phases.run_check(cfg)
    manifest = json.loads((tmp_path / "results" / cfg.campaign / "manifest.json").read_text())
    return cfg, table, manifest


def test_a_slob_campaign_reads_its_datafiles_directories_on_the_db_host(tmp_path, monkeypatch):
    """The recorded data files' directories are read on the DB host (this machine, which has
    neither): each is said missing there, in the check, the manifest and the report's conditions."""
    cfg, table, manifest = slob_with(tmp_path, monkeypatch, XYDB)
    rows = table[table["check"].str.startswith("database datafiles")]
    assert list(rows["check"]) == [f"database datafiles {d}" for d in DIRECTORIES]
    assert set(rows["host"]) == {"db1"} and set(rows["value"]) == {"missing"} and set(rows["status"]) == {"warn"}
    assert "is not on db1: name the database's own host in database.host" in rows.iloc[0]["detail"]
    storage = manifest["environment"]["database_storage"]
    assert storage["host"] == "db1" and [d["path"] for d in storage["devices"]] == DIRECTORIES
    assert {d["type"] for d in storage["devices"]} == {"missing"}
    lines = environment.condition_lines(cfg, manifest)
    assert lines[-1] == (f"- **Database storage** (the devices under the database's data, read on its host): on db1: "
                         f"datafiles {DIRECTORIES[0]}: not on db1; datafiles {DIRECTORIES[1]}: not on db1.")


def test_a_slob_campaign_in_asm_without_its_disks_says_what_is_missing(tmp_path, monkeypatch):
    """The 19c RAC SLOB run's database keeps its data in ASM; v$asm_disk is not recorded (no public
    output exists): one warning says so and what would list the disks."""
    _, table, manifest = slob_with(tmp_path, monkeypatch, RAC_FACTS)
    (row,) = table[table["check"] == "database storage"].itertuples()
    assert (row.host, row.value, row.status) == ("db1", "not read", "warn")
    assert "disk groups FRA, P30S" in row.detail and "v$asm_disk" in row.detail
    assert manifest["environment"]["database_storage"]["devices"] == []


def test_without_a_known_database_host_the_check_says_to_name_it(tmp_path, monkeypatch):
    """A DBA's job reaches the database over SQL only: without database.host nothing is read, and the
    check says what to set; with it, the recorded directories are read there."""
    monkeypatch.setattr(oracle, "connect", ReplayDatabase(XYDB, AWR_ROWS).connect)
    (tmp_path / "job.sql").write_text("SELECT 1 FROM dual;\n")
    values = {"campaign": "job", "engine": "sqlscript", "oracle": {"dsn": "db1:1521/xydb"},
              "sql_workload": {"script": str(tmp_path / "job.sql"), "sessions": 2, "label": "a"},
              "results_dir": str(tmp_path / "results")}
    table = phases.run_check(campaign_from_dict(values))
    (row,) = table[table["check"] == "database storage"].itertuples()
    assert (row.host, row.status) == ("(campaign)", "warn") and "database.host" in row.detail
    values["database"] = {"host": {"name": "db9", "address": "localhost"}}
    table = phases.run_check(campaign_from_dict(values))
    rows = table[table["check"].str.startswith("database datafiles")]
    assert list(rows["host"]) == ["db9", "db9"] and set(rows["value"]) == {"missing"}


def test_database_host_defines_no_point(tmp_path):
    """database.host names where the check reads; it defines no point: a SLOB campaign's measurement
    hash (its points' ids) with it is the one without it."""
    cfg, _ = slob_campaign(tmp_path, {1: [RAC]})
    values = {**manifest_params(cfg), "database": {"host": {"name": "db9", "address": "10.0.0.9"}}}
    with_host = campaign_from_dict(values)
    assert with_host.database.host.address == "10.0.0.9" and with_host.measurement_hash() == cfg.measurement_hash()


def test_the_database_s_paths_are_read_without_the_data_safety_probes(tmp_path):
    """flashpoc never writes the database's devices: their facts skip what a write would destroy and
    who holds them open (on a busy database host, a scan of every process's files per path)."""
    data = tmp_path / "datafile.dbf"
    data.write_bytes(b"\0" * 8192)
    host = LocalHost(HostParams(name="db1"))
    target = collect_host_facts(host, [str(data)])["targets"][0]
    lean = collect_host_facts(host, [str(data)], data_safety=False)["targets"][0]
    assert target["header_hex"] == "00" * 8192 and target["open_by"] == "none"
    assert lean["header_hex"] is None and lean["open_by"] is None and lean["mounted"] is None
    assert (lean["type"], lean["fstype"], lean["device"]) == (target["type"], target["fstype"], target["device"])
