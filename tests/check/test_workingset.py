"""The working set against the array cache, for every engine (issue 19, part 5): the guides want
it 10x the cache, or at least 1 TB when the cache size is not given; a warning, never a failure."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import REPO
from flashpoc.engines import checks
from flashpoc.params import campaign_from_dict, load_campaign
from flashpoc.analysis.workingset import judge_working_set

GIB = 1024**3


def test_against_a_given_cache():
    big = judge_working_set(1000 * GIB, "64g")
    assert big["ratio"] == pytest.approx(1000 / 64) and big["status"] == "pass"
    assert big["detail"] == ("the working set (1,000 GiB) is 15.6x the array cache (64 GiB): at least the 10x "
                             "the guides want")
    small = judge_working_set(1000 * GIB, "512g")
    assert small["status"] == "warn" and small["ratio"] == pytest.approx(1000 / 512)
    assert small["detail"].startswith("the working set (1,000 GiB) is only 2.0x the array cache (512 GiB)")
    assert small["detail"].endswith("use at least 5 TiB")
    unsized = judge_working_set(None, "512g", ["lun1"])
    assert unsized["status"] == "warn" and "targets lun1 have no known size" in unsized["detail"]


def test_without_a_cache_size_the_fallback_is_1_tb():
    assert judge_working_set(10**12, None)["status"] == "pass"
    demo = judge_working_set(10**12 - 1, None)
    assert demo["status"] == "warn" and demo["detail"].startswith("no array_cache given and the working set (931.3 GiB) "
                                                                 "is under 1 TB, the guides' fallback")


def _quick(tmp_path, **overrides):
    values = {"campaign": "ws", "hosts": [{"name": "local"}], "results_dir": str(tmp_path / "results"),
              "targets": [{"name": "scratch", "path": str(tmp_path / "scratch.dat"), "size": "64m", "create": True}],
              "workloads": [{"name": "randread-4k", "rw": "randread", "bs": "4k"}]}
    values.update(overrides)
    return campaign_from_dict(values)


@pytest.mark.parametrize("engine", ["fio", "vdbench"])
def test_the_check_says_it_once_for_fio_and_vdbench(tmp_path, engine):
    """fio ignored array_cache before: now every engine's check has one row, from the targets' sizes."""
    cfg = _quick(tmp_path, engine=engine, array_cache="16m")
    rows = pd.DataFrame(checks.evaluate_campaign(cfg, {"local": {}}))
    ws = rows[rows["check"] == "working set vs array cache"]
    assert len(ws) == 1 and ws.iloc[0]["value"] == 4.0 and ws.iloc[0]["status"] == "warn"
    assert "only 4.0x the array cache (16 MiB)" in ws.iloc[0]["detail"]
    none = pd.DataFrame(checks.evaluate_campaign(_quick(tmp_path, engine=engine), {"local": {}}))
    row = none[none["check"] == "working set vs array cache"].iloc[0]
    assert row["status"] == "warn" and "no array_cache given" in row["detail"] and "under 1 TB" in row["detail"]


def test_the_guides_1000g_luns_pass_the_fallback():
    cfg = load_campaign(REPO / "parameters" / "guide-vdbench-5hosts.yaml")
    total = sum(t.size_bytes for t in cfg.targets)
    assert total == 1000 * GIB and judge_working_set(total, None)["status"] == "pass"


def test_the_reports_conditions_say_it_in_the_checks_words(tmp_path):
    from flashpoc.present import document

    points = pd.DataFrame({"working_set_bytes": [64 * 1024**2]})
    text = document.working_set_text(_quick(tmp_path), points)
    assert text.startswith("No array_cache given and the working set (64 MiB) is under 1 TB")
    # one sentence, not two parentheses in a row ("(the guides want 10x it) (IOPS may be ...)")
    assert text.endswith("give array_cache (the guides want 10x it); IOPS may then be higher and latency lower than "
                         "from flash.")
    cached = document.working_set_text(_quick(tmp_path, array_cache="4m"), points)
    assert cached == "The working set (64 MiB) is 16.0x the array cache (4 MiB): at least the 10x the guides want."
