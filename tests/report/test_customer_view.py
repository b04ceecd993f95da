"""What a customer reads in the report, found by reading the demo's report as a newcomer would:
no folder of the machine that ran the campaign, sentences that read, verdicts said once."""

from __future__ import annotations

import json

import pandas as pd

from flashpoc.present import document
from flashpoc.params import campaign_from_dict


def test_the_targets_table_prints_a_scratch_file_as_the_parameters_give_it(tmp_path, monkeypatch):
    """The demo's report printed its scratch file as /home/.../results/scratch/flashpoc-demo.dat:
    the folder of the machine that ran it. A path under the workbook root is printed relative to
    it, as the parameters give it; a device path as it is."""
    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))
    cfg = campaign_from_dict({
        "campaign": "paths", "hosts": [{"name": "local", "address": "localhost"}],
        "workloads": [{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
        "targets": [{"name": "scratch", "path": "results/scratch/flashpoc-demo.dat", "size": "1g", "create": True},
                    {"name": "lun1", "path": "/dev/mapper/lun1"}]}).resolved()
    assert cfg.targets[0].path == str(tmp_path / "results/scratch/flashpoc-demo.dat")  # what the phases use
    table = document.targets_table(cfg, pd.DataFrame())
    assert table.frame["Path"].tolist() == ["results/scratch/flashpoc-demo.dat", "/dev/mapper/lun1"]
    assert str(tmp_path) not in table.to_html()


def _stored_points(phase: str) -> list[dict]:
    """The rows of a real tiny fio campaign's stored points (tests/data/stored, fio 3.33)."""
    import json

    from conftest import DATA

    folder = DATA / "stored" / "fio-format1" / "points" / phase
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*/point.json"))]


def test_the_notebooks_tables_read_like_the_reports():
    """Notebooks 01-03 showed their rows as pandas printed them: machine names (lat_mean_ms,
    host_cpu_busy_pct, steadystate_attained), an index column, IOPS as 2697.0 and details cut
    at 50 characters. They show the report's headers with units and its numbers."""
    from flashpoc import phases
    from flashpoc.present import summary

    keys = ("threads", "outstanding_ios", "iops", "lat_mean_ms", "clat_p99_ms", "host_cpu_busy_pct",
            "steadystate_attained", "measured_s", "repeat", "point_id", "hosts")  # what probe.json keeps
    rows = [{k: r.get(k) for k in keys} for r in _stored_points("probe")]
    table = summary.frame_display(phases.probe_table({"points": rows, "workload": "randread-4k"}))
    headers = list(table.frame.columns)
    assert {"Threads", "Outstanding I/Os", "IOPS", "Mean latency (ms)", "p99 (ms)"} <= set(headers)
    assert not [h for h in headers if "_" in h], headers
    first = table.frame.iloc[0]
    assert (first["Threads"], first["IOPS"], first["Mean latency (ms)"], first["p99 (ms)"]) == \
        ("1", "2,697", "0.370", "2.802")  # 2697.302697 IOPS, 0.36987 ms, p99 2.801664 ms
    hosts = summary.frame_display(phases.probe_hosts_table({"points": rows, "workload": "randread-4k"}))
    assert list(hosts.frame.columns)[:4] == ["Workload", "Threads", "Host", "IOPS"]
    detail = "read with iflag=direct from a temporary file next to the target: O_DIRECT works there"
    check = summary.frame_display(pd.DataFrame([
        {"host": "local", "check": "memory", "value": 25276502016, "status": "pass", "detail": "23.5 GiB"},
        {"host": "local", "check": "target scratch: O_DIRECT", "value": True, "status": "pass", "detail": detail},
        {"host": "(campaign)", "check": "working set vs array cache", "value": None, "status": "warn", "detail": "-"}]))
    assert list(check.frame.columns) == ["Host", "Check", "Value", "Status", "Detail"]
    assert check.frame["Value"].tolist() == ["25,276,502,016", "yes", "–"]
    assert detail in check.to_html()  # whole, not cut at 50 characters


def test_a_batch_run_s_explorer_says_what_it_does_rather_than_print_a_widget(monkeypatch):
    """The demo's executed 04_report.html printed the explorer as Python, "VBox(children=(HBox(
    children=(Dropdown(description='Workload', ...": papermill keeps no widget state. In a batch
    run the explorer says in words what its controls do in JupyterLab."""
    from types import SimpleNamespace

    from flashpoc.present import explore
    from flashpoc.present.progress import BATCH_ENV

    rows = _stored_points("sweep")
    report = SimpleNamespace(points=pd.DataFrame(rows), configs=[], slo_ms=1.0)
    monkeypatch.setenv(BATCH_ENV, "1")
    shown = explore.explorer(report)
    assert "VBox" not in repr(shown) and "controls here that pick a workload" in shown.data


def test_a_table_note_is_plain_text():
    """A table's notes are printed as they are (no Markdown): the fill table's note showed its
    record's path between literal backticks."""
    from flashpoc.campaign.precondition.status import fill_table

    table = fill_table(None, {"targets": [{"host": "local", "target": "scratch", "action": "unfilled"}]})
    assert "targets/<host>/<target>.json)" in table.notes[0] and "`" not in " ".join(table.notes)
    # nor its cells: the glossary printed `slo_ms` with its backticks
    assert "`" not in document.glossary().to_html()


def test_the_load_hosts_section_of_one_host_says_so_in_a_sentence():
    """The section opened with an aside in parentheses, '(one load host per point: ...)'."""
    from flashpoc.present.reporting import hosts_text

    text = hosts_text(pd.DataFrame(), None)
    assert text.startswith("One load host ran every point. With several, this section shows each host's IOPS")


def test_the_probe_names_its_follow_up_sweep_in_words():
    """The probe's text named the follow-up sweep in vdbench's syntax, 'threads (2,28,42,48,60)'."""
    from flashpoc.present.summary.probe import probe_text

    probe = {"saturation": {"threads": None}, "runs": 5, "device_time_s": 16.1, "strategy": "adaptive",
             "workload": "randread-4k", "gain_pct": 2, "points": [],
             "followup_sweep": {"threads": [2, 28, 42, 48, 60], "forthreads": "(2,28,42,48,60)", "points": 5}}
    assert "Follow-up sweep: threads 2, 28, 42, 48, 60 (5 points per workload)." in probe_text(probe)


def test_a_comparison_names_each_campaign_s_data_and_only_the_links_its_storage_used(tmp_path, monkeypatch):
    """Two real fio campaigns on this machine's scratch files, one filled with 75 % compressible data
    of which half dedups, the other with fio's incompressible default: the Targets table gives each
    campaign its own data, "What differed" names the data, and a link no target was reached over
    (a local file: no network transport) is no condition of the test."""
    from conftest import quick_campaign, require_fio
    from flashpoc.campaign import environment
    from flashpoc import phases

    require_fio()
    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))
    reduced = quick_campaign(tmp_path, campaign="reduced", workloads=[{"name": "randread-4k", "rw": "randread",
                                                                        "bs": "4k"}],
                             fio={"runtime_s": 1, "ramp_s": 0, "buffer_compress_percentage": 75,
                                  "dedupe_percentage": 50})
    plain = {**reduced, "campaign": "plain", "fio": {"runtime_s": 1, "ramp_s": 0},
             "targets": [{"name": "scratch", "path": str(tmp_path / "plain.dat"), "size": "64m", "create": True}]}
    for values in (plain, reduced):
        cfg = campaign_from_dict(values)
        phases.run_check(cfg)
        phases.run_sweep(cfg, {"randread-4k": [1, 2]}, progress=False)
    cfg = campaign_from_dict({**reduced, "report": {"label": "A", "compare": [{"campaign": "plain", "label": "B"}]}})
    report = phases.build_report(cfg, pdf=False)
    (targets,) = [i for s in report.sections for i in s.items if getattr(i, "caption", "") == "Targets"]
    shown = targets.frame.set_index("Configuration")
    assert shown.loc["A", "Data"] == "fio buffer_compress_percentage=75 dedupe_percentage=50, refill_buffers"
    assert shown.loc["B", "Data"] == "fio random data (incompressible, no dedup), refill_buffers"
    assert (shown.loc["A", "Path"], shown.loc["B", "Path"]) == ("scratch.dat", "plain.dat")  # each its own
    conditions = "\n".join(i for s in report.sections if s.key == "conditions" for i in s.items if isinstance(i, str))
    assert ("data on the targets: fio buffer_compress_percentage=75 dedupe_percentage=50, refill_buffers (A) vs fio "
            "random data (incompressible, no dedup), refill_buffers (B)") in conditions
    assert "network:" not in conditions and "fastest link" not in conditions
    # the same host's links are a condition of a target reached over the network
    manifest = json.loads((tmp_path / "results" / "reduced" / "manifest.json").read_text())
    local = manifest["environment"]["hosts"]["local"]
    assert "network" not in environment.conditions(manifest["environment"])
    iscsi = {"hosts": {"local": {**local, "links": {"net": [{"name": "eth0", "speed_mbps": 10000, "state": "up"}]},
                                 "targets": {"/dev/sdb": {"transport": "iSCSI"}}}}}
    assert environment.conditions(iscsi)["network"] == "fastest link 10 Gb/s"
