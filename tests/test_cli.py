"""The flashpoc command: parse, saturation, validate, check, and run (papermill) end to end."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import yaml

from conftest import DATA, quick_campaign, require_fio
from flashpoc.cli import main

FIO = DATA / "fio"


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_parse_fio_json(capsys):
    code, out, _ = run_cli(capsys, "parse", "fio", str(FIO / "fio-3.1_randread_4k_iodepth16_numjobs8_group_reporting.json"),
                           "--format", "json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 1
    assert rows[0]["iops"] == 42327.534493 and rows[0]["direction"] == "read" and rows[0]["fio_version"] == "fio-3.1"


def test_parse_fio_client_server_text_preamble(capsys):
    path = FIO / "fio-3.7_client_server_2hosts_5jobs_client_stats_with_text_preamble.txt"
    code, out, _ = run_cli(capsys, "parse", "fio", str(path), "--format", "json")
    rows = json.loads(out)
    aggregate = [r for r in rows if r["is_aggregate"]]
    assert code == 0 and len(rows) == 11 and aggregate[0]["iops"] == 93198.150858


def test_parse_errors_are_messages_not_tracebacks(capsys, tmp_path):
    broken = tmp_path / "cut.json"
    broken.write_text((FIO / "fio-3.36_randrw_128k_1job_file.json").read_text()[:3000])
    code, out, err = run_cli(capsys, "parse", "fio", str(broken))
    assert code == 1 and out == "" and "truncated" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "parse", "fio", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err


def test_saturation_on_the_seed_poc(capsys):
    code, out, _ = run_cli(capsys, "saturation", str(DATA / "seed_probe.csv"))
    assert code == 0
    assert "saturation threads: 300" in out
    assert "max IOPS:           655,956.88" in out  # the plateau's median point, as printed in the seed
    assert "follow-up sweep:    forthreads=(10-300,10) (30 points)" in out
    code, out, _ = run_cli(capsys, "saturation", str(DATA / "seed_probe.csv"), "--format", "json")
    result = json.loads(out)
    assert result["threads"] == 300 and result["rule_threads"] == 300 and result["supported"] is True


def test_saturation_says_when_it_cannot_answer(capsys, tmp_path):
    rising = tmp_path / "rising.csv"
    rising.write_text("threads,iops,latency_ms\n1,1000,0.1\n2,2000,0.1\n4,4000,0.1\n8,8000,0.1\n")
    code, out, _ = run_cli(capsys, "saturation", str(rising))
    assert code == 1 and out.startswith("no saturation answer: IOPS still rising at 8 threads")
    bad = tmp_path / "bad.csv"
    bad.write_text("threads,iops\n1,100\n")
    code, _, err = run_cli(capsys, "saturation", str(bad))
    assert code == 2 and "missing column(s) ['latency_ms']" in err


def test_validate(capsys, repo, tmp_path):
    code, out, _ = run_cli(capsys, "validate", str(repo / "parameters" / "demo-local.yaml"))
    assert code == 0 and "ok (campaign demo-local, engine fio, 1 hosts, 1 targets, 4 workloads)" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text("campaign: x\nhosts: [{name: h, port: 0}]\ntargets: [{name: t, path: /dev/sdz}]\n")
    code, out, err = run_cli(capsys, "validate", str(bad))
    assert code == 2 and "hosts[0].port: Input should be greater than or equal to 1 (got 0)" in err
    assert "Traceback" not in err


def test_check_command(capsys, tmp_path):
    require_fio()
    params = tmp_path / "quick.yaml"
    params.write_text(yaml.safe_dump(quick_campaign(tmp_path)))
    code, out, _ = run_cli(capsys, "check", str(params))
    assert code == 0 and re.search(r"verdict: (pass|warn)", out) and "fio" in out


def test_run_all_phases_with_papermill(batch_run):
    """`flashpoc run` executes the four notebooks and exports offline HTML for each."""
    tmp_path, _, out = batch_run
    results = tmp_path / "results" / "quick"
    for name in ("01_environment_check", "02_saturation_probe", "03_thread_sweep", "04_report"):
        notebook = results / "notebooks" / f"{name}.ipynb"
        assert notebook.exists(), name
        html = (results / "notebooks" / f"{name}.html").read_text()
        assert not re.search(r"""(src|href)\s*=\s*["']?https?://""", html), name
    report_nb = json.loads((results / "notebooks" / "04_report.ipynb").read_text())
    injected = [c for c in report_nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert injected and "quick" in "".join(injected[0]["source"])
    svg_outputs = [o for c in report_nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
                   if "image/svg+xml" in o.get("data", {})]
    assert len(svg_outputs) >= 4  # hockey stick, percentiles, host CPU, probe curve
    assert "<svg" in (results / "notebooks" / "04_report.html").read_text()
    assert f"offline report:     {results / 'report' / 'report.html'}" in out.stdout


def test_run_stops_on_a_failed_check(tmp_path):
    require_fio()
    params = tmp_path / "bad-target.yaml"
    values = quick_campaign(tmp_path, targets=[{"name": "lun", "path": str(tmp_path / "absent.dat")}],
                            workloads=[{"name": "r", "rw": "randread", "bs": "4k"}])
    params.write_text(yaml.safe_dump(values))
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 1
    assert "phase check stopped: CheckFailed" in out.stderr and "absent.dat does not exist" in out.stderr
    assert "[probe]" not in out.stdout
    assert not (tmp_path / "results" / "quick" / "points").exists()


def test_parse_vdbench_output_directory(capsys):
    code, out, _ = run_cli(capsys, "parse", "vdbench", str(DATA / "vdbench" / "rr_threads_sweep"), "--format", "json")
    rows = json.loads(out)
    assert code == 0 and [r["threads"] for r in rows] == [1, 2, 4, 8, 16]
    last = rows[-1]  # totals.html: avg_2-10 of threads=16
    assert (last["iops"], last["mb_per_s"], last["resp_ms"], last["queue_depth"]) == (72704.7, 284.0, 0.844, 61.4)
    assert (last["cpu_sys_user_pct"], last["cpu_sys_pct"]) == (67.6, 41.8)


def test_parse_vdbench_failed_run_says_why(capsys):
    code, out, err = run_cli(capsys, "parse", "vdbench", str(DATA / "vdbench" / "error_missing_lun"))
    assert code == 1 and out == "" and "Undefined size for sd=sd1" in err


def test_parse_awr_text_and_html(capsys):
    run_dir = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
    for name in ("awr.txt", "awr.html.gz"):
        code, out, _ = run_cli(capsys, "parse", "awr", str(run_dir / name), "--format", "json")
        report = json.loads(out)
        assert code == 0 and report["header"]["db_name"] == "P30SDB"
        assert report["key_events"]["db file sequential read"] == 350.19  # printed "350.19us"
        assert report["key_events"]["log file parallel write"] == 18790.0  # printed "18.79ms"


def test_parse_slob_run_directory(capsys):
    """`flashpoc parse slob DIR`: the point's metrics from the files runit.sh left."""
    run = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
    code, out, _ = run_cli(capsys, "parse", "slob", str(run), "--format", "json")
    metrics = json.loads(out)
    assert code == 0 and metrics["scope"] == "cluster" and metrics["awr_rac_report"] == "awr_rac.txt"
    assert metrics["read_iops"] == 60656.2 and metrics["write_iops"] == 6373.4  # System Statistics (Global)
    assert metrics["db_file_sequential_read_avg_wait_us"] == 506.72 and metrics["tm_s"] == 364
    # mpstat.out "all" rows between the snapshots (09:26:07-09:32:10): 122 intervals of 3 s
    assert metrics["mpstat_intervals"] == 122


def test_what_notebook_kernels_write_to_stderr_goes_to_a_log_not_the_terminal(capfd, tmp_path):
    """A kernel stopped on a loaded machine may print a ZeroMQ assertion to the stderr it
    inherits; `flashpoc run` keeps such lines in notebooks/kernels.log, the terminal shows only
    flashpoc's own lines (and a full disk, where the log cannot be opened, still hides them)."""
    from flashpoc.cli import _kernel_stderr

    log = tmp_path / "notebooks" / "kernels.log"
    with _kernel_stderr(log):
        subprocess.run(["sh", "-c", "echo 'Assertion failed: pfd.revents & POLLIN' >&2"], check=True)
    print("after", file=sys.stderr)
    assert capfd.readouterr().err == "after\n"
    assert log.read_text() == "Assertion failed: pfd.revents & POLLIN\n"
    with _kernel_stderr(log / "x.log"):  # a file, not a folder: the log cannot be opened
        subprocess.run(["sh", "-c", "echo hidden >&2"], check=True)
    assert capfd.readouterr().err == ""
