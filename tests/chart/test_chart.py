"""Charts are tested through ``chart.to_dict()``: marks, encodings, titles, data values."""

from __future__ import annotations

import re

import altair as alt
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashpoc.present import chart
from flashpoc.core.errors import AnalysisError

from conftest import DATA

UNIT_TITLE = re.compile(r"^IOPS$|\((ms|%|threads|s|us / ms|ms, log scale)\)$")


@pytest.fixture(autouse=True)
def _restore_altair_state():
    """Charts and renderers are global Altair state: put them back after each test."""
    theme, renderer, transformer = alt.theme.active, alt.renderers.active, alt.data_transformers.active
    yield
    alt.theme.enable(theme)
    alt.renderers.enable(renderer)
    alt.data_transformers.enable(transformer)


@pytest.fixture
def points() -> pd.DataFrame:
    """Two workloads x four thread counts; randread at 4 threads is measured twice."""
    rows = []
    for workload, scale in (("randread-8k", 1.0), ("randwrite-8k", 0.5)):
        for threads in (1, 2, 4, 8):
            iops = scale * 10000.0 * min(threads, 4)
            rows.append({
                "workload": workload, "threads": threads, "iops": iops,
                "lat_mean_ms": threads / iops * 1000,
                "clat_p50_ms": 0.1 * threads, "clat_p99_ms": 0.4 * threads, "clat_p99_9_ms": 0.9 * threads,
                "host_cpu_busy_pct": 5.0 * threads, "host_cpu_iowait_pct": 2.0 * threads,
            })
    rows.append({**rows[2], "iops": rows[2]["iops"] + 2000, "lat_mean_ms": rows[2]["lat_mean_ms"] + 0.2})
    return pd.DataFrame(rows)


@pytest.fixture
def knees() -> pd.DataFrame:
    return pd.DataFrame({"workload": ["randread-8k", "randwrite-8k"], "iops": [41000.0, 20000.0],
                         "lat_mean_ms": [0.2, 0.4]})


def layer_data(spec: dict, layer: dict) -> list[dict]:
    return spec["datasets"][layer["data"]["name"]]


def drawn(layers: list[dict]) -> list[dict]:
    """The layers but the 95 % interval bars of repeated points (their x2 or y2)."""
    return [layer for layer in layers if not {"x2", "y2"} & set(layer.get("encoding", {}))]


def mark_type(layer: dict) -> str:
    mark = layer["mark"]
    return mark if isinstance(mark, str) else mark["type"]


