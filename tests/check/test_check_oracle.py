"""Database check (flashpoc.oracle.checks): rows for a recorded facts dict and variations of it.

The facts come from tests/data/oracle/facts_slob19c_rac2node.json, built from the real AWR
report of a SLOB 2.5 run on a 2-node 19c RAC (tests/data/oracle/README.md says where every value
comes from). The run's SLOB settings are read from the same report: SCALE from the SLOB SQL text
(``v_scale``, in blocks) times ``db_block_size``, the schema count from the run directory name
(``_s256_``). Every number asserted below comes from these files or arithmetic on them.
"""

from __future__ import annotations

import copy
import json
import re

import pandas as pd
import pytest

from conftest import DATA, TESTS
from flashpoc.core.records import COLUMNS, format_bytes
from flashpoc.engines.slob.check import evaluate_slob_database as evaluate_database_facts
from flashpoc.oracle.checks import facts_text
from flashpoc.params import slob_size_bytes

FACTS_FILE = DATA / "oracle" / "facts_slob19c_rac2node.json"
RUN_DIR = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
AWR_TXT = RUN_DIR / "awr.txt"
SLOB_CONF = DATA / "slob" / "slob_conf" / "slob2.5_update3_scale8G_wu16.slob.conf"
GIB = 1024**3
MIB = 1024**2

ORDER = ["database", "rac", "cdb", "filesystemio_options", "disk_asynch_io", "buffer cache",
         "db_writer_processes", "statistics", "direct nfs"]


def load_facts() -> dict:
    return json.loads(FACTS_FILE.read_text())


def awr_text() -> str:
    return AWR_TXT.read_text()


def run_schemas() -> int:
    return int(re.search(r"_s(\d+)_", RUN_DIR.name).group(1))


def run_block_size() -> int:
    return int(re.search(r"^db_block_size\s+(\d+)", awr_text(), re.M).group(1))


def run_scale_bytes() -> int:
    scales = set(re.findall(r"v_scale PLS_INTEGER := '(\d+)'", awr_text()))
    assert len(scales) == 1, scales
    return int(scales.pop()) * run_block_size()


def evaluate(facts: dict, **kwargs) -> dict[str, dict]:
    kwargs.setdefault("schemas", run_schemas())
    kwargs.setdefault("scale_bytes", run_scale_bytes())
    rows = evaluate_database_facts(facts, **kwargs)
    assert all(list(row) == COLUMNS for row in rows)
    by_check = {row["check"]: row for row in rows}
    assert len(by_check) == len(rows), "check names are unique"
    return by_check


def gib(value: float) -> str:
    return f"{value / GIB:.1f} GiB"


# --- the recorded facts match the report they come from ------------------------------------


def test_recorded_facts_match_the_awr_report():
    facts = load_facts()
    text = awr_text()
    header = re.search(r"^(\w+)\s+(\d+)\s+\w+\s+PRIMARY\s+EE\s+(\S+)\s+(YES|NO)\s+(YES|NO)$", text, re.M)
    assert header.groups() == (facts["db_name"], str(facts["dbid"]), facts["version"],
                               "YES" if facts["rac"] else "NO", "YES" if facts["cdb"] else "NO")
    instance = re.search(r"^(\w+)\s+(\d+) \d\d-\w{3}-\d\d \d\d:\d\d$", text, re.M)
    assert instance.groups() == (facts["instance_name"], str(facts["instance_number"]))
    assert re.search(r"^Begin Snap:.*\s(\d+)$", text, re.M).group(1) == str(facts["instance_count"])
    assert re.search(r"^(\S+)\s+Linux x86 64-bit", text, re.M).group(1) == facts["host_name"]
    assert re.search(r"^sga_target\s+(\d+)$", text, re.M).group(1) == facts["parameters"]["sga_target"]
    for name, value in facts["parameters"].items():  # the others are not printed: defaults
        assert (value is None) == (re.search(rf"^{name}\s", text, re.M) is None)
    for group in facts["asm_diskgroups"]:  # the control files are in both disk groups
        assert re.search(rf"^control_files\s+\+{group['name']}/", text, re.M)
    users = {row["username"] for row in facts["slob_schemas"]}
    assert users == {f"USER{n}" for n in range(1, run_schemas() + 1)}
    assert set(re.findall(r"^(USER\d+)\s+IOPS$", text, re.M)) <= users
    assert {row["segment_bytes"] for row in facts["slob_schemas"]} == {run_scale_bytes()}


# --- the recorded facts --------------------------------------------------------------------


