"""The report's HammerDB views on the real recorded runs (PostgreSQL 15, 1/2/4 virtual users and a
2-virtual-user timed run): NOPM against virtual users with the knee, NEWORD p95 against NOPM, and
two configurations at equal virtual users, with the report's palette and units in the axis titles."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import TESTS
from documents import summary_problems
from flashpoc.present.chart import PALETTE, draw, render_svg, themed_spec
from flashpoc.present.chart.pages import MIN_TEXT_PT, svg_text_pt
from flashpoc.engines.hammerdb.metrics import read_run
from flashpoc.engines.hammerdb.report import compare_at_equal_users, knee, latency_vs_nopm, nopm_vs_users

DATA = TESTS / "data" / "hammerdb"


def points(*folders: str, config: str) -> pd.DataFrame:
    rows = []
    for folder in folders:
        _, metrics, _ = read_run(DATA / folder)
        rows.append({**metrics, "threads": metrics["virtual_users"], "config": config, "workload": "tprocc"})
    return pd.DataFrame(rows)


def _layers(spec: dict) -> list[dict]:
    return spec.get("layer", [spec])


def test_nopm_against_users_with_the_knee():
    sweep = points("sweep_1vu", "sweep_2vu", "sweep_4vu", config="pg15")
    assert list(sweep["nopm"]) == [11088, 9341, 6594]  # TEST RESULT of each run, as printed
    assert knee(sweep).threads == 1  # NOPM falls from the first count on: nothing gained beyond 1
    spec = themed_spec(draw(nopm_vs_users(sweep, knee_users=1, answer="NOPM is highest at 1 virtual user")))
    lines, rule, text = _layers(spec)
    assert lines["encoding"]["x"]["title"] == "Virtual users (count)"
    assert lines["encoding"]["y"]["title"] == "NOPM (new orders per minute)"
    assert rule["mark"]["type"] == "rule" and rule["data"] == text["data"]
    assert spec["datasets"][rule["data"]["name"]] == [{"threads": 1, "label": "knee: 1 virtual user"}]
    drawn = spec["datasets"][lines["data"]["name"]]
    assert [(r["threads"], r["nopm"]) for r in drawn] == [(1, 11088), (2, 9341), (4, 6594)]
    assert spec["title"]["subtitle"] == ["NOPM is highest at 1 virtual user"]


def test_neword_p95_against_nopm_and_the_comparison_at_equal_users():
    both = pd.concat([points("sweep_1vu", "sweep_2vu", "sweep_4vu", config="sweep"),
                      points("timed_2vu", config="timed")], ignore_index=True)
    spec = themed_spec(draw(latency_vs_nopm(both)))
    assert (spec["encoding"]["x"]["title"], spec["encoding"]["y"]["title"]) == (
        "NOPM (new orders per minute)", "NEWORD p95 response time (ms)")
    assert spec["encoding"]["color"]["scale"] == {"domain": ["sweep", "timed"], "range": list(PALETTE)}
    drawn = {(r["config"], r["threads"]): r["neword_p95_ms"] for r in spec["datasets"][spec["data"]["name"]]}
    assert drawn[("sweep", 4)] == 35.172 and drawn[("timed", 2)] == 19.915  # the xtprof summaries, as printed
    table = compare_at_equal_users(both)
    assert list(table["Virtual users"]) == [2, 2] and list(table["Configuration"]) == ["sweep", "timed"]
    assert list(table["NOPM (new orders/min)"]) == [9341, 5533]
    assert table["NOPM change vs sweep (%)"].iloc[1] == pytest.approx((5533 - 9341) / 9341 * 100)
    assert table["TPM change vs sweep (%)"].iloc[1] == pytest.approx((12649 - 21554) / 21554 * 100)


def _stored_campaign(tmp_path, name, runs, label=None, compare=()):
    """A HammerDB campaign whose sweep points are the recorded runs (their rows as the engine stores them)."""
    from flashpoc.engines.hammerdb.engine import TPROCC
    from flashpoc.params import campaign_from_dict
    from flashpoc.analysis.rows import base_row
    from flashpoc.campaign.session import manifest_params
    from flashpoc.core.store import CampaignStore

    cfg = campaign_from_dict({
        "campaign": name, "results_dir": str(tmp_path), "hosts": [{"name": "load1", "address": "localhost"}],
        "engine": {"hammerdb": {"database": "postgresql", "password_env": "A", "superuser_password_env": "B",
                                "warehouses": 2, "rampup_minutes": 1, "duration_minutes": 1}},
        "report": {"label": label or name, "compare": [{"campaign": c, "label": c} for c in compare]}})
    store = CampaignStore(cfg.results_path())
    store.write_manifest(manifest_params(cfg), cfg.params_hash(), engine="hammerdb", engine_versions={"load1": "v6.0"},
                         host_facts={}, workbook={})
    for folder in runs:
        _, metrics, _ = read_run(DATA / folder)
        n = metrics["virtual_users"]
        row = base_row(cfg, phase="sweep", point_id=f"tprocc_t{n:05d}", engine="hammerdb", workload=TPROCC,
                       iodepth=1, threads=n, outstanding=n, hosts=["load1"], runtime_s=60, ramp_s=60, repeat=0,
                       wall_s=130.0)
        store.save_point("sweep", row["point_id"], row | metrics, {})
    return cfg


def test_the_report_of_a_hammerdb_campaign_and_a_comparison(tmp_path):
    from flashpoc.phases import build_report

    _stored_campaign(tmp_path, "timed", ["timed_2vu"])
    cfg = _stored_campaign(tmp_path, "sweep", ["sweep_1vu", "sweep_2vu", "sweep_4vu"], compare=["timed"])
    report = build_report(cfg, pdf=False)
    assert [s.key for s in report.sections] == ["summary", "conditions", "method", "comparison", "results", "appendix",
                                                "files"]
    assert summary_problems(report.sections[0].items) == []
    assert report.configs == ["sweep", "timed"]
    assert report.headline.startswith("**sweep**: HammerDB v6.0 TPROC-C on postgresql.")
    assert "sweep: 11,088 NOPM (25,984 TPM) at 1 virtual users, NEWORD p95 8.804 ms" in report.headline
    assert "timed: 5,533 NOPM (12,649 TPM) at 2 virtual users, NEWORD p95 19.915 ms" in report.headline
    nopm = report.comparison[(report.comparison["metric"] == "NOPM")]
    assert list(zip(nopm["at"], nopm["baseline_value"], nopm["config_value"])) == [("2 virtual users", 9341, 5533)]
    assert (tmp_path / "sweep" / "report" / "comparison.csv").is_file()
    users = pd.read_csv(tmp_path / "sweep" / "report" / "comparison_users.csv")
    assert list(users["NOPM (new orders/min)"]) == [9341, 5533]
    html = (tmp_path / "sweep" / "report" / "report.html").read_text()
    assert "Comparison of the configurations" in html and "NEWORD p95 (ms)" in html and "Virtual users" in html
    assert "at equal NOPM" in html and "9,341" in html
    for name in ("nopm_vs_users", "neword_p95_vs_nopm"):
        assert (tmp_path / "sweep" / "report" / f"{name}.svg").is_file()
    (files,) = report.sections[-1].items
    said = dict(zip(files.frame["File"], files.frame["What"]))
    assert said["report/points.csv"].startswith("Every point's row: NOPM")
    assert said["report/nopm_vs_users.svg, .png, .vl.json"] == (
        "Chart: NOPM against virtual users (the probe's knee marked, where it found one).")
    assert files.notes == ["Each chart is written three times: SVG for documents, PNG for slides, Vega-Lite JSON "
                           "(.vl.json) to draw it again or change it."]
    assert list(said) == ["report/nopm_vs_users.svg, .png, .vl.json", "report/neword_p95_vs_nopm.svg, .png, .vl.json",
                          "report/points.csv", "report/comparison.csv", "report/comparison_users.csv",
                          "report/report.html", "report/report.pdf"]  # a chart's three files in one row
    assert said["report/report.html"] == "This report: one page, offline (no network), for any browser."
    assert said["report/report.pdf"] == "Not written: the parameters say report: {pdf: false}."
    assert "Not written: the parameters say report: {pdf: false}." in html
    points = pd.read_csv(tmp_path / "sweep" / "report" / "points.csv")
    assert sorted(zip(points["config"], points["threads"], points["nopm"])) == [
        ("sweep", 1, 11088), ("sweep", 2, 9341), ("sweep", 4, 6594), ("timed", 2, 5533)]


def test_an_engines_report_without_a_chromium_says_why_there_is_no_pdf(tmp_path, monkeypatch):
    """HammerDB's own report (an engine's report view) when Chromium cannot print: report.html is
    written, no report.pdf is in its files or its folder (an earlier build's removed), and the report's
    context says why, as the I/O report's does."""
    from flashpoc.phases import build_report

    cfg = _stored_campaign(tmp_path, "sweep", ["sweep_1vu", "sweep_2vu"])
    (tmp_path / "sweep" / "report").mkdir(parents=True)
    (tmp_path / "sweep" / "report" / "report.pdf").write_bytes(b"%PDF of an earlier build")
    monkeypatch.setenv("FLASHPOC_CHROMIUM", "/bin/false")
    report = build_report(cfg, pdf=True)
    assert "report.pdf" not in report.files and not (tmp_path / "sweep" / "report" / "report.pdf").exists()
    assert "NOPM" in (tmp_path / "sweep" / "report" / "report.html").read_text()
    assert report.context.pdf_note == "/bin/false exited with 1 and printed no PDF"
    # the table of files, composed again once printing failed, says so
    assert "report/report.pdf</td><td class=\"text\">Not written: /bin/false exited with 1 and printed no PDF." in (
        tmp_path / "sweep" / "report" / "report.html").read_text()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789,.%()", min_size=1, max_size=14),
                min_size=1, max_size=160))
@example(["the", "probe's", "answer", "in", "one", "paragraph"] * 25)
def test_no_answer_makes_the_nopm_chart_too_wide_to_print(words):
    """Issue 30, item 11: the probe's answer, a paragraph, as the chart's subtitle drew it 5,200 px wide,
    its text at about 1 pt on an A4 page. Any subtitle is drawn in lines: the chart's smallest text
    prints at 8 pt or more."""
    sweep = points("sweep_1vu", "sweep_2vu", "sweep_4vu", config="pg15")
    chart = draw(nopm_vs_users(sweep, knee_users=1, answer=" ".join(words)))
    assert svg_text_pt(render_svg(chart)) >= MIN_TEXT_PT