def xy_encodings(spec: dict) -> list[dict]:
    """Every x/y encoding of a field anywhere in the spec."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            encoding = node.get("encoding", {})
            found.extend(encoding[c] for c in ("x", "y") if "field" in encoding.get(c, {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return found


def axis_titles(spec: dict) -> list[str]:
    """Every x/y encoding title anywhere in the spec."""
    return [encoding.get("title") for encoding in xy_encodings(spec)]


def test_use_theme_enables_the_house_theme(points):
    assert chart.use_theme() == "flashpoc"
    assert alt.theme.active == "flashpoc"
    config = chart.hockey_stick(points).to_dict()["config"]
    assert config["range"]["category"] == list(chart.PALETTE)
    assert config["axis"]["titleFontSize"] >= 12
    assert "Helvetica" in config["font"]


def test_hockey_stick_marks_encodings_and_titles(points, knees):
    spec = chart.hockey_stick(points, knees=knees, slo_ms=0.5).to_dict()
    assert spec["title"]["text"] == "IOPS vs mean latency"
    line, knee_marks, rule, rule_label = drawn(spec["layer"])
    assert line["mark"] == {"type": "line", "point": True}
    enc = line["encoding"]
    assert (enc["x"]["field"], enc["x"]["title"]) == ("iops", "IOPS")
    assert (enc["y"]["field"], enc["y"]["title"]) == ("lat_mean_ms", "Mean latency (ms)")
    assert enc["color"]["field"] == "workload"
    assert enc["color"]["scale"]["domain"] == ["randread-8k", "randwrite-8k"]
    assert enc["order"] == {"field": "threads", "type": "quantitative"}
    assert "threads" in [t["field"] for t in enc["tooltip"]]
    # the knees are named once in the legend, not by a label beside each (close knees overlapped)
    assert mark_type(knee_marks) == "point"
    assert knee_marks["encoding"]["shape"]["scale"] == {"domain": ["knee"], "range": ["diamond"]}
    assert not [layer for layer in spec["layer"] if mark_type(layer) == "text" and "knee" in str(layer)]
    assert mark_type(rule) == "rule" and rule["encoding"]["y"]["field"] == "slo_ms"
    assert rule_label["encoding"]["text"]["field"] == "label"


def test_hockey_stick_data_knees_and_slo_values(points, knees):
    spec = chart.hockey_stick(points, knees=knees, slo_ms=0.5).to_dict()
    line, knee_marks, rule, _ = drawn(spec["layer"])
    data = pd.DataFrame(layer_data(spec, line))
    assert len(data) == 8  # the repeated run-point is averaged
    repeated = data[(data.workload == "randread-8k") & (data.threads == 4)].iloc[0]
    assert repeated.iops == pytest.approx(41000.0)
    assert set(data.iops) >= {10000.0, 20000.0, 5000.0}
    assert layer_data(spec, knee_marks) == knees.assign(marker="knee").to_dict("records")
    assert layer_data(spec, rule) == [{"slo_ms": 0.5, "label": "SLO 0.5 ms"}]


def test_hockey_stick_says_when_every_point_is_far_under_the_slo(points):
    """An SLO line at 1 ms over curves that end at 0.4 ms would squash them to the bottom."""
    spec = chart.hockey_stick(points, slo_ms=1).to_dict()
    assert [mark_type(layer) for layer in drawn(spec["layer"])] == ["line"]
    assert any("Every point is under the 1 ms SLO (the highest at 0.4 ms)" in line for line in spec["title"]["subtitle"])


def test_hockey_stick_reads_sequential_io_in_mibps_on_its_own_panel(points):
    """128K sequential reads at several ms get their own panel in MiB/s; the small-block curves keep theirs."""
    seq = points[points.workload == "randread-8k"].assign(workload="seqread-128k", rw="read", bs="128k",
                                                          lat_mean_ms=lambda d: d.lat_mean_ms * 20)
    both = pd.concat([points.assign(rw="randread", bs="8k"), seq]).assign(bw_mibps=lambda d: d.iops * 0.125)
    spec = chart.hockey_stick(both, slo_ms=1, color_domain=["randread-8k", "randwrite-8k", "seqread-128k"]).to_dict()
    small, large = spec["vconcat"]
    small_line, large_line = small["layer"][0], large["layer"][0]
    assert small_line["encoding"]["x"]["field"] == "iops"
    assert (large_line["encoding"]["x"]["field"], large_line["encoding"]["x"]["title"]) == ("bw_mibps", "Throughput (MiB/s)")
    def rows(panel, line):
        return spec["datasets"][(line.get("data") or panel["data"])["name"]]

    assert {r["workload"] for r in rows(large, large_line)} == {"seqread-128k"}
    assert max(r["lat_mean_ms"] for r in rows(small, small_line)) < 0.5
    # the same colour range and domain in both panels: a workload keeps its colour
    assert small_line["encoding"]["color"]["scale"] == large_line["encoding"]["color"]["scale"]


def test_hockey_stick_without_annotations_is_one_layer(points):
    spec = chart.hockey_stick(points).to_dict()
    assert len(drawn(spec["layer"])) == 1


def test_hockey_stick_colours_configurations_and_dashes_workloads(points):
    both = pd.concat([points.assign(config="raid5"), points.assign(config="raid10")])
    enc = chart.hockey_stick(both).to_dict()["layer"][0]["encoding"]
    assert enc["color"]["field"] == "config"
    assert enc["color"]["scale"]["domain"] == ["raid10", "raid5"]
    assert enc["strokeDash"]["field"] == "workload"


def test_colour_domain_can_be_fixed_across_charts(points):
    subset = points[points.workload == "randwrite-8k"]
    enc = chart.hockey_stick(subset, color_domain=["randread-8k", "randwrite-8k"]).to_dict()["layer"][0]["encoding"]
    assert enc["color"]["scale"]["domain"] == ["randread-8k", "randwrite-8k"]
    assert enc["color"]["scale"]["range"][:2] == list(chart.PALETTE[:2])


def test_probe_curve_two_panels_and_saturation_rule(points):
    probe = points[points.workload == "randread-8k"].drop(columns="workload")
    spec = chart.probe_curve(probe, saturation_threads=4).to_dict()
    assert spec["title"]["text"].startswith("Saturation probe")
    top, bottom = spec["vconcat"]
    assert top["layer"][0]["encoding"]["y"]["title"] == "IOPS"
    assert bottom["layer"][0]["encoding"]["y"]["title"] == "Mean latency (ms)"
    for panel in (top, bottom):
        rule = panel["layer"][1]
        assert mark_type(rule) == "rule" and rule["encoding"]["x"]["field"] == "threads"
        assert layer_data(spec, rule)[0]["threads"] == 4
    assert [r["threads"] for r in layer_data(spec, top["layer"][0])] == [1, 2, 4, 8]
    # the label at the foot of the rule, where the curve is high: at the top it ran through the plateau
    label = top["layer"][2]
    assert layer_data(spec, label)[0]["label"] == "saturation: 4 threads"
    assert label["encoding"]["y"] == {"datum": 0} and label["mark"]["baseline"] == "bottom"


def test_latency_percentiles_long_format_and_log_scale(points):
    spec = chart.latency_percentiles(points, log_y=True).to_dict()
    assert spec["facet"]["field"] == "workload" and spec["columns"] == 2  # one panel per workload
    enc = spec["spec"]["encoding"]
    assert enc["y"]["scale"]["type"] == "log"
    assert enc["strokeDash"]["field"] == "percentile"
    data = pd.DataFrame(spec["datasets"][spec["data"]["name"]])
    assert sorted(data.percentile.unique()) == ["p50", "p99", "p99.9"]
    assert len(data) == 3 * 8
    row = data[(data.workload == "randwrite-8k") & (data.threads == 8) & (data.percentile == "p99.9")]
    assert row.latency_ms.iloc[0] == pytest.approx(7.2)
    assert chart.latency_percentiles(points).to_dict()["spec"]["encoding"]["y"]["scale"] == {"type": "log"}  # the default
    assert chart.latency_percentiles(points, log_y=False).to_dict()["spec"]["encoding"]["y"]["scale"] == {"zero": True}


def test_latency_percentiles_draws_the_percentiles_it_has(points):
    spec = chart.latency_percentiles(points.drop(columns=["clat_p50_ms", "clat_p99_9_ms"])).to_dict()
    assert spec["spec"]["encoding"]["strokeDash"]["scale"] == {"domain": ["p99"], "range": [[2, 2]]}  # p50 solid, p90 dashed, p99 dotted


def test_host_cpu_busy_and_iowait(points):
    spec = chart.host_cpu(points).to_dict()
    assert spec["spec"]["encoding"]["y"]["title"] == "Host CPU (%)"
    assert spec["spec"]["encoding"]["y"]["scale"]["domain"] == [0, 100]
    data = pd.DataFrame(spec["datasets"][spec["data"]["name"]])
    assert sorted(data.metric.unique()) == ["busy", "iowait"]
    only_busy = chart.host_cpu(points.drop(columns="host_cpu_iowait_pct")).to_dict()
    assert {r["metric"] for r in only_busy["datasets"][only_busy["data"]["name"]]} == {"busy"}


def test_missing_columns_raise_analysis_error(points):
    with pytest.raises(AnalysisError, match="host_cpu_busy_pct"):
        chart.host_cpu(points.drop(columns="host_cpu_busy_pct"))
    with pytest.raises(AnalysisError, match="lat_mean_ms"):
        chart.hockey_stick(points.drop(columns="lat_mean_ms"))
    with pytest.raises(AnalysisError, match="no rows"):
        chart.hockey_stick(points.iloc[:0])


def test_every_chart_has_a_title_and_unit_axis_titles(points, knees):
    charts = [
        chart.hockey_stick(points, knees=knees, slo_ms=1),
        chart.probe_curve(points, saturation_threads=4),
        chart.latency_percentiles(points),
        chart.host_cpu(points),
    ]
    for item in charts:
        spec = item.to_dict()
        assert spec["title"]["text"]
        titles = axis_titles(spec)
        assert titles
        assert all(t and UNIT_TITLE.search(t) for t in titles), titles


def iops_axis_formats(spec: dict) -> list[str | None]:
    """The axis format of every x/y encoding of ``iops`` that sets an axis, anywhere in the spec
    (a layer without one, e.g. the 95 % interval bars, draws on its chart's)."""
    return [e["axis"].get("format") for e in xy_encodings(spec) if e["field"] == "iops" and "axis" in e]


def test_every_iops_axis_reads_like_the_tables(points, knees):
    """The demo's hockey stick and probe charts labelled their IOPS axes '0k, 5k, ... 35k' (an SI
    format: '0k' at the origin), beside '35,000' on IOPS vs threads and in every table: every IOPS
    axis is whole numbers with thousands separators."""
    charts = [chart.hockey_stick(points, knees=knees, slo_ms=1), chart.probe_curve(points, saturation_threads=4),
              chart.load_vs_threads(points)]
    for item in charts:
        formats = iops_axis_formats(item.to_dict())
        assert formats and set(formats) == {",.0f"}, formats


def test_offline_renderer_bundle_has_svg_and_vegalite(points):
    assert chart.enable_offline_renderer() == "flashpoc_offline"
    assert alt.renderers.active == "flashpoc_offline"
    assert alt.data_transformers.active == "default"
    bundle, _ = chart.hockey_stick(points, slo_ms=1)._repr_mimebundle_()
    assert bundle["image/svg+xml"].lstrip().startswith("<svg")
    assert "Mean latency (ms)" in bundle["image/svg+xml"]
    assert bundle[chart.VEGALITE_MIME_TYPE]["layer"][0]["mark"]["type"] == "line"
    assert "text/html" not in bundle


# --- one point in detail, from the recorded fio 3.33 run (tests/data/fio/intervals-fio-3.33) ---

FIO_RUN = DATA / "fio" / "intervals-fio-3.33"


def _recorded_detail():
    from flashpoc.engines.fio import parse as fio
    from flashpoc.engines.fio.intervals import parse_fio_interval_logs

    logs = {p.name: p.read_text() for p in FIO_RUN.glob("*.log")}
    intervals = pd.DataFrame(parse_fio_interval_logs(logs, window_ms=1000, fio_version="fio-3.33"))
    intervals = intervals.assign(workload="oltp", threads=3, second=intervals["second"] + 1, warmup=False)
    histogram = pd.DataFrame(fio.histogram_table(fio.parse_fio_histogram((FIO_RUN / "out.json").read_text())))
    histogram = histogram.assign(workload="oltp", threads=3)
    detail = pd.DataFrame([{"workload": "oltp", "threads": 3, "iops": 30218.2, "ramp_s": 1, "intervals": 3,
                            "interval_iops_cv_pct": 5.3, "interval_iops_drift_pct": -7.9, "interval_steady": True}])
    return intervals, histogram, detail


def all_rows(spec: dict) -> list[dict]:
    return [row for data in spec["datasets"].values() for row in data]


def test_interval_series_draws_each_interval_with_the_warm_up_and_verdict():
    intervals, _, detail = _recorded_detail()
    spec = chart.interval_series(intervals, detail).to_dict()
    rows = all_rows(spec)
    assert [r["iops"] for r in rows if "iops" in r][:3] == [32243.0, 32643.0, 29684.0]
    assert {"start": 0.0, "end": 1.0} in [{k: r[k] for k in ("start", "end")} for r in rows if "start" in r]
    panel = spec["vconcat"][0]
    assert panel["title"]["subtitle"] == ["3 threads, 30,218 IOPS; steady: scatter 5.3 %, drift -7.9 % over 3 intervals"]
    titles = axis_titles(spec)
    assert "Time since the point started (s)" in titles and "Mean latency (ms)" in titles


def test_interval_series_averages_long_runs_before_charting():
    seconds = list(range(1, 3601))
    long = pd.DataFrame({"workload": "w", "second": seconds, "iops": [float(s % 2) for s in seconds],
                         "lat_mean_ms": 1.0, "warmup": False})
    detail = pd.DataFrame([{"workload": "w", "threads": 1, "iops": 0.5, "ramp_s": 0, "intervals": 3600,
                            "interval_iops_cv_pct": 100.0, "interval_iops_drift_pct": 0.0, "interval_steady": False}])
    rows = [r for r in all_rows(chart.interval_series(long, detail).to_dict()) if "iops" in r]
    assert len(rows) == chart.MAX_INTERVALS
    assert {r["iops"] for r in rows} == {0.5}  # 6 s buckets of alternating 0 and 1
    assert rows[-1]["second"] == 3600


def test_interval_series_says_what_a_slob_points_series_counts():
    """A SLOB point's series counts iostat's disks, the NFS mounts (kNFS) or nothing (dNFS): the
    chart says which, from the points' ``intervals_source``."""
    from flashpoc.engines.slob.parse import INTERVAL_SOURCES

    intervals, _, detail = _recorded_detail()
    detail = detail.assign(engine="slob", intervals_source=INTERVAL_SOURCES["knfs"])
    subtitle = chart.interval_series(intervals, detail).to_dict()["title"]["subtitle"]
    assert f"SLOB: {INTERVAL_SOURCES['knfs']}." in subtitle
    assert not any("iostat saw" in line for line in subtitle)
    # a dNFS series says whose counters it sums: the cluster's or one instance's
    detail = detail.assign(intervals_source=INTERVAL_SOURCES["dnfs"], intervals_scope="instance 2")
    subtitle = chart.interval_series(intervals, detail).to_dict()["title"]["subtitle"]
    assert f"SLOB: {INTERVAL_SOURCES['dnfs']} (series scope: instance 2)." in subtitle


def test_latency_histogram_buckets_and_cumulative_share():
    _, histogram, detail = _recorded_detail()
    spec = chart.latency_histogram(histogram, detail).to_dict()
    assert [p["title"]["text"] for p in spec["vconcat"]] == ["oltp (reads)", "oltp (writes)"]
    assert spec["vconcat"][0]["title"]["subtitle"] == ["3 threads, 30,218 IOPS"]
    rows = all_rows(spec)
    bars = [r for r in rows if "latency" in r and r["panel"] == "oltp (reads)"]
    assert sum(r["share_pct"] for r in bars) == pytest.approx(100.0)
    read = histogram[histogram["direction"] == "read"]
    in_50_100 = read.loc[(read["clat_us"] > 50) & (read["clat_us"] <= 100), "count"].sum() / read["count"].sum()
    assert next(r["share_pct"] for r in bars if r["latency"] == "50-100 us") == pytest.approx(100 * in_50_100)
    curve = [r for r in rows if "within_pct" in r and r["panel"] == "oltp (reads)"]
    assert curve[-1]["within_pct"] == pytest.approx(100.0)
    assert {r["label"] for r in rows if "label" in r} == {"512 us", "1 ms", "2 ms"}
    # the marks' labels stand above the panel, along their rules: across its middle the curve ran through them
    (label,) = [layer for layer in spec["vconcat"][0]["hconcat"][1]["layer"] if mark_type(layer) == "text"]
    assert label["encoding"]["y"] == {"datum": 100} and label["mark"]["angle"] == 270


@pytest.mark.parametrize("low, high, label", [(0, 10, "<10 us"), (200, 500, "200-500 us"), (500, 1000, "0.5-1 ms"),
                                              (1000, 2000, "1-2 ms"), (1_000_000, float("inf"), ">1000 ms")])
def test_histogram_bucket_labels(low, high, label):
    assert chart._bucket_label(low, high) == label


def _contrast_on_white(colour: str) -> float:
    """WCAG contrast ratio of a #rgb / #rrggbb colour against white."""
    hexa = colour.lstrip("#")
    if len(hexa) == 3:
        hexa = "".join(c * 2 for c in hexa)
    channels = [int(hexa[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return 1.05 / (luminance + 0.05)


def test_house_theme_is_readable_in_print(points, knees):
    """Every chart's SVG (what report.html, the PNG and the notebooks' static view show), drawn
    whatever theme is active: text at least 11 px (8 pt at 96 dpi: readable on A4), dark text
    (contrast >= 4.5 on white, WCAG AA), a white background, and units in the axis titles."""
    intervals, histogram, detail = _recorded_detail()
    alt.theme.enable("default")  # files are drawn in the house theme anyway
    charts = [chart.hockey_stick(points, knees=knees, slo_ms=1.0), chart.latency_percentiles(points),
              chart.host_cpu(points), chart.interval_series(intervals, detail),
              chart.latency_histogram(histogram, detail)]
    for figure in charts:
        svg = chart.render_svg(figure)
        sizes = [float(size) for size in re.findall(r'<text[^>]*font-size="([0-9.]+)px"', svg)]
        assert sizes and min(sizes) >= 11, (chart._spec_title(figure.to_dict()), sorted(set(sizes)))
        fills = set(re.findall(r'<text[^>]*fill="(#[0-9a-fA-F]{3,6})"', svg))
        assert all(_contrast_on_white(fill) >= 4.5 for fill in fills), fills
        spec = chart.themed_spec(figure)
        assert spec["config"]["axis"]["labelFontSize"] >= 12 and spec["background"] == "white"
        assert all(UNIT_TITLE.search(title) for title in axis_titles(spec) if title), axis_titles(spec)


def test_load_vs_threads_random_in_iops_sequential_in_mibps_configurations_overlaid():
    """The recorded vdbench four_workloads run (totals.html): 4k random read and write in IOPS,
    128k sequential read and write in MiB/s, each kind its own panel; two configurations overlaid."""
    from flashpoc.engines.vdbench.parse import parse_totals

    totals = parse_totals((DATA / "vdbench" / "four_workloads" / "totals.html").read_text())
    shape = {"rd1_randread": ("randread", "4k"), "rd2_randwrite": ("randwrite", "4k"),
             "rd3_seqread": ("read", "128k"), "rd4_seqwrite": ("write", "128k")}
    points = pd.DataFrame([{"workload": t["rd"], "threads": int(t["threads"]), "iops": t["iops"],
                            "bw_mibps": t["mb_per_s"], "rw": shape[t["rd"]][0], "bs": shape[t["rd"]][1]}
                           for t in totals])
    spec = chart.load_vs_threads(points).to_dict()
    random, sequential = spec["vconcat"]
    assert random["encoding"]["y"]["field"] == "iops" and random["encoding"]["y"]["title"] == "IOPS"
    assert sequential["encoding"]["y"]["field"] == "bw_mibps" and sequential["encoding"]["y"]["title"] == \
        "Throughput (MiB/s)"
    assert random["encoding"]["x"]["title"] == "Concurrency (threads)"
    rows = {(r["workload"], r["threads"]): r for data in spec["datasets"].values() for r in data}
    assert rows[("rd3_seqread", 4)]["bw_mibps"] == 1025.10 and rows[("rd2_randwrite", 4)]["iops"] == 45752.40
    both = pd.concat([points.assign(config="A"), points.assign(config="C", iops=points["iops"] / 2)])
    overlaid = chart.load_vs_threads(both).to_dict()
    panel = overlaid["vconcat"][0]["encoding"]
    assert panel["color"]["field"] == "config" and panel["strokeDash"]["field"] == "workload"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["if", "else", "datum", "width", "NaN", "true", "IOPS", "(ms)", "at", "1"]),
                min_size=1, max_size=40))
def test_any_words_in_titles_and_texts_are_drawn_as_written(words):
    """Whatever words a title, a subtitle, an axis title or a mark's text holds (user text: a
    workload's or a configuration's name), the chart is drawn and shows them: Vega reads a text
    that is exactly ``if`` as an expression and stopped the chart ("Unrecognized signal name")."""
    text = " ".join(words)
    base = alt.Chart(pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 4.0]})).encode(
        x=alt.X("x:Q", title=words[-1]), y=alt.Y("y:Q", title=words[0]))
    figure = (base.mark_line() + base.mark_text(text=words[0])).properties(
        title=alt.Title(words[0], subtitle=[text, words[-1]]))
    svg = chart.render_svg(figure)
    shown = set(re.sub(r"<[^>]*>", " ", svg.replace("\u2060", "")).replace("&amp;", "&").split())
    assert set(words) <= shown