def test_recorded_facts_all_pass():
    facts = load_facts()
    schemas, scale = run_schemas(), run_scale_bytes()
    rows = evaluate(facts, statistics_type="awr")
    assert list(rows)[:len(ORDER)] == ORDER
    asm_checks = [f"asm {g['name']}" for g in facts["asm_diskgroups"]]
    assert list(rows)[len(ORDER):] == asm_checks + ["slob schemas", "slob schema size", "slob data"]
    assert {row["status"] for row in rows.values()} == {"pass"}
    df = pd.DataFrame(list(rows.values()), columns=COLUMNS)
    assert len(df) == len(rows)

    assert rows["database"]["value"] == facts["version"]
    assert f"{facts['db_name']} (DBID {facts['dbid']})" in rows["database"]["detail"]
    assert facts["instance_name"] in rows["database"]["detail"]
    assert rows["rac"]["value"] == f"{facts['instance_count']} instances"
    assert rows["cdb"]["value"] == "no"

    # filesystemio_options is not set, but the data files are in ASM
    assert rows["filesystemio_options"]["value"] == "not set"
    assert "ASM" in rows["filesystemio_options"]["detail"]
    assert ", ".join(g["name"] for g in facts["asm_diskgroups"]) in rows["filesystemio_options"]["detail"]
    assert rows["disk_asynch_io"]["value"] == "not set"
    assert "default TRUE" in rows["disk_asynch_io"]["detail"]

    # buffer cache: sga_target (db_cache_size not set) against 256 schemas x SCALE
    sga = int(facts["parameters"]["sga_target"])
    data = schemas * scale
    cache = rows["buffer cache"]
    assert cache["value"] == gib(sga) == "3.0 GiB"
    assert "upper bound" in cache["detail"]
    assert f"{sga / data * 100:.1f}% of the SLOB data ({gib(data)} = {schemas} schemas" in cache["detail"]
    assert format_bytes(scale) in cache["detail"]

    assert rows["db_writer_processes"]["value"] == "default"
    assert rows["statistics"]["value"] == "awr"
    assert "Diagnostics Pack is enabled" in rows["statistics"]["detail"]
    assert rows["direct nfs"]["value"] == str(facts["dnfs_server_count"])
    assert "not in use" in rows["direct nfs"]["detail"]
    for check, group in zip(asm_checks, facts["asm_diskgroups"], strict=True):
        assert rows[check]["value"] == group["state"]
        assert "size unknown" in rows[check]["detail"]

    assert rows["slob schemas"]["value"] == f"{schemas} of {schemas}"
    assert rows["slob schemas"]["detail"] == f"USER1..USER{schemas} exist"
    assert rows["slob schema size"]["value"] == f"{schemas} of {schemas}"
    total = sum(row["segment_bytes"] for row in facts["slob_schemas"])
    assert rows["slob data"]["value"] == gib(total) == gib(data)
    assert f"expected about {gib(data)} = {schemas} x {format_bytes(scale)} SCALE" in rows["slob data"]["detail"]


def test_without_slob_settings():
    facts = load_facts()
    rows = evaluate(facts, schemas=None, scale_bytes=None)
    assert rows["buffer cache"]["status"] == "warn"
    assert "SLOB data size is unknown" in rows["buffer cache"]["detail"]
    assert rows["statistics"]["value"] == facts["snapshot_method"]
    assert "not given: AWR snapshots will be taken" in rows["statistics"]["detail"]
    count = len(facts["slob_schemas"])
    summary = rows["slob schemas"]
    assert (summary["value"], summary["status"]) == (str(count), "pass")
    assert f"USER1..USER{count}" in summary["detail"]
    assert gib(sum(row["segment_bytes"] for row in facts["slob_schemas"])) in summary["detail"]
    assert "slob schema size" not in rows and "slob data" not in rows


def test_scan_table_counts_in_the_expected_size():
    scan = slob_size_bytes(re.search(r"^SCAN_TABLE_SZ=(\S+)", SLOB_CONF.read_text(), re.M).group(1))
    rows = evaluate(load_facts(), scan_table_bytes=scan)
    per_schema = run_scale_bytes() + scan
    assert (f"expected about {gib(run_schemas() * per_schema)} = {run_schemas()} x "
            f"{format_bytes(per_schema)} SCALE + SCAN_TABLE_SZ") in rows["slob data"]["detail"]


# --- one value changed -----------------------------------------------------------------------


