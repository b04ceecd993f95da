"""slob.conf planning: golden seed files, the real file round-trips, validation, the password rule."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess

import pytest

from conftest import DATA
from flashpoc.core.errors import ParameterError
from flashpoc.engines.slob.plan import (
    REDACTED, SEED_8020, SEED_SCAN, parse_slob_conf, render_slob_conf, slob_conf_from_dict,
)

GOLDEN = DATA / "golden"
FIXTURE = DATA / "slob" / "slob_conf" / "slob2.5_update3_scale8G_wu16.slob.conf"
SECRET = "Tiger$Secret-42"


@pytest.mark.parametrize("conf,name", [(SEED_8020, "seed_8020"), (SEED_SCAN, "seed_scan")])
def test_seed_golden(conf, name):
    assert render_slob_conf(conf) == (GOLDEN / f"{name}.slob.conf").read_text()


def test_seed_values_from_engines_md():
    assert parse_slob_conf((GOLDEN / "seed_8020.slob.conf").read_text()) == {
        "UPDATE_PCT": "20", "SCAN_PCT": "0", "RUN_TIME": "600", "WORK_LOOP": "0", "SCALE": "75G",
        "SCAN_TABLE_SZ": "1M", "WORK_UNIT": "64", "REDO_STRESS": "LITE", "LOAD_PARALLEL_DEGREE": "12"}
    scan = parse_slob_conf((GOLDEN / "seed_scan.slob.conf").read_text())
    assert (scan["UPDATE_PCT"], scan["SCAN_PCT"], scan["SCAN_TABLE_SZ"]) == ("0", "100", "50G")


def test_parse_real_fixture():
    values = parse_slob_conf(FIXTURE.read_text())
    assert values == {
        "UPDATE_PCT": "3", "SCAN_PCT": "0", "RUN_TIME": "300", "WORK_LOOP": "0", "SCALE": "8G",
        "SCAN_TABLE_SZ": "1M", "WORK_UNIT": "16", "REDO_STRESS": "LITE",
        "LOAD_PARALLEL_DEGREE": "4", "THREADS_PER_SCHEMA": "1", "DATABASE_STATISTICS_TYPE": "awr",
        "ADMIN_SQLNET_SERVICE": "p30sdb", "SQLNET_SERVICE_BASE": "p30sdb",
        "DBA_PRIV_USER": "system", "HOT_SCHEMA_FREQUENCY": "0", "THINK_TM_FREQUENCY": "0",
        "THINK_TM_MIN": ".1", "THINK_TM_MAX": ".5"}


def test_render_parse_fixture_keeps_every_key_value():
    original = parse_slob_conf(FIXTURE.read_text())
    conf = slob_conf_from_dict(original)
    rendered = parse_slob_conf(render_slob_conf(conf))
    assert list(rendered) == list(original)
    for key, value in original.items():
        if key in ("THINK_TM_MIN", "THINK_TM_MAX"):  # .1 is written 0.1: same number
            assert float(rendered[key]) == float(value), key
        else:
            assert rendered[key] == value, key
    assert slob_conf_from_dict(rendered) == conf


@pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX shell")
def test_rendered_file_is_shell_and_reads_password_from_environment(tmp_path):
    conf = dataclasses.replace(slob_conf_from_dict(parse_slob_conf(FIXTURE.read_text())),
                               sysdba_passwd_env="FLASHPOC_SYSDBA_PASSWD")
    path = tmp_path / "slob.conf"
    path.write_text(render_slob_conf(conf))
    script = f'. "{path}" && echo "$SYSDBA_PASSWD|$SCALE|$THINK_TM_MIN|$ADMIN_SQLNET_SERVICE"'
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True,
                          env={"FLASHPOC_SYSDBA_PASSWD": SECRET, "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{SECRET}|8G|0.1|p30sdb"
    unset = subprocess.run(["sh", "-c", script], capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin"})
    assert unset.returncode != 0 and "FLASHPOC_SYSDBA_PASSWD" in unset.stderr


def test_password_reference_rendered_and_parsed():
    conf = dataclasses.replace(SEED_8020, sysdba_passwd_env="ORA_PW")
    text = render_slob_conf(conf)
    assert 'SYSDBA_PASSWD="${ORA_PW:?set ORA_PW on the DB host}"' in text
    assert "sourced" in text
    assert slob_conf_from_dict(parse_slob_conf(text)) == conf
    for ref in ('"${ORA_PW}"', "$ORA_PW", "'${ORA_PW}'"):
        assert slob_conf_from_dict({**parse_slob_conf(render_slob_conf(SEED_8020)),
                                    "SYSDBA_PASSWD": parse_slob_conf(f"X={ref}\n")["X"]}
                                   ).sysdba_passwd_env == "ORA_PW"


def test_literal_password_never_echoed():
    base = parse_slob_conf(render_slob_conf(SEED_8020))
    with pytest.raises(ParameterError) as info:
        slob_conf_from_dict({**base, "SYSDBA_PASSWD": SECRET})
    assert SECRET not in str(info.value) and "SYSDBA_PASSWD" in str(info.value)
    with pytest.raises(ParameterError) as info:
        dataclasses.replace(SEED_8020, sysdba_passwd_env=SECRET)
    assert SECRET not in str(info.value)
    # reading a user's file with a literal password redacts it, then refuses it
    user = FIXTURE.read_text() + f'SYSDBA_PASSWD="{SECRET}"\n'
    values = parse_slob_conf(user)
    assert values["SYSDBA_PASSWD"] == REDACTED and SECRET not in repr(values)
    with pytest.raises(ParameterError) as info:
        slob_conf_from_dict(values)
    assert SECRET not in str(info.value)
    with pytest.raises(ParameterError) as info:
        parse_slob_conf(f"SYSDBA_PASSWD={SECRET} ; rm -rf /\n")
    assert SECRET not in str(info.value)


@pytest.mark.parametrize("change,match", [
    ({"update_pct": 101}, "UPDATE_PCT"),
    ({"update_pct": 60, "scan_pct": 50, "scan_table_sz": "1G"}, r"UPDATE_PCT \+ SCAN_PCT"),
    ({"scan_pct": 10, "scan_table_sz": None}, "SCAN_TABLE_SZ"),
    ({"redo_stress": "MEDIUM"}, "REDO_STRESS"),
    ({"scale": "75X"}, "SCALE"),
    ({"scale": "0"}, "SCALE"),
    ({"run_time": 0}, "never end"),
    ({"run_time": -5}, "RUN_TIME"),
    ({"work_unit": 0}, "WORK_UNIT"),
    ({"load_parallel_degree": 0}, "LOAD_PARALLEL_DEGREE"),
    ({"threads_per_schema": 0}, "THREADS_PER_SCHEMA"),
    ({"database_statistics_type": "ash"}, "DATABASE_STATISTICS_TYPE"),
    ({"think_tm_min": 0.5, "think_tm_max": 0.1}, "THINK_TM_MIN"),
    ({"admin_sqlnet_service": 'x"; rm -rf /'}, "ADMIN_SQLNET_SERVICE"),
    ({"do_hotspot": "yes"}, "DO_HOTSPOT"),
    ({"update_pct": 2.5}, "integer"),
])
def test_validation(change, match):
    with pytest.raises(ParameterError, match=match):
        dataclasses.replace(SEED_8020, **change)


def test_valid_variants():
    assert dataclasses.replace(SEED_8020, scale="655360M").scale == "655360M"
    assert dataclasses.replace(SEED_8020, scale="9830400").scale == "9830400"  # block count
    assert dataclasses.replace(SEED_8020, run_time=0, work_loop=100).work_loop == 100
    hot = dataclasses.replace(SEED_8020, do_hotspot=True, hotspot_mb=8, hotspot_offset_mb=16,
                              hotspot_frequency=3, obfuscate_columns=False)
    assert slob_conf_from_dict(parse_slob_conf(render_slob_conf(hot))) == hot
    assert "DO_HOTSPOT=TRUE" in render_slob_conf(hot)


def test_conversion_errors():
    base = parse_slob_conf(render_slob_conf(SEED_8020))
    with pytest.raises(ParameterError, match="not known"):
        slob_conf_from_dict({**base, "NO_SUCH_KEY": "1"})
    with pytest.raises(ParameterError, match="RUN_TIME"):
        slob_conf_from_dict({**base, "RUN_TIME": "10m"})
    with pytest.raises(ParameterError, match="lacks required keys: SCALE"):
        slob_conf_from_dict({k: v for k, v in base.items() if k != "SCALE"})
    with pytest.raises(ParameterError, match="line 2"):
        parse_slob_conf("A=1\nif true; then B=2; fi\n")
    with pytest.raises(ParameterError, match="unterminated"):
        parse_slob_conf('A="x\n')


@pytest.mark.parametrize("name, seed", [("slob-seed-8020.yaml", "SEED_8020"), ("slob-seed-scan.yaml", "SEED_SCAN")])
def test_shipped_parameter_files_are_the_seed_configurations(repo, name, seed):
    """The seeds ship in parameters/: their points' slob.conf holds the seed's settings."""
    import flashpoc
    from flashpoc.engines.slob import plan as slob_plan
    from flashpoc.engines.slob.measure import point_conf

    cfg = flashpoc.load_campaign(repo / "parameters" / name)
    text = point_conf(cfg, cfg.probe_workload, 4)
    got = parse_slob_conf(text)
    assert got.pop("THREADS_PER_SCHEMA") == "4" and got.pop("DATABASE_STATISTICS_TYPE") == "awr"
    assert got == parse_slob_conf(render_slob_conf(getattr(slob_plan, seed)))
    assert "SCAN_TABLE_SZ" in got
    assert cfg.settings.schemas == 4  # the seed's runit.sh -s 4
    assert "-s 4 " in (repo / "parameters" / name).read_text()
