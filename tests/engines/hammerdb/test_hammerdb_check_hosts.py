"""The HammerDB check on several load hosts runs each host's check script side by side (a HammerDB
start takes seconds, the seed's four load hosts one after the other took four times as long), every
host's rows in the hosts' order, from the recorded check of tests/data/hammerdb/check_build."""

from __future__ import annotations

import re
import threading

from conftest import DATA
from flashpoc.engines.hammerdb.check import check_campaign_hosts
from flashpoc.params import campaign_from_dict
from flashpoc.hosts.fake import FakeHost, Reply

CONSOLE = (DATA / "hammerdb" / "check_build" / "console.txt").read_text()


def test_every_load_host_is_checked_side_by_side():
    """Each host's HammerDB waits until all three run (a barrier): one after the other, the first
    would wait alone and the check fail; each host gives its rows, from the recorded console."""
    names = ["load1", "load2", "load3"]
    running = threading.Barrier(len(names), timeout=30)

    def hammerdb(command, stdin):
        running.wait()
        return Reply(CONSOLE)

    def connect(params):
        return FakeHost(params=params, commands={
            re.compile(r"^\[ -d \S+ \] && find "): "",  # what earlier attempts left, removed first
            re.compile(r"mkdir -p .* && echo made$"): "made\n",
            re.compile(r"; rm -rf \S+/hammerdb/load\d/check-\S+$"): "",  # the attempt's folder, once read
            re.compile(r"hammerdbcli auto"): hammerdb,
            re.compile(r"tar czf - "): "",
        })

    cfg = campaign_from_dict({
        "campaign": "tpcc", "hosts": [{"name": n, "address": f"10.0.0.{i}"} for i, n in enumerate(names, 1)],
        "engine": {"hammerdb": {"database": "postgresql", "hammerdb_dir": "/opt/HammerDB-6.0", "host": "10.0.0.9",
                                "password_env": "TPCC_PW", "superuser_password_env": "PG_PW", "warehouses": 2,
                                "build_schema": True}}})
    rows = check_campaign_hosts(cfg, connect)
    assert [(r["host"], r["check"], r["status"]) for r in rows] == [
        (n, check, "pass") for n in names for check in ("HammerDB", "database", "TPROC-C schema")]
    assert {r["value"] for r in rows if r["check"] == "HammerDB"} == {"v6.0"}