def test_filesystemio_options_without_asm():
    facts = load_facts()
    facts["asm_diskgroups"] = []
    rows = evaluate(facts)
    row = rows["filesystemio_options"]
    assert (row["value"], row["status"]) == ("not set", "warn")
    assert "OS page cache" in row["detail"] and "filesystemio_options=SETALL" in row["detail"]
    assert rows["asm"] == {"host": "database", "check": "asm", "value": "none", "unit": None, "status": "pass",
                           "detail": "no ASM (file system or raw devices)"}

    facts["parameters"]["filesystemio_options"] = "ASYNCH"
    row = evaluate(facts)["filesystemio_options"]
    assert (row["value"], row["status"]) == ("ASYNCH", "warn")
    assert row["detail"].startswith("ASYNCH: without SETALL")

    facts["parameters"]["filesystemio_options"] = "setall"
    assert evaluate(facts)["filesystemio_options"]["status"] == "pass"


def test_filesystemio_options_not_setall_on_asm_passes():
    facts = load_facts()
    facts["parameters"]["filesystemio_options"] = "ASYNCH"
    row = evaluate(facts)["filesystemio_options"]
    assert (row["value"], row["status"]) == ("ASYNCH", "pass")
    assert "ASM" in row["detail"]


def test_disk_asynch_io():
    facts = load_facts()
    facts["parameters"]["disk_asynch_io"] = "FALSE"
    row = evaluate(facts)["disk_asynch_io"]
    assert (row["value"], row["status"]) == ("FALSE", "warn")
    assert "disk_asynch_io=TRUE" in row["detail"]
    facts["parameters"]["disk_asynch_io"] = "TRUE"
    assert evaluate(facts)["disk_asynch_io"]["status"] == "pass"


def test_no_diagnostics_pack_with_awr_fails():
    facts = load_facts()
    facts["parameters"]["control_management_pack_access"] = "NONE"
    row = evaluate(facts, statistics_type="awr")["statistics"]
    assert (row["value"], row["status"]) == ("awr", "fail")
    assert "AWR needs the Diagnostics Pack" in row["detail"]
    assert "database_statistics_type: statspack" in row["detail"]
    assert "control_management_pack_access=NONE" in row["detail"]

    row = evaluate(facts, statistics_type="statspack")["statistics"]
    assert (row["value"], row["status"]) == ("statspack", "pass")
    assert "Statspack must be installed" in row["detail"]

    facts["snapshot_method"] = "statspack"
    row = evaluate(facts)["statistics"]
    assert (row["value"], row["status"]) == ("statspack", "pass")
    assert "Statspack snapshots will be taken" in row["detail"]


def test_diagnostics_pack_parameter_enables_awr():
    facts = load_facts()
    facts["parameters"]["control_management_pack_access"] = "DIAGNOSTIC+TUNING"
    row = evaluate(facts, statistics_type="awr")["statistics"]
    assert row["status"] == "pass"
    assert "control_management_pack_access=DIAGNOSTIC+TUNING" in row["detail"]


def test_bad_statistics_type():
    with pytest.raises(ValueError, match="statistics_type"):
        evaluate(load_facts(), statistics_type="ash")


def test_fewer_schemas_than_asked():
    facts = load_facts()
    schemas = run_schemas()
    rows = evaluate(facts, schemas=schemas + 1)
    row = rows["slob schemas"]
    assert (row["value"], row["status"]) == (f"{schemas} of {schemas + 1}", "fail")
    assert f"USER{schemas + 1}" in row["detail"]
    assert f"run SLOB's setup.sh TABLESPACE {schemas + 1}" in row["detail"]
    assert rows["slob data"]["value"] == gib(schemas * run_scale_bytes())

    facts = load_facts()
    dropped = [row for row in facts["slob_schemas"] if row["username"] == f"USER{schemas}"]
    facts["slob_schemas"].remove(dropped[0])
    row = evaluate(facts)["slob schemas"]
    assert (row["value"], row["status"]) == (f"{schemas - 1} of {schemas}", "fail")
    assert f"(USER{schemas})" in row["detail"]


