"""Several HammerDB load hosts: one run per host started together, the point's row combining them
(what each host counts on its side summed, the database's NOPM and TPM not) and every host's
files stored under its name.

The first test drives two local "hosts" through HammerDB's hammerdbcli REPLAY DOUBLE (each serves
the real recorded 1-virtual-user run); the second runs the real HammerDB 6.0 over the test sshd
on 127.0.0.1 as two load hosts against one real PostgreSQL 15 cluster (one 1-minute point)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import TESTS
sys.path.insert(0, str(TESTS / "replay"))
import hammerdb_replay  # noqa: E402
from pg_server import postgres_server, real_hammerdb  # noqa: E402,F401

from flashpoc import phases  # noqa: E402
from flashpoc.engines.hammerdb.metrics import read_run  # noqa: E402
from flashpoc.params import campaign_from_dict  # noqa: E402
from flashpoc.phases import open_campaign  # noqa: E402

DATA = TESTS / "data" / "hammerdb"


def test_two_load_hosts_on_the_replay_double(tmp_path):
    home = hammerdb_replay.install(tmp_path / "HammerDB", sys.executable, {1: "sweep_1vu"})
    cfg = campaign_from_dict({
        "campaign": "two", "engine": {"hammerdb": {**hammerdb_replay.SETTINGS, "hammerdb_dir": str(home)}},
        "hosts": [{"name": name, "address": "localhost", "workdir": str(tmp_path / name)}
                  for name in ("load1", "load2")],
        "probe": {"strategy": "linear", "min_threads": 1, "max_threads": 1, "step": 1},
        "results_dir": str(tmp_path / "results")})
    with open_campaign(cfg) as wb:
        row = cfg.engine_object.measure_point(wb, "probe", cfg.probe_workload, 1, runtime_s=60)
    _, recorded, _ = read_run(DATA / "sweep_1vu")
    assert (row["hosts"], row["n_hosts"]) == ("load1,load2", 2)
    assert (row["threads"], row["virtual_users"]) == (1, 2)  # 1 virtual user per load host, 2 in all
    assert (row["nopm"], row["tpm"]) == (11088, 25984)  # the database's, as the first host's HammerDB printed them
    assert row["neword_calls"] == 2 * recorded["neword_calls"]  # each host's time profile, summed
    assert row["nopm_hosts_spread_pct"] == 0.0
    assert {h: p["nopm"] for h, p in row["per_host"].items()} == {"load1": 11088, "load2": 11088}
    point = cfg.results_path() / "points" / "probe" / row["point_id"]
    for host in ("load1", "load2"):
        assert (point / f"{host}.script.tcl").is_file() and (point / f"{host}.{recorded['jobid']}_result.json").is_file()
    calls = [json.loads(line) for line in (home / "replay-calls.log").read_text().splitlines()]
    runs = [Path(c["argv"][1]).parent for c in calls if c["title"].startswith("# flashpoc: timed")]
    for host in ("load1", "load2"):  # each host ran in an attempt folder of its own, removed once fetched
        (mine,) = [r for r in runs if r.is_relative_to(tmp_path / host / "two" / "hammerdb" / host)]
        assert mine.name.startswith(f"probe-{row['point_id']}-") and not mine.exists()


@pytest.mark.ssh
@pytest.mark.hammerdb
def test_two_load_hosts_over_ssh_drive_one_postgresql(sshd, postgres_server, tmp_path):  # noqa: F811
    hammerdb = real_hammerdb()
    password = "tpcc-" + postgres_server.password[:8]
    env_file = tmp_path / "hammerdb.env"
    env_file.write_text(f"export FLASHPOC_T_PW='{password}'\nexport FLASHPOC_T_SUPER='{postgres_server.password}'\n")
    env_file.chmod(0o600)
    cfg = campaign_from_dict({
        "campaign": "oltp2", "results_dir": str(tmp_path / "results"),
        "hosts": [sshd.host_params(name, workdir=str(tmp_path / name)) for name in ("load1", "load2")],
        "engine": {"hammerdb": {
            "database": "postgresql", "hammerdb_dir": str(hammerdb), "env_file": str(env_file),
            "host": postgres_server.host, "port": postgres_server.port, "superuser": postgres_server.superuser,
            "password_env": "FLASHPOC_T_PW", "superuser_password_env": "FLASHPOC_T_SUPER", "warehouses": 1,
            "build_schema": True, "build_virtual_users": 1, "rampup_minutes": 0, "duration_minutes": 1}},
        "probe": {"strategy": "linear", "min_threads": 1, "max_threads": 1, "step": 1}})
    with open_campaign(cfg) as wb:
        row = cfg.engine_object.measure_point(wb, "probe", cfg.probe_workload, 1, runtime_s=60)
    point = cfg.results_path() / "points" / "probe" / row["point_id"]
    printed = {}
    for host in ("load1", "load2"):
        found = re.findall(r"TEST RESULT : System achieved (\d+) NOPM from (\d+) PostgreSQL TPM",
                           (point / f"{host}.console.txt").read_text())
        assert len(found) == 1, host
        printed[host] = tuple(map(int, found[0]))
        timing = json.loads((point / f"{host}.{row['per_host'][host]['jobid']}_timing.json").read_text())
        assert row["per_host"][host]["neword_calls"] == int(timing["NEWORD"]["calls"]) > 0
    assert {h: (p["nopm"], p["tpm"]) for h, p in row["per_host"].items()} == printed
    assert (row["nopm"], row["tpm"]) == printed["load1"] and row["virtual_users"] == 2
    assert row["neword_calls"] == sum(p["neword_calls"] for p in row["per_host"].values())
    # both hosts' timed tests overlapped: each one's NOPM is the database's, with the other's work in it
    starts = sorted(p["test_start"] for p in row["per_host"].values())
    ends = sorted(p["test_end"] for p in row["per_host"].values())
    assert starts[-1] < ends[0]
    print(f"measured: per host {printed}, NEWORD calls {row['neword_calls']}, spread {row['nopm_hosts_spread_pct']} %")


def test_the_points_table_shows_the_spread_over_load_hosts():
    from flashpoc.engines.hammerdb.hosts import combine_hosts
    from flashpoc.engines.hammerdb.report import points_table

    runs = {}  # two real 2-user runs of other times, as two hosts' (the combination is pure)
    for host, folder in (("load1", "sweep_2vu"), ("load2", "timed_2vu")):
        _, metrics, series = read_run(DATA / folder)
        runs[host] = (metrics, series)
    metrics, _ = combine_hosts(runs)
    assert (metrics["nopm"], metrics["virtual_users"]) == (9341, 4)  # the first host's NOPM; users summed
    assert metrics["nopm_hosts_spread_pct"] == pytest.approx((9341 - 5533) / 9341 * 100)
    table = points_table(pd.DataFrame([{**metrics, "threads": 2}]))
    assert table["NOPM spread over load hosts (%)"].iloc[0] == "40.8"
