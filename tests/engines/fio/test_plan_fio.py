"""fio job planning: whole job files against golden files, and real fio accepts them."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from conftest import DATA
from flashpoc.params import campaign_from_dict
from flashpoc.engines.fio.plan import outstanding_ios, render_job, render_layout_job

GOLDEN = DATA / "golden"


def array_campaign():
    return campaign_from_dict({
        "campaign": "golden", "hosts": [{"name": "h1"}],
        "targets": [{"name": "lun1", "path": "/dev/mapper/lun1", "size": "250g", "allow_write": True},
                    {"name": "lun2", "path": "/dev/mapper/lun2", "size": "250g", "allow_write": True}],
        "fio": {"runtime_s": 60, "ramp_s": 10, "steadystate": "iops_slope:0.3%", "ss_dur_s": 20,
                "buffer_compress_percentage": 50, "dedupe_percentage": 20}})


def demo_campaign():
    return campaign_from_dict({"campaign": "demo", "hosts": [{"name": "local"}],
                               "targets": [{"name": "scratch", "path": "/srv/poc/scratch.dat", "size": "1g",
                                            "create": True}]})


def test_oltp_job_on_two_luns_matches_golden():
    cfg = array_campaign()
    text = render_job(cfg, cfg.workload("oltp-8k-80r"), 16, cfg.targets)
    assert text == (GOLDEN / "oltp-8k-80r_t16_two_luns.fio").read_text()


def test_demo_randread_job_matches_golden():
    cfg = demo_campaign()
    assert render_job(cfg, cfg.workload("randread-4k"), 8, cfg.targets) == \
        (GOLDEN / "randread-4k_t8_scratch.fio").read_text()
    assert render_layout_job(cfg.targets[0], cfg.settings) == (GOLDEN / "layout_scratch.fio").read_text()


def test_job_facts():
    cfg = array_campaign()
    text = render_job(cfg, cfg.workload("seqread-128k"), 4, cfg.targets, runtime_s=7)
    assert "runtime=7\n" in text and "numjobs=4\n" in text and "rw=read\n" in text and "bs=128k\n" in text
    assert "size=536870912000\n" in text  # 2 x 250 GiB working set
    assert "rwmixread" not in text
    assert outstanding_ios(cfg.workload("randread-4k"), 16) == 16


def test_refuses_impossible_points():
    cfg = demo_campaign()
    with pytest.raises(ValueError, match="threads must be >= 1"):
        render_job(cfg, cfg.workloads[0], 0, cfg.targets)
    with pytest.raises(ValueError, match="at least one target"):
        render_job(cfg, cfg.workloads[0], 1, [])


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.fio")))
def test_real_fio_accepts_golden_jobs(name):
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    out = subprocess.run(["fio", "--parse-only", str(GOLDEN / name)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
