"""SLOB on NFS: how the database reaches its datafiles (database.datafiles knfs/dnfs with
nfs_mounts), from the DB host's /proc/self/mountstats, in the check, the manifest's environment
and the report's conditions.

The NFS mounts are real captures (tests/data/nfs, see PROVENANCE.md there): the SLOB check's
host script runs on them with bash and awk, as it runs on the DB host.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import DATA, TESTS
from flashpoc import phases
from flashpoc.engines.slob.check import evaluate_slob_host
from flashpoc.engines.slob.datafiles import datafiles_facts, datafiles_rows, nfs_mounts
from flashpoc.campaign.environment import conditions, environment_section
from flashpoc.hosts.mountstats import parse_mountstats

sys.path.insert(0, str(TESTS / "replay"))
import slob_replay  # noqa: E402

RDMA = DATA / "nfs" / "mountstats-el8.7-rdma.qa"
V3_TCP = DATA / "nfs" / "mountstats3.qa"
NO_NFS = DATA / "nfs" / "nonfsmounts.qa"
RAC = "19c-rac-s256-t1-wu4-update10"  # the replayed SLOB kit's recording (tests/replay/slob_replay.py)


def host_facts(capture: Path) -> dict[str, str]:
    """What the SLOB check's host script prints on a DB host whose mountstats is ``capture``."""
    from flashpoc.engines.slob.run import host_facts_script

    script = host_facts_script("SLOB", None, None).replace("/proc/self/mountstats", str(capture))
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60).stdout
    return dict(line.partition("=")[::2] for line in out.splitlines() if "=" in line)


@pytest.mark.parametrize("capture", [RDMA, V3_TCP, NO_NFS])
def test_every_nfs_mount_with_its_export_and_options(capture):
    mounts = nfs_mounts(host_facts(capture))
    want = parse_mountstats(capture.read_text())
    assert [(m["path"], m["mount_source"], m["fstype"], m["mount_options"]) for m in mounts] == [
        (w["mountpoint"], w["device"], w["fstype"], w["opts"]) for w in want.values()]


def test_knfs_mounts_chosen_by_nfs_mounts_in_the_check_rows():
    """The EL 8.7 client mounts its exports hard, with NFSv3 over RDMA, rsize/wsize 65536 and
    nconnect=8; the 2009 NAS client of mountstats3 with rsize/wsize 32768: both at least Oracle's
    minimum (32768)."""
    database = SimpleNamespace(datafiles="knfs", nfs_mounts=r"^/storage/(prod|group)$")
    datafiles = datafiles_facts(database, host_facts(RDMA))
    assert datafiles["stated"] == "knfs"
    # /storage/prod is mounted twice (servers 10.6.159.30, then .27): the later mount is the one seen
    assert [(m["path"], m["mount_source"]) for m in datafiles["mounts"]] == [
        ("/storage/prod", "example.com:/icds-prod"), ("/storage/group", "example.com:/group")]
    assert "mountaddr=10.6.159.27," in datafiles["mounts"][0]["mount_options"]
    rows = {r["check"]: r for r in datafiles_rows("db1", datafiles)}
    assert rows["datafiles /storage/prod: transport"]["value"] == "NFS v3"
    assert rows["datafiles /storage/prod: transport"]["detail"].startswith("NFS mount of example.com:/icds-prod (rw,vers=3,")
    options = rows["datafiles /storage/group: nfs options"]
    assert options["status"] == "pass" and options["detail"] == "hard, rsize=65536, wsize=65536, proto=rdma, nconnect=8"


def test_local_datafiles_have_no_mount_rows_and_the_slob_rows_keep_their_order():
    facts = host_facts(V3_TCP)
    local = SimpleNamespace(datafiles=None, nfs_mounts=None)
    assert datafiles_facts(local, facts) == {"stated": "local", "mounts": []}
    assert datafiles_rows("db1", datafiles_facts(local, facts)) == []
    campaign = SimpleNamespace(settings=SimpleNamespace(home="SLOB", env_file=None, sysdba_passwd_env=None),
                               db_host=SimpleNamespace(name="db1"), oracle=None,
                               database=SimpleNamespace(datafiles="knfs", nfs_mounts=None))
    checks = [r["check"] for r in evaluate_slob_host(campaign, {**facts, "home": "/opt/SLOB"})]
    assert checks.index("datafiles") + 1 == checks.index("datafiles /nasbox/music: transport")


def test_the_conditions_state_the_datafiles_transport():
    datafiles = datafiles_facts(SimpleNamespace(datafiles="knfs", nfs_mounts=r"^/storage/prod$"), host_facts(RDMA))
    section = environment_section({"db1": {"links": {}, "targets": [], "datafiles": datafiles}})
    assert section["hosts"]["db1"]["datafiles"] == datafiles
    assert conditions(section)["datafiles"] == "kNFS: example.com:/icds-prod on /storage/prod (NFS v3, rdma)"
    with_database = conditions(environment_section({"db1": {"datafiles": datafiles}}, {"dnfs": False}))
    assert with_database["Direct NFS"] == "off: kernel NFS"  # the datafiles' mounts are NFS
    tcp = datafiles_facts(SimpleNamespace(datafiles="dnfs", nfs_mounts="^/nasbox/music$"), host_facts(V3_TCP))
    assert conditions(environment_section({"db1": {"datafiles": tcp}}))["datafiles"] == (
        "dNFS: nasbox:/share/MD0_DATA/music on /nasbox/music (NFS v3, tcp)")


def test_a_slob_check_records_the_datafiles_in_the_manifest(tmp_path):
    """The real check of a SLOB campaign on this machine (the replayed SLOB kit, local host): its
    manifest's environment says how the database reaches its datafiles, and the conditions say it."""
    home = slob_replay.install(tmp_path / "SLOB", sys.executable, {1: [RAC]})
    from flashpoc.params import campaign_from_dict

    cfg = campaign_from_dict({
        "campaign": "slob", "engine": "slob",
        "hosts": [{"name": "db1", "address": "localhost", "workdir": str(tmp_path / "work")}],
        "slob": {"home": str(home), "env_file": str(home / "slob.env"), "schemas": 4, "scale": "32768",
                 "workloads": [{"name": "slob-read", "update_pct": 0}]},
        "results_dir": str(tmp_path / "results")})
    phases.run_check(cfg)
    manifest = json.loads((tmp_path / "results" / "slob" / "manifest.json").read_text())
    datafiles = manifest["environment"]["hosts"]["db1"]["datafiles"]
    assert datafiles["stated"] == "local" and datafiles["mounts"] == []
    assert conditions(manifest["environment"])["datafiles"] == "local"
