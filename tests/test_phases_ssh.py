"""The check and a short probe through a real sshd on 127.0.0.1, with real fio behind it."""

from __future__ import annotations

import json

import pytest

from conftest import quick_campaign, require_fio
from flashpoc import phases
from flashpoc.params import campaign_from_dict

pytestmark = pytest.mark.ssh


def test_check_and_probe_over_ssh(sshd, tmp_path):
    require_fio()
    values = quick_campaign(tmp_path, hosts=[sshd.host_params("remote", workdir=str(tmp_path / "work"))],
                            probe={"strategy": "linear", "min_threads": 1, "max_threads": 3, "step": 1})
    cfg = campaign_from_dict(values)

    table = phases.run_check(cfg)
    by_check = dict(zip(table["check"], table["status"]))
    assert by_check["reachable"] == "pass" and by_check["fio"] == "pass"
    assert by_check["target scratch: exists"] == "pass"  # missing, will be created

    probe = phases.run_probe(cfg, progress=False)
    assert [p["threads"] for p in probe["points"]] == [1, 2, 3]
    assert all(p["iops"] > 0 for p in probe["points"])
    # the job file and fio's output went through SSH to the host's workdir and back
    point = tmp_path / "results" / "quick" / "points" / "probe" / probe["points"][0]["point_id"]
    raw = json.loads((point / "remote.json").read_text())
    assert raw["jobs"][0]["job options"]["numjobs"] == "1"
    assert list((tmp_path / "work" / "quick" / "probe").iterdir())
    row = json.loads((point / "point.json").read_text())
    assert row["hosts"] == "remote" and row["overhead_s"] < 5
