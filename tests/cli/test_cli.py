"""The flashpoc command: parse, saturation, validate, check, and run (papermill) end to end."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pandas as pd
import yaml

from conftest import DATA, assert_secret_absent, quick_campaign, require_fio
import flashpoc
from flashpoc.cli import main
from flashpoc.cli.commands import COMMAND_EXIT_CODES

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


def test_parse_fio_says_what_a_damaged_output_cost(capsys, tmp_path):
    """A percentile line of fio's output removed: the row has no p99.9 and its ``damaged`` column
    names the file and the figure, in the JSON and under the table."""
    text = (FIO / "fio-3.33_randread_4k_numjobs4_group_reporting_jsonplus.json").read_text()
    damaged = tmp_path / "out.json"
    damaged.write_text(text.replace('            "99.900000" : 468992,\n', ""))
    said = "out.json: jobs[0].read.clat_ns.percentile has no 99.9 (lost: clat_p99_9_us)"
    code, out, _ = run_cli(capsys, "parse", "fio", str(damaged), "--format", "json")
    (row,) = json.loads(out)
    assert code == 0 and row["clat_p99_9_us"] is None and row["damaged"] == said
    code, out, _ = run_cli(capsys, "parse", "fio", str(damaged))
    assert code == 0 and out.rstrip().endswith(f"damaged: {said}") and "p99.9 (us)" not in out


def test_parse_errors_are_messages_not_tracebacks(capsys, tmp_path):
    broken = tmp_path / "cut.json"
    broken.write_text((FIO / "fio-3.36_randrw_128k_1job_file.json").read_text()[:3000])
    code, out, err = run_cli(capsys, "parse", "fio", str(broken))
    assert code == 2 and out == "" and err.startswith("flashpoc: error: ") and "truncated" in err
    assert "Traceback" not in err
    code, _, err = run_cli(capsys, "parse", "fio", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err


def test_saturation_on_the_seed_poc(capsys):
    code, out, _ = run_cli(capsys, "saturation", str(DATA / "seed_probe.csv"))
    assert code == 0
    assert "saturation threads: 300" in out
    assert "plateau IOPS:       655,956.88 (the median of the plateau's points)" in out  # as printed in the seed
    assert "most IOPS measured: 655,968.63 at 300 threads" in out  # more than the plateau's level: said so
    assert "max IOPS" not in out
    assert "follow-up sweep:    forthreads=(10-300,10) (30 points)" in out
    code, out, _ = run_cli(capsys, "saturation", str(DATA / "seed_probe.csv"), "--format", "json")
    result = json.loads(out)
    assert result["threads"] == 300 and result["rule_threads"] == 300 and result["supported"] is True


def test_saturation_says_when_it_cannot_answer(capsys, tmp_path):
    rising = tmp_path / "rising.csv"
    rising.write_text("threads,iops,latency_ms\n1,1000,0.1\n2,2000,0.1\n4,4000,0.1\n8,8000,0.1\n")
    code, out, _ = run_cli(capsys, "saturation", str(rising))
    assert code == 1 and out.splitlines()[0] == f"read:               4 points from {rising}"
    assert out.splitlines()[1].startswith("no saturation answer: IOPS still rising at 8 threads")
    bad = tmp_path / "bad.csv"
    bad.write_text("threads,iops\n1,100\n")
    code, _, err = run_cli(capsys, "saturation", str(bad))
    assert code == 2 and "missing column(s) latency_ms or lat_mean_ms" in err


def test_validate(capsys, repo, tmp_path):
    code, out, _ = run_cli(capsys, "validate", str(repo / "parameters" / "demo-local.yaml"))
    assert code == 0 and "ok (campaign demo-local, engine fio, 1 hosts, 1 targets, 4 workloads)" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text("campaign: x\nhosts: [{name: h, port: 0}]\ntargets: [{name: t, path: /dev/sdz}]\n")
    code, out, err = run_cli(capsys, "validate", str(bad))
    assert code == 2 and "hosts[0].port: Input should be greater than or equal to 1 (got 0)" in err
    assert "Traceback" not in err


def test_a_password_or_a_misspelt_number_stops_validate_and_run_before_anything_is_written(capsys, tmp_path):
    """A password anywhere in the parameters or a number YAML readers disagree on (issue 28) stops
    ``validate``, ``run`` and ``check`` with one line naming the key, before results/ exists: the password
    is in no file the run leaves and in nothing it prints."""
    secret = "Tiger-Secret-2828"
    work = tmp_path / "work"
    given = tmp_path / "given"
    given.mkdir()
    cases = {
        "oracle.dsn: no password in the parameters": {"oracle": {"dsn": f"system/{secret}@db1:1521/orcl"}},
        "oracle.user: no password in the parameters": {"oracle": {"dsn": "db1:1521/orcl", "user": f"system/{secret}"}},
        "description: no password in the parameters": {"description": f"see https://poc:{secret}@share/poc"},
        "hosts[0].password: no password in the parameters": {
            "hosts": [{"name": "local", "address": "localhost", "workdir": str(work), "password": secret}]},
        "fio.ramp_s: 010 has a leading zero": {"fio": {"runtime_s": 1, "ramp_s": "RAMP"}},
    }
    for i, (message, overrides) in enumerate(cases.items()):
        params = given / f"p{i}.yaml"
        values = quick_campaign(work, results_dir=str(work / "results"), **overrides)
        params.write_text(yaml.safe_dump(values).replace("RAMP", "010"))
        for command in ("validate", "run", "check"):
            code, out, err = run_cli(capsys, command, str(params))
            assert code == 2 and out == "" and err.count("\n") == 1, (command, err)
            assert err.startswith(f"flashpoc: error: invalid parameters in {params}: {message}"), err
            assert not (work / "results").exists()
            assert_secret_absent(secret, tmp_path / "work", out, err)


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
        # what a customer reads: tables under human headers (no lat_mean_ms, host_cpu_busy_pct), no widget's repr
        assert not re.search(r"lat_mean_ms|host_cpu_busy_pct|VBox\(", html), name
    report_nb = json.loads((results / "notebooks" / "04_report.ipynb").read_text())
    injected = [c for c in report_nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert injected and "quick" in "".join(injected[0]["source"])
    # the parameters file as the kernels resolve it (relative to the workbook root), no folder of this machine
    assert 'parameters_file = "quick.yaml"\n' in "".join(injected[0]["source"])
    recorded = report_nb["metadata"]["papermill"]  # papermill's record of the run, with no folder of this machine
    assert (recorded["input_path"], recorded["output_path"]) == ("notebooks/04_report.ipynb",
                                                                 "results/quick/notebooks/04_report.ipynb")
    svg_outputs = [o for c in report_nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
                   if "image/svg+xml" in o.get("data", {})]
    assert len(svg_outputs) >= 4  # hockey stick, percentiles, host CPU, probe curve
    assert "<svg" in (results / "notebooks" / "04_report.html").read_text()
    assert f"\nreport: {results / 'report' / 'report.html'}\n" in out.stdout
    assert (results / "report" / "report.pdf").read_bytes().startswith(b"%PDF")  # report.pdf: true


TIME = r"\| \d+:\d\d(?::\d\d)?"


def test_a_batch_run_shows_each_point_and_ends_with_a_summary(batch_run):
    """What an engineer sees in the terminal of `flashpoc run` (here not a terminal: lines of at
    most 100 characters): a line per point with its count of the total (of at most the adaptive
    probe's bound), workload, threads, IOPS and latency as stored, the time elapsed and left; the
    probe's answer; and a closing summary with each workload's max IOPS, the steady-state verdict and
    where the report is. The executed notebooks keep each phase's final progress as text."""
    root, _, out = batch_run
    results = root / "results" / "quick"
    lines = out.stdout.splitlines()
    print(out.stdout)
    assert max(len(line) for line in lines) <= 100
    assert "each point: done/total, workload, threads, IOPS (MiB/s for large I/Os), mean latency | elapsed, ETA" \
        in lines
    probe = json.loads((results / "probe.json").read_text())
    shown = [line for line in lines if re.match(r"\[probe\] +\d+/<=5 ", line)]
    assert len(shown) == probe["runs"] >= 3  # the bound: the ladder 1 to 8 threads (4 counts), 1 refine point
    for i, (line, point) in enumerate(zip(shown, probe["points"]), start=1):
        threads = f"{point['threads']} thread{'s' if point['threads'] > 1 else ''}"
        assert re.match(rf"\[probe\] +{i}/<=5 randread-4k +{threads} +{point['iops']:,.0f} IOPS +"
                        rf"{point['lat_mean_ms']:.3f} ms {TIME}, ETA <=\d+:\d\d(?::\d\d)?$", line), line
    assert lines.index("[probe] running 02_saturation_probe.ipynb ...") < lines.index(shown[0])
    words = " ".join(w for w in out.stdout.split() if w != "[probe]")  # the answer's lines wrapped
    assert " ".join(f"probe: {probe['answer']}".split()) in words  # the words of notebook 02 and the report
    points = pd.read_csv(results / "points.csv")
    sweep = points[points["phase"] == "sweep"].set_index(["workload", "threads"])
    shown = [line for line in lines if re.match(r"\[sweep\] +\d/6 ", line)]
    order = [(w, t) for w in ("randread-4k", "randwrite-4k") for t in (1, 2, 3)]
    assert len(shown) == 6
    for i, (line, (workload, threads)) in enumerate(zip(shown, order), start=1):
        row = sweep.loc[(workload, threads)]
        assert re.match(rf"\[sweep\] +{i}/6 {workload} +{threads} threads? +{row['iops']:,.0f} IOPS +"
                        rf"{row['lat_mean_ms']:.3f} ms {TIME}, ETA \d+:\d\d(?::\d\d)?$", line), line
    assert re.search(r"^\[sweep\] sweep: 6 points in \d+:\d\d(?::\d\d)?$", out.stdout, re.M)
    assert "[sweep] sweep: 6 points, about 6 s of I/O (1 s per point)" in out.stdout
    summary = out.stdout[out.stdout.index("Summary of quick (SLO: mean latency 1 ms):"):]
    for workload, group in sweep.reset_index().groupby("workload"):
        best = group.loc[group["iops"].idxmax()]
        assert re.search(rf"^  {workload} +{best['iops']:,.0f} +{best['bw_mibps']:,.1f} +{best['threads']} +"
                         rf"{best['lat_mean_ms']:.3f} ", summary, re.M), (workload, summary)
    assert "\nsteady state: no verdict: no point kept the 3 intervals a verdict needs" in summary
    assert "\nprobe: " in summary and f"\nexecuted notebooks: {results / 'notebooks'}" in summary

    def progress_outputs(name):
        cells = json.loads((results / "notebooks" / f"{name}.ipynb").read_text())["cells"]
        outputs = [o for c in cells for o in c.get("outputs", [])]
        assert not [o for o in outputs if o["output_type"] == "stream" and "\r" in "".join(o["text"])]
        assert not [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
        return ["".join(o["data"]["text/plain"]) for o in outputs
                if "flashpoc-progress" in "".join(o.get("data", {}).get("text/html", ""))]

    assert re.match(rf"probe randread-4k \(adaptive\): {probe['runs']} points in \d+:\d\d(?::\d\d)?\nlast: randread-4k",
                    progress_outputs("02_saturation_probe")[0])
    assert re.match(r"sweep: 6 points in \d+:\d\d(?::\d\d)?\nlast: randwrite-4k, 3 threads",
                    progress_outputs("03_thread_sweep")[0])


def test_run_stops_on_a_failed_check(tmp_path):
    """... and says first what validation warned about (one machine named as two hosts), one line each."""
    require_fio()
    params = tmp_path / "bad-target.yaml"
    values = quick_campaign(tmp_path, targets=[{"name": "lun", "path": str(tmp_path / "absent.dat")}],
                            workloads=[{"name": "r", "rw": "randread", "bs": "4k"}])
    values["hosts"].append({**values["hosts"][0], "name": "again"})
    params.write_text(yaml.safe_dump(values))
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 1
    said = " ".join(out.stdout.split())  # wrapped to the terminal's width
    assert ("2 hosts, 1 target, 1 workload; phases check, probe, sweep, report warning: hosts[1].address: again is at "
            "the same address and port as hosts[0] (local), this machine: one machine runs both, and its load counts "
            "as two hosts' ") in said
    assert "phase check stopped: CheckFailed" in out.stderr and "absent.dat does not exist" in out.stderr
    assert "[probe]" not in out.stdout
    assert not (tmp_path / "results" / "quick" / "points").exists()


def test_run_goes_on_when_the_probe_finds_no_saturation(tmp_path):
    """Real fio through `flashpoc run`: a probe that cannot locate a plateau (max_threads 2, a fit
    needs three counts) does not stop the run: the sweep covers the probed range and notebook 02
    says why there is no answer and what to do. With probe.strict the probe phase stops the run."""
    require_fio()
    values = quick_campaign(tmp_path, workloads=[{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
                            probe={"strategy": "adaptive", "min_threads": 1, "max_threads": 2},
                            sweep={"plan": "guide", "step": 1})
    params = tmp_path / "no-answer.yaml"
    params.write_text(yaml.safe_dump(values))
    command = [sys.executable, "-m", "flashpoc.cli", "run", str(params)]
    out = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    results = tmp_path / "results" / "quick"
    assert sorted(json.loads(p.read_text())["threads"] for p in results.glob("points/sweep/*/point.json")) == [1, 2]
    probe_nb = (results / "notebooks" / "02_saturation_probe.ipynb").read_text()
    assert "No saturation found: Only 2 distinct thread count(s) measured (1, 2)" in probe_nb
    assert "The sweep runs up to 2 threads (the probed range, as no saturation was found)" in probe_nb
    report = (results / "report" / "report.html").read_text()  # the report says why and what to do
    assert "No saturation found: Only 2 distinct thread count(s) measured (1, 2)" in report
    assert "To find it: a wider thread range (probe.min_threads to probe.max_threads)." in report

    params.write_text(yaml.safe_dump({**values, "probe": {**values["probe"], "strict": True}}))
    out = subprocess.run(command + ["--phases", "probe"], capture_output=True, text=True, timeout=900)
    assert out.returncode == 1
    assert "phase probe stopped: AnalysisError: probe.strict: No saturation found: Only 2 distinct" in out.stderr


def test_parse_vdbench_output_directory(capsys):
    code, out, _ = run_cli(capsys, "parse", "vdbench", str(DATA / "vdbench" / "rr_threads_sweep"), "--format", "json")
    rows = json.loads(out)
    assert code == 0 and [r["threads"] for r in rows] == [1, 2, 4, 8, 16]
    last = rows[-1]  # totals.html: avg_2-10 of threads=16
    assert (last["iops"], last["mb_per_s"], last["resp_ms"], last["queue_depth"]) == (72704.7, 284.0, 0.844, 61.4)
    assert (last["cpu_sys_user_pct"], last["cpu_sys_pct"]) == (67.6, 41.8)


def test_parse_vdbench_names_a_missing_file(capsys, tmp_path):
    """An output directory copied without its flatfile.html: the rows lack the flatfile's columns
    and say so, under the table and in each row."""
    import shutil

    shutil.copytree(DATA / "vdbench" / "rr_3threads_2s", tmp_path / "out")
    (tmp_path / "out" / "flatfile.html").unlink()
    said = "flatfile.html: missing (vdbench writes it with totals.html)"
    code, out, _ = run_cli(capsys, "parse", "vdbench", str(tmp_path / "out"), "--format", "json")
    rows = json.loads(out)
    assert code == 0 and [r["damaged"] for r in rows] == [said] * 3 and "lunsize_gb" not in rows[0]
    code, out, _ = run_cli(capsys, "parse", "vdbench", str(tmp_path / "out"))
    assert code == 0 and out.rstrip().endswith(f"damaged: {said}")


def test_parse_vdbench_failed_run_says_why(capsys):
    code, out, err = run_cli(capsys, "parse", "vdbench", str(DATA / "vdbench" / "error_missing_lun"))
    assert code == 2 and out == "" and err.startswith("flashpoc: error: ") and "Undefined size for sd=sd1" in err


def test_parse_awr_text_and_html(capsys):
    run_dir = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
    for name in ("awr.txt", "awr.html.gz"):
        code, out, _ = run_cli(capsys, "parse", "awr", str(run_dir / name), "--format", "json")
        report = json.loads(out)
        assert code == 0 and report["header"]["db_name"] == "P30SDB"
        assert report["key_events"]["db file sequential read"] == 350.19  # printed "350.19us"
        assert report["key_events"]["log file parallel write"] == 18790.0  # printed "18.79ms"


def test_parse_awr_sizing_summary(capsys, monkeypatch):
    """`flashpoc parse awr --summary`: what a production database needs, and the campaign target."""
    prod = DATA / "awr" / "12.2.0.1_single_prod_awr.html"
    code, out, _ = run_cli(capsys, "parse", "awr", "--summary", str(prod), "--format", "json")
    summary = json.loads(out)
    # Load Profile "Read IO requests 0.5", "Write IO requests 1.6"; Top events "db file sequential read
    # 1,412 ... 1.70ms", "DB CPU 296.8 84.0"; "Buffer  Hit   %: 99.99"; Background "log file parallel write ... .99ms"
    assert code == 0 and (summary["read_iops"], summary["write_iops"], summary["iops"]) == (0.5, 1.6, 2.1)
    assert (summary["read_lat_ms"], summary["db_cpu_pct_of_db_time"], summary["buffer_hit_pct"]) == (1.7, 84.0, 99.99)
    assert summary["redo_write_lat_ms"] == 0.99
    assert summary["top_io_events"][0] == {"event": "db file scattered read", "wait_class": "User I/O", "waits": 211,
                                           "avg_wait_ms": 13.96, "pct_db_time": 0.8}
    assert summary["target"] == {"slo_ms": 1.7, "iops_levels": [2]}
    # the table fits the width (100 columns when not a terminal), measures in words, then the top I/O events
    code, out, _ = run_cli(capsys, "parse", "awr", "--summary",
                           str(DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10" / "awr.txt"))
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 100
    assert re.search(r"^IOPS \(read \+ write requests/s\)\s+32,911", out, re.M)
    assert re.search(r"^Read latency, db file sequential read \(ms\)\s+0.35$", out, re.M)
    assert re.search(r"^db file sequential read\s+User I/O\s+10,924,627\s+0.35\s+13.4$", out, re.M)
    code, _, err = run_cli(capsys, "parse", "slob", "--summary", str(prod))
    assert code == 2 and err.strip() == "flashpoc: error: --summary: only with awr (a production AWR report), not slob"


def test_parse_awr_sizing_summary_never_sets_a_target_finer_than_the_report(capsys):
    """11.2's AWR prints 'Avg wait (ms)' in whole milliseconds: the bundled 11.2.0.4 report's
    "db file sequential read  1,938,901  0  41  0" is an average under 0.5 ms, not 0.001 ms; the
    summary sets no slo_ms and says why, next to its histogram's share under 1 ms ("1940.1K  99.9")."""
    report = DATA / "awr" / "11.2.0.4_single_prod_awr.html.gz"
    code, out, _ = run_cli(capsys, "parse", "awr", "--summary", str(report), "--format", "json")
    summary = json.loads(out)
    assert code == 0 and summary["target"]["slo_ms"] is None and summary["target"]["iops_levels"] == [1391]
    assert "read_lat_ms" in summary["latency_whole_ms"] and summary["read_under_1ms_pct"] == 99.9
    assert summary["latency_note"] == ("The report prints average waits in whole milliseconds: a read latency of 0 "
                                       "ms is under 0.5 ms, too coarse for a latency target (set slo_ms yourself)")
    code, out, _ = run_cli(capsys, "parse", "awr", "--summary", str(report))
    assert re.search(r"^Target: slo_ms\s+none \(see the note\)$", out, re.M)
    assert re.search(r"^Read latency, db file sequential read \(ms\)\s+< 0.5$", out, re.M)
    # the 11.2.0.3 sample: its IO requests from its Instance Activity Stats (1,130.82 + 65.12 per second)
    code, out, _ = run_cli(capsys, "parse", "awr", "--summary", str(DATA / "awr" / "11.2.0.3_single_prod_awr_aix.html.gz"))
    assert code == 0 and re.search(r"^IOPS \(read \+ write requests/s\)\s+1,195.9$", out, re.M)


def test_parse_awr_reads_a_statspack_report(capsys):
    """`flashpoc parse awr` and `--summary` on a real Statspack report (spreport.sql output, 11.2.0.4)."""
    report = DATA / "awr" / "11.2.0.4_single_prod_statspack.txt.gz"
    code, out, _ = run_cli(capsys, "parse", "awr", str(report), "--format", "json")
    parsed = json.loads(out)
    assert code == 0 and parsed["format"] == "statspack" and parsed["header"]["db_id"] == 1066102538
    code, out, _ = run_cli(capsys, "parse", "awr", str(report))
    # Top 5 "control file parallel write  74,394  24  0  4.1" (its % is of total call time): its whole-ms 0 is
    # under 0.5 ms, shown in ms as the summary shows it, not as 0 us
    assert code == 0 and re.search(r"^control file parallel write\s+74,394\s+24\s+< 0.5\s+4.1\s+System I/O$", out,
                                   re.M)
    assert "Avg wait (us)" not in out and re.search(r"^Event\s+Waits\s+Time \(s\)\s+Avg wait \(ms\)", out, re.M)
    code, out, _ = run_cli(capsys, "parse", "awr", "--summary", str(report))
    # Instance Activity Stats per Second: physical read IO requests 4.1, physical write IO requests 1.2
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 100
    assert re.search(r"^Scope\s+instance \(Statspack report\)$", out, re.M)
    assert re.search(r"^IOPS \(read \+ write requests/s\)\s+5.3$", out, re.M)
    assert re.search(r"^DB CPU \(% of DB time\)\s+192.1$", out, re.M)  # Time Model "DB CPU  1,186.7  192.1"
    assert re.search(r"^Target: slo_ms\s+none \(see the note\)$", out, re.M) and "Note: Statspack prints average waits" in out
    assert "Top I/O events (by total call time)" in out
    assert re.search(r"^log file sync\s+Commit\s+27,068\s+< 0.5\s+1.1$", out, re.M)  # Top 5 "27,068  6  0  1.1"


def test_parse_awr_summary_says_what_a_statspack_report_prints(capsys):
    """A Statspack report's whole-millisecond 0 is shown as under 0.5 ms, its histogram's share under 1 ms
    is given, a DB CPU over its DB time is noted, and every share has one decimal."""
    report = DATA / "awr" / "11.2.0.4_single_prod_statspack.txt.gz"
    code, out, _ = run_cli(capsys, "parse", "awr", "--summary", str(report))
    # Foreground Wait Events "db file sequential read  121,513  0  1  0  2.5  .1" (Avg wait (ms) 0, 1 s in
    # all), "log file sync  27,042  0  6  0": whole milliseconds, under 50 s of waits (none computed finer)
    assert code == 0 and re.search(r"^Read latency, db file sequential read \(ms\)\s+< 0.5$", out, re.M)
    for label in ("Redo write, log file parallel write", "DBWR write, db file parallel write", "Commit, log file sync"):
        assert re.search(rf"^{label} \(ms\)\s+< 0.5$", out, re.M)
    # Wait Event Histogram "db file sequential read     237K 100.0" (<1ms)
    assert re.search(r"^Read waits under 1 ms \(%\)\s+100.0$", out, re.M)  # as printed, not "100"
    # Time Model "DB CPU  1,186.7  192.1", "DB time  617.8"
    assert re.search(r"^DB CPU \(% of DB time\)\s+192.1$", out, re.M)
    assert ("Note: The report's own DB CPU exceeds its DB time (1,186.7 s against 617.8 s)"
            in " ".join(out.split()))
    # Top 5 "db file async I/O submit  3,216  6  2  1.0": 1.5 to 2.5 ms, never "2,000" us
    assert re.search(r"^db file async I/O submit\s+System I/O\s+3,216\s+2 \(whole ms\)\s+1.0$", out, re.M)
    code, out, _ = run_cli(capsys, "parse", "awr", str(report))
    assert code == 0 and re.search(r"^db file async I/O submit\s+3,216\s+6\s+2 \(whole ms\)\s+1.0\s+System I/O$",
                                   out, re.M)
    code, out, _ = run_cli(capsys, "parse", "awr", str(report), "--format", "csv")  # csv keeps the numbers
    assert code == 0 and 'db file async I/O submit,3216.0,"3,216",6.0,6,2000.0,2,' in out
    # the JSON keeps the numbers and says which are whole milliseconds
    code, out, _ = run_cli(capsys, "parse", "awr", "--summary", str(report), "--format", "json")
    summary = json.loads(out)
    assert (summary["read_lat_ms"], summary["read_under_1ms_pct"], summary["db_cpu_pct_of_db_time"]) == (0.0, 100.0,
                                                                                                         192.1)
    assert summary["latency_whole_ms"] == ["read_lat_ms", "redo_write_lat_ms", "dbwr_write_lat_ms", "commit_lat_ms"]
    # an AWR report: its averages are finer, its DB CPU under its DB time ("DB CPU 296.8 84.0")
    prod = DATA / "awr" / "12.2.0.1_single_prod_awr.html"
    code, out, _ = run_cli(capsys, "parse", "awr", "--summary", str(prod))
    assert code == 0 and "Note:" not in out and re.search(r"^Read latency, db file sequential read \(ms\)\s+1.7$",
                                                           out, re.M)
    assert re.search(r"^DB CPU \(% of DB time\)\s+84.0$", out, re.M)  # as printed, not "84"
    # Top 10 "Disk file operations I/O  665  .1  122.58us  .0  User I/O"
    assert re.search(r"^Disk file operations I/O\s+User I/O\s+665\s+0.123\s+0.0$", out, re.M)
    code, out, _ = run_cli(capsys, "parse", "awr", str(prod))
    assert code == 0 and re.search(r"^DB CPU\s+296.8\s+84.0$", out, re.M)


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


def test_parse_says_what_a_damaged_output_lost(capsys, tmp_path):
    """A SLOB run directory whose tm.out is gone: its metric ``damaged`` names it; an AWR report
    with a Load Profile line lost: the report's other rows, and the loss on stderr."""
    run = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
    copy = tmp_path / "run"
    copy.mkdir()
    for name in ("awr.txt", "awr_rac.txt", "mpstat.out", "iostat.out"):
        (copy / name).write_bytes((run / name).read_bytes())
    code, out, _ = run_cli(capsys, "parse", "slob", str(copy), "--format", "json")
    metrics = json.loads(out)
    assert code == 0 and metrics["tm_s"] is None and metrics["damaged"] == "tm.out: missing (lost: tm_s)"
    report = tmp_path / "awr.txt"
    report.write_text((run / "awr.txt").read_text().replace("           Transactions:           1,043.9\n", ""))
    code, out, err = run_cli(capsys, "parse", "awr", str(report), "--format", "csv")
    assert code == 0 and out.startswith("event,")
    assert err == ("flashpoc: awr.txt: not understood: Load Profile: section 'Load Profile': no row of 'Transactions', "
                   "which AWR prints in every report: a line lost?\n")


def test_version_and_a_description_for_every_command(capsys):
    code, out, _ = run_cli_exit(capsys, "--version")
    assert code == 0 and out == f"flashpoc {flashpoc.__version__}\n"
    commands = ("run", "check", "validate", "parse", "saturation", "lab")
    code, out, _ = run_cli_exit(capsys, "--help")
    assert code == 0 and all(re.search(rf"^    {name}\s+\S", out, re.M) for name in commands)
    assert "exit codes:\n  0    done" in out and "\n  2    bad input" in out
    for name in commands:
        code, out, _ = run_cli_exit(capsys, name, "--help")
        usage, description = out.split("\n\n")[:2]
        assert code == 0 and usage.startswith(f"usage: flashpoc {name}") and len(description.split()) >= 15, out
        assert "exit codes:" in out and max(len(line) for line in out.splitlines()) <= 100
        codes = re.findall(r"^  (\d+) +(\S.*)$", out.split("exit codes:\n")[1], re.M)
        assert codes and codes[0][0] == "0", out  # each code the command returns, with when
        assert [int(c) for c, _ in codes] == sorted(COMMAND_EXIT_CODES[name]), out
    _, out, _ = run_cli_exit(capsys, "saturation", "--help")
    assert re.search(r"^  0 +an answer", out, re.M) and re.search(r"^  1 +no answer", out, re.M)
    assert "environment check" not in out.split("exit codes:")[1]  # saturation runs no check


def run_cli_exit(capsys, *argv):
    """``main`` for arguments argparse answers itself (--help, --version, usage errors)."""
    try:
        code = main(list(argv))
    except SystemExit as done:
        code = done.code
    out, err = capsys.readouterr()
    return code, out, err


def test_one_error_prefix_and_exit_code_for_bad_input(capsys, tmp_path):
    for argv in (["bogus"], ["run"], ["parse", "fio"], ["saturation", "x.csv", "--gain-pct", "many"]):
        code, out, err = run_cli_exit(capsys, *argv)
        assert code == 2 and out == "" and err.splitlines()[-1].startswith("flashpoc: error: "), (argv, err)
    code, _, err = run_cli(capsys, "validate", str(tmp_path / "absent.yaml"))
    assert code == 2 and err.startswith("flashpoc: error: cannot read parameters file")


def test_parse_slob_on_a_folder_that_is_not_a_slob_run(capsys, tmp_path):
    code, out, err = run_cli(capsys, "parse", "slob", str(DATA / "vdbench" / "rr_threads_sweep"))
    assert code == 2 and out == ""
    assert err.startswith(f"flashpoc: error: {DATA / 'vdbench' / 'rr_threads_sweep'} is not a SLOB run directory: "
                          "expected the files SLOB's runit.sh leaves: awr.txt, awr.html.gz, awr.html, awr_rac.txt")
    assert "it holds console.txt, errorlog.html" in err and "no AWR report" not in err
    (tmp_path / "empty").mkdir()
    code, _, err = run_cli(capsys, "parse", "slob", str(tmp_path / "empty"))
    assert code == 2 and err.rstrip().endswith("it holds no files")
    partial = tmp_path / "no-awr"  # a SLOB run whose AWR report is missing says so
    partial.mkdir()
    (partial / "mpstat.out").write_bytes((DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10" / "mpstat.out")
                                         .read_bytes())
    code, _, err = run_cli(capsys, "parse", "slob", str(partial))
    assert code == 2 and "the run left no AWR report (awr.txt or awr.html.gz)" in err


TABLES = [("fio", FIO / "fio-3.1_randread_4k_iodepth16_numjobs8_group_reporting.json",
           ["Job", "Direction", "IOPS", "MiB/s", "Mean lat (us)"], "42,327.5"),  # iops 42327.534493
          ("vdbench", DATA / "vdbench" / "rr_threads_sweep", ["Run", "Threads", "IOPS", "MB/s", "Resp (ms)"],
           "72,704.7"),  # threads=16: 72704.7 IOPS
          ("awr", DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10" / "awr.txt",
           ["Event", "Waits", "Time (s)", "Avg wait (us)"], "10,924,627"),  # db file sequential read waits
          ("slob", DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10", ["Metric", "Value"], "60,656.2")]


def test_parse_tables_have_human_headers_and_fit_100_columns(capsys):
    for engine, path, headers, number in TABLES:
        code, out, _ = run_cli(capsys, "parse", engine, str(path))
        lines = out.splitlines()
        assert code == 0 and max(len(line) for line in lines) <= 100, (engine, max(map(len, lines)))
        assert lines[0].split("  ")[: len(headers)] == headers or all(h in lines[0] for h in headers), lines[0]
        assert "_" not in lines[0] and number in out, (engine, out[:500])


def test_parse_table_fits_the_terminal(tmp_path):
    """In a terminal 60 columns wide, ``parse --format table`` prints lines of at most 60 characters:
    the columns that do not fit are named on a last line."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 60, 0, 0))
    path = FIO / "fio-3.1_randread_4k_iodepth16_numjobs8_group_reporting.json"
    done = subprocess.run([sys.executable, "-m", "flashpoc.cli", "parse", "fio", str(path)], stdout=slave,
                          stderr=slave, timeout=120)
    os.close(slave)
    text = read_pty(master)
    lines = text.replace("\r\n", "\n").rstrip("\n").split("\n")
    assert done.returncode == 0 and max(len(line) for line in lines) <= 60, lines
    assert lines[0].split() == ["Job", "Direction", "Pattern", "Block", "Jobs", "Depth", "IOPS"]
    assert lines[1].split() == ["iotest", "read", "randread", "4k", "8", "16", "42,327.5"]  # 42327.534493
    assert " ".join(lines[2:]).startswith("(7 more columns: MiB/s, Mean lat (us), p50 (us), p99 (us), p99.9 (us)")


def read_pty(master: int) -> str:
    """Everything written to a pseudo-terminal until its other end is closed."""
    import os

    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return b"".join(chunks).decode()


def screen(text: str) -> list[str]:
    """The lines a terminal shows for ``text``: a carriage return followed by "erase line"
    (``\\r\\x1b[K``) wipes the line being written (the live status line), a newline ends it."""
    lines, current = [], ""
    for part in re.split(r"(\r\x1b\[K|\r?\n)", text):
        if part == "\r\x1b[K":
            current = ""
        elif part in ("\n", "\r\n"):
            lines.append(current)
            current = ""
        else:
            current += part
    return lines + ([current] if current else [])


def test_a_resumed_run_in_a_terminal(batch_run, tmp_path):
    """`flashpoc run --phases sweep` in a terminal 100 columns wide, on a copy of a batch run's
    results with the sweep now up to 4 threads: the stored points are said in one line per run of
    them ("3 stored points reused"), the new ones each in a line with their stored numbers, and a
    live status line (a bar, the count, elapsed, ETA) is drawn under them and wiped before each
    line, so that no line is wider than the terminal (a path longer than it is alone on its line,
    never broken) and none is left behind."""
    import fcntl
    import os
    import pty
    import shutil
    import struct
    import termios

    root, params, _ = batch_run
    shutil.copytree(root / "results", tmp_path / "results")
    values = {**yaml.safe_load(params.read_text()), "results_dir": str(tmp_path / "results"),
              "sweep": {"plan": "guide", "max_threads": 4, "step": 1}}
    again = tmp_path / "quick.yaml"
    again.write_text(yaml.safe_dump(values))
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    run = subprocess.Popen([sys.executable, "-m", "flashpoc.cli", "run", "--phases", "sweep", str(again)],
                           stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                           env={**os.environ, "FLASHPOC_ROOT": str(tmp_path)})
    os.close(slave)
    text = read_pty(master)
    assert run.wait(timeout=600) == 0, text[-3000:]
    seen = screen(text)
    print("\n".join(seen))
    # no line wider than the terminal, but a path longer than it, alone on its line to be copied whole
    assert [line for line in seen if len(line) > 100 and " " in line.strip()] == [] and "\r\x1b[K" in text
    status = re.findall(r"\[sweep\] \[[#.]{20}\] \d/8 elapsed \d+:\d\d(?::\d\d)?[^\r\n]*", text)
    assert status and not [line for line in seen if line.startswith("[sweep] [")]  # drawn, and wiped
    reused = [line for line in seen if "stored points reused" in line]
    assert [re.match(r"\[sweep\] +(\d)/8 3 stored points reused \| \d", line).group(1) for line in reused] == \
        ["3", "7"]
    points = pd.read_csv(tmp_path / "results" / "quick" / "points.csv").set_index(["phase", "workload", "threads"])
    for count, workload in ((4, "randread-4k"), (8, "randwrite-4k")):
        row = points.loc[("sweep", workload, 4)]
        assert [line for line in seen if re.match(rf"\[sweep\] +{count}/8 {workload} +4 threads +"
                                                  rf"{row['iops']:,.0f} IOPS +{row['lat_mean_ms']:.3f} ms \| ", line)]
    assert re.search(r"^\[sweep\] sweep: 8 points \(6 stored, reused\) in \d+:\d\d(?::\d\d)?$", "\n".join(seen), re.M)
    assert "Summary of quick (SLO: mean latency 1 ms):" in seen


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


def test_saturation_reads_a_campaigns_own_points_csv(batch_run, capsys):
    """``flashpoc saturation results/<campaign>/points.csv`` wanted a latency_ms column, and the workbook's
    points.csv has lat_mean_ms: it reads its probe's points (the sweep's are of other workloads and
    counts), and says the most IOPS measured beside the plateau's level."""
    from flashpoc.analysis import Point, find_saturation

    root, _, _ = batch_run
    path = root / "results" / "quick" / "points.csv"
    points = pd.read_csv(path)
    probe = points[points["phase"] == "probe"]
    code, out, err = run_cli(capsys, "saturation", str(path), "--format", "json")
    result = json.loads(out)
    expected = find_saturation([Point(int(r.threads), float(r.iops), float(r.lat_mean_ms), int(r.outstanding_ios))
                                for r in probe.itertuples()])
    assert err == "" and code == (0 if expected.supported else 1)
    assert (result["threads"], result["plateau_iops"], result["reason"]) == \
        (expected.threads, expected.max_iops, expected.reason)
    best = probe.loc[probe["iops"].idxmax()]
    assert result["most_iops_measured"] == {"iops": best["iops"], "threads": int(best["threads"])}
    code, out, _ = run_cli(capsys, "saturation", str(path))
    workload = probe["workload"].iloc[0]
    assert out.startswith(f"read:               {len(probe)} points of the probe ({workload}) from {path}\n")
    sweep = points[points["phase"] == "sweep"]
    if sweep["workload"].nunique() > 1:  # without the probe's points: one workload must be chosen
        only = root / "sweep.csv"
        sweep.to_csv(only, index=False)
        code, _, err = run_cli(capsys, "saturation", str(only))
        assert code == 2 and "choose one with --workload" in err
        code, out, _ = run_cli(capsys, "saturation", str(only), "--workload", workload)
        assert f"points ({workload}) from" in out


def test_parse_vdbench_reads_a_stored_point_folder(capsys, tmp_path):
    """A campaign keeps each vdbench run's output directory in its point folder, flattened
    (output__totals.html, ...) beside the point's row: ``parse vdbench`` refused that folder; it reads it as
    the output directory it came from (the real vdbench 5.04.06 run of tests/data/vdbench)."""
    from flashpoc.engines.vdbench.parse import read_output_dir, stored_output_files

    source = DATA / "vdbench" / "rr_threads_sweep"
    point = tmp_path / "points" / "probe" / "rd1_0123456789"
    point.mkdir(parents=True)
    for name, text in stored_output_files(read_output_dir(source)).items():
        (point / name).write_text(text)
    (point / "points.json").write_text("[]")
    (point / "parmfile").write_text((source / "parmfile.html").read_text() if (source / "parmfile.html").exists()
                                    else "")
    code, out, _ = run_cli(capsys, "parse", "vdbench", str(source), "--format", "json")
    code_stored, stored, err = run_cli(capsys, "parse", "vdbench", str(point), "--format", "json")
    assert (code, code_stored, err) == (0, 0, "")
    assert json.loads(stored) == json.loads(out)
    assert [r["iops"] for r in json.loads(stored)][-1] == 72704.7  # totals.html: avg_2-10 of threads=16


def test_flashpoc_run_from_another_folder_writes_one_campaign_folder(tmp_path):
    """``flashpoc run`` started in one folder on a parameters file in a workbook elsewhere stopped on a
    FileNotFoundError traceback (.../results/<campaign>/check.csv, looked for under the current folder) with
    its results split over two folders. Relative paths resolve against one workbook root for the command
    and its notebooks' kernels: the parameters file's workbook, here."""
    require_fio()
    import shutil

    from conftest import REPO

    workbook, elsewhere = tmp_path / "workbook", tmp_path / "elsewhere"
    shutil.copytree(REPO / "notebooks", workbook / "notebooks")
    (workbook / "parameters").mkdir(parents=True)
    elsewhere.mkdir()
    values = quick_campaign(workbook, campaign="away", probe={"strategy": "linear", "min_threads": 1,
                                                              "max_threads": 2, "step": 1})
    values["targets"][0]["path"] = "results/scratch/away.dat"  # relative: to the workbook root
    values["results_dir"] = "results"
    params = workbook / "parameters" / "away.yaml"
    params.write_text(yaml.safe_dump(values))
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("FLASHPOC_ROOT", "FLASHPOC_RESULTS_DIR")}
    out = subprocess.run([sys.executable, "-m", "flashpoc.cli", "run", str(params), "--phases", "check,probe"],
                         cwd=elsewhere, capture_output=True, text=True, timeout=900, env=env)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr[-2000:]
    assert list(elsewhere.iterdir()) == []  # nothing written where it was started
    campaign = workbook / "results" / "away"
    assert {"check.csv", "probe.json", "points.csv", "notebooks"} <= {p.name for p in campaign.iterdir()}
    assert (workbook / "results" / "scratch" / "away.dat").is_file()
    assert f"executed notebooks: {campaign / 'notebooks'}" in " ".join(out.stdout.split())  # wrapped to 100


def test_the_workbook_root_of_a_command(tmp_path, monkeypatch):
    """The current folder's workbook, else the parameters file's, else the one whose notebooks flashpoc runs;
    $FLASHPOC_ROOT first."""
    from conftest import REPO
    from flashpoc.cli.commands import workbook_for

    first, second = tmp_path / "first", tmp_path / "second"
    for book in (first, second):
        (book / "notebooks").mkdir(parents=True)
        (book / "parameters").mkdir()
    monkeypatch.delenv("FLASHPOC_ROOT", raising=False)
    monkeypatch.chdir(first / "notebooks")
    assert workbook_for([str(second / "parameters" / "x.yaml")]) == first
    monkeypatch.chdir(tmp_path)
    assert workbook_for([str(second / "parameters" / "x.yaml")]) == second
    assert workbook_for([str(tmp_path / "x.yaml")]) == REPO
    monkeypatch.setenv("FLASHPOC_ROOT", str(second))
    assert workbook_for([str(first / "parameters" / "x.yaml")]) == second


def test_ctrl_c_while_papermill_ends_on_another_error_is_an_interrupt_not_a_traceback(tmp_path):
    """Ctrl-C was sometimes followed by nbclient's DeadKernelError traceback: the KeyboardInterrupt landed
    inside papermill, whose cleanup then found the kernel (which got the Ctrl-C too) dead and raised that
    instead. Papermill here does just that (the interrupt, then DeadKernelError from its cleanup): the run
    ends as interrupted, exit 130, one line, no traceback."""
    params = tmp_path / "quick.yaml"
    params.write_text(yaml.safe_dump(quick_campaign(tmp_path)))
    script = f"""
import os, signal, sys, time
import papermill
from nbclient.exceptions import DeadKernelError

def execute_notebook(*args, **kwargs):  # papermill: Ctrl-C while a cell runs, the kernel dies with it
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(3)
    finally:
        raise DeadKernelError("Kernel died")

papermill.execute_notebook = execute_notebook
from flashpoc.cli import main
sys.exit(main(["run", {str(params)!r}, "--phases", "check"]))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "FLASHPOC_ROOT": str(tmp_path)})
    assert "Traceback" not in out.stderr + out.stdout, out.stderr[-2000:]
    assert out.returncode == 130
    assert out.stderr.splitlines()[-1] == ("flashpoc: error: interrupted; completed points are stored and reused on "
                                           "the next run")