def test_fewer_schemas_used_than_loaded():
    schemas = run_schemas()
    rows = evaluate(load_facts(), schemas=schemas // 2)
    row = rows["slob schemas"]
    assert (row["value"], row["status"]) == (f"{schemas // 2} of {schemas // 2}", "pass")
    assert f"{schemas - schemas // 2} more SLOB schemas exist" in row["detail"]
    assert rows["slob data"]["value"] == gib(schemas // 2 * run_scale_bytes())


def test_small_schemas_warn():
    facts = load_facts()
    scale = run_scale_bytes()
    by_name = {row["username"]: row for row in facts["slob_schemas"]}
    small = [1, 2, 3, 4, 5, 6]
    for n in small:
        by_name[f"USER{n}"]["segment_bytes"] = scale // 2
    rows = evaluate(facts)
    row = rows["slob schema size"]
    assert (row["value"], row["status"]) == (f"{len(small)} of {run_schemas()} small", "warn")
    assert row["detail"].startswith(", ".join(f"USER{n} ({format_bytes(scale // 2)})" for n in small[:5]))
    assert f"USER{small[5]} " not in row["detail"] and "and 1 more" in row["detail"]
    assert f"less than 90% of SCALE {format_bytes(scale)}" in row["detail"]
    total = sum(row["segment_bytes"] for row in facts["slob_schemas"])
    assert rows["slob data"]["value"] == gib(total)

    # exactly 90% of SCALE is enough
    for n in small:
        by_name[f"USER{n}"]["segment_bytes"] = scale * 9 // 10 + 1
    assert evaluate(facts)["slob schema size"]["status"] == "pass"


def test_big_cache_warns():
    facts = load_facts()
    data = run_schemas() * run_scale_bytes()
    tenth = -(-data // 10)  # the smallest cache of at least 10% of the data
    facts["parameters"]["db_cache_size"] = str(tenth)
    row = evaluate(facts)["buffer cache"]
    assert (row["value"], row["status"]) == (gib(tenth), "warn")
    assert f"db_cache_size {gib(tenth)} is 10.0% of the SLOB data" in row["detail"]
    assert "reads will hit the cache; shrink db_cache_size" in row["detail"]
    assert "grow SCALE" in row["detail"]

    facts["parameters"]["db_cache_size"] = str(tenth - 1)
    row = evaluate(facts)["buffer cache"]
    assert row["status"] == "pass" and row["detail"].startswith("db_cache_size")


def test_big_sga_target_warns_as_upper_bound():
    facts = load_facts()
    data = run_schemas() * run_scale_bytes()
    facts["parameters"]["sga_target"] = str(data // 5)
    row = evaluate(facts)["buffer cache"]
    assert row["status"] == "warn"
    assert "20.0% of the SLOB data" in row["detail"] and "reads may hit the cache" in row["detail"]


def test_unknown_cache():
    facts = load_facts()
    facts["parameters"]["sga_target"] = "0"
    row = evaluate(facts)["buffer cache"]
    assert (row["value"], row["status"]) == ("unknown", "warn")
    assert "set db_cache_size" in row["detail"]


def test_db_writer_processes_value():
    facts = load_facts()
    facts["parameters"]["db_writer_processes"] = str(facts["instance_count"])
    row = evaluate(facts)["db_writer_processes"]
    assert (row["value"], row["status"]) == (str(facts["instance_count"]), "pass")


def test_asm_states_and_sizes():
    facts = load_facts()
    data = run_schemas() * run_scale_bytes()
    group = facts["asm_diskgroups"][-1]
    check = f"asm {group['name']}"
    group.update(state="MOUNTED", type="EXTERN", total_mb=2 * data // MIB, free_mb=data // MIB)
    row = evaluate(facts)[check]
    assert (row["value"], row["status"]) == ("MOUNTED", "pass")
    assert row["detail"] == f"EXTERN redundancy, {gib(2 * data)} total, {gib(data)} free (50.0% free)"

    group["state"] = "DISMOUNTED"
    row = evaluate(facts)[check]
    assert (row["value"], row["status"]) == ("DISMOUNTED", "warn")
    assert f"ALTER DISKGROUP {group['name']} MOUNT" in row["detail"]

    group["state"] = None
    row = evaluate(facts)[check]
    assert (row["value"], row["status"]) == ("unknown", "warn")


def test_cdb_rows():
    facts = load_facts()
    facts["cdb"], facts["con_name"] = True, "CDB$ROOT"
    row = evaluate(facts)["cdb"]
    assert (row["value"], row["status"]) == ("CDB$ROOT", "warn")
    assert "connect to the PDB's service" in row["detail"]
    facts["con_name"] = "SLOBPDB"
    row = evaluate(facts)["cdb"]
    assert (row["value"], row["status"]) == ("PDB SLOBPDB", "pass")


def test_single_instance_and_dnfs():
    facts = load_facts()
    facts["instance_count"], facts["rac"] = 1, False
    assert evaluate(facts)["rac"]["value"] == "no"
    facts = load_facts()
    facts["dnfs_server_count"], facts["dnfs"] = facts["instance_count"], True  # any positive count
    row = evaluate(facts)["direct nfs"]
    assert (row["value"], row["status"]) == (str(facts["instance_count"]), "pass")
    assert row["detail"].startswith("Direct NFS in use")


def test_evaluation_does_not_change_the_facts():
    facts = load_facts()
    before = copy.deepcopy(facts)
    evaluate(facts, statistics_type="awr")
    assert facts == before


# --- summary line ------------------------------------------------------------------------------


def test_facts_text():
    facts = load_facts()
    text = facts_text(facts)
    assert text.startswith(f"**{facts['db_name']}** Oracle {facts['version']}")
    assert f"RAC, {facts['instance_count']} instances (facts from {facts['instance_name']})" in text
    assert "non-CDB" in text
    assert "ASM: " + ", ".join(g["name"] for g in facts["asm_diskgroups"]) in text
    assert "Direct NFS not in use" in text and text.endswith("AWR")
    assert "\n" not in text

    facts.update(cdb=True, con_name="SLOBPDB", asm_diskgroups=[], snapshot_method="statspack")
    text = facts_text(facts)
    assert "CDB, container SLOBPDB" in text and "no ASM" in text and text.endswith("Statspack")


# --- every engine: the check connects when oracle: is set ---------------------------------------


def _fio_campaign(tmp_path, oracle):
    from conftest import quick_campaign
    from flashpoc.params import campaign_from_dict

    return campaign_from_dict(quick_campaign(tmp_path, oracle=oracle))


def test_a_fio_campaign_with_oracle_checks_the_database(tmp_path, monkeypatch):
    """engine: fio with an oracle: block: the whole check (real fio facts on this machine) connects
    to the database (tests/replay/oracle_replay.py answers with the recorded facts) and adds its
    rows; the SLOB rows (buffer cache against the SLOB data, schemas) are not a fio campaign's."""
    import sys

    from conftest import require_fio
    from flashpoc import phases
    from flashpoc.oracle import db as oracle

    require_fio()
    sys.path.insert(0, str(TESTS / "replay"))
    from oracle_replay import ReplayDatabase

    db = ReplayDatabase(FACTS_FILE, DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json")
    monkeypatch.setattr(oracle, "connect", db.connect)
    facts = load_facts()
    table = phases.run_check(_fio_campaign(tmp_path, {"dsn": "db1:1521/p30sdb", "user": "system"}))
    rows = {r.check: r for r in table[table["host"] == "database"].itertuples()}
    assert list(rows) == ORDER[:5] + ["db_writer_processes", "statistics", "direct nfs"] + [
        f"asm {g['name']}" for g in facts["asm_diskgroups"]] + ["log_buffer", "sga_max_size", "awr_pdb_autoflush_enabled"]
    assert rows["sga_max_size"].value == facts["parameters"]["sga_max_size"] == "21474836480"
    assert rows["database"].value == facts["version"] and facts["db_name"] in rows["database"].detail
    assert rows["rac"].value == f"{facts['instance_count']} instances"
    assert rows["statistics"].value == "awr" and "sql_workload" in rows["statistics"].detail
    assert {r.status for r in rows.values()} == {"pass"}
    assert db.log and db.open_connections == 0


def test_a_fio_campaign_whose_database_is_unreachable_fails_the_check(tmp_path, monkeypatch):
    """The real connection path against a closed port: one fail row naming the DSN, quickly; and a
    password variable that is not set fails before any network I/O."""
    from conftest import require_fio
    from ssh_server import free_port
    from flashpoc.engines import checks
    from flashpoc import phases

    require_fio()
    port = free_port()
    dsn = f"127.0.0.1:{port}/pdb1"
    cfg = _fio_campaign(tmp_path, {"dsn": dsn, "user": "system", "connect_timeout_s": 2})
    monkeypatch.delenv("FLASHPOC_ORACLE_PASSWORD", raising=False)
    row = checks.check_database(cfg)[0]
    assert (row["check"], row["status"]) == ("database", "fail") and "FLASHPOC_ORACLE_PASSWORD" in row["detail"]
    monkeypatch.setenv("FLASHPOC_ORACLE_PASSWORD", "not-the-real-one")
    table = phases.run_check(cfg)
    failed = table[table["status"] == "fail"]
    assert list(failed["check"]) == ["database"] and dsn in failed["detail"].iloc[0]
    assert "not-the-real-one" not in table.to_string()
