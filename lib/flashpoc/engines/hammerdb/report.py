"""The report's HammerDB views (pure): NOPM against virtual users with the knee, NEWORD p95 against
NOPM (the OLTP hockey stick), and the configurations compared at equal virtual users and at equal
NOPM (:mod:`.compare`).

Each takes the points as stored (one row per timed run: ``threads`` = virtual users, ``nopm``,
``tpm``, ``neword_p95_ms``; ``config`` when several campaigns are compared) and draws with the
report's palette and series channels (:mod:`flashpoc.present.chart`), so a configuration has one colour in
every chart; every axis title carries its unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from flashpoc import analysis
from flashpoc.campaign import environment
from flashpoc.core import tables
from flashpoc.present.chart import _series_channels, _threads_x, series_domain
from flashpoc.present.document import DocSection, probe_sentence
from flashpoc.engines.hammerdb.compare import comparison_display, comparison_table

TITLE_USERS = "Virtual users (count)"
TITLE_NOPM = "NOPM (new orders per minute)"
TITLE_NEWORD_P95 = "NEWORD p95 response time (ms)"
#: the comparison table's columns: (column, header)
COMPARED = (("completion_s", "Completion time (s)"), ("nopm", "NOPM (new orders/min)"), ("tpm", "TPM (transactions/min)"),
            ("neword_p95_ms", "NEWORD p95 (ms)"), ("neword_avg_ms", "NEWORD mean (ms)"))


def _mean_per_point(points: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """One row per (configuration, virtual users): repeats averaged."""
    keys = [c for c in ("config", "workload") if c in points.columns] + ["threads"]
    present = [c for c in columns if c in points.columns]
    return points.groupby(keys, as_index=False, sort=False)[present].mean().sort_values(keys, kind="stable")


def knee(points: pd.DataFrame, gain_pct: float = 2.0) -> analysis.Saturation:
    """The virtual users beyond which NOPM stops rising (:func:`flashpoc.analysis.find_saturation`
    on virtual users, NOPM and NEWORD p95 of one configuration's points)."""
    pts = [analysis.Point(int(r.threads), float(r.nopm), float(r.neword_p95_ms), int(r.threads))
           for r in points.itertuples() if pd.notna(r.nopm) and pd.notna(r.neword_p95_ms)]
    return analysis.find_saturation(pts, gain_pct=gain_pct)


def nopm_vs_users(points: pd.DataFrame, *, knee_users: int | None = None, answer: str = "",
                  color_domain: Sequence[str] | None = None) -> alt.LayerChart:
    """NOPM against virtual users, one line per configuration; the knee (``knee_users``, e.g. the
    probe's answer) as a vertical rule, ``answer`` (the probe's answer in words) as the subtitle."""
    data = _mean_per_point(points, ["nopm", "tpm", "errors"])
    domain = list(color_domain) if color_domain is not None else series_domain(data)
    color, dash = _series_channels(data, domain)
    x = _threads_x(data["threads"]).title(TITLE_USERS)
    tooltip = [alt.Tooltip("threads:Q", title="Virtual users"), alt.Tooltip("nopm:Q", title="NOPM", format=",.0f"),
               alt.Tooltip("tpm:Q", title="TPM", format=",.0f")]
    if "errors" in data:
        tooltip.append(alt.Tooltip("errors:Q", title="Error lines", format=",.0f"))
    encodings = {"x": x, "y": alt.Y("nopm:Q", title=TITLE_NOPM, axis=alt.Axis(format=",.0f")), "color": color,
                 "strokeDash": dash, "order": alt.Order("threads:Q"), "tooltip": tooltip}
    lines = alt.Chart(data).mark_line(point=True).encode(**{k: v for k, v in encodings.items() if v is not None})
    layers = [lines, *_error_marks(data, x, tooltip)]
    if knee_users is not None:
        label = f"knee: {knee_users} virtual user{'s' if knee_users != 1 else ''}"
        rule = pd.DataFrame({"threads": [knee_users], "label": [label]})
        layers.append(alt.Chart(rule).mark_rule(strokeDash=[4, 3], color="#333333").encode(x="threads:Q"))
        layers.append(alt.Chart(rule).mark_text(align="left", dx=4, dy=-6, color="#333333").encode(
            x="threads:Q", y=alt.value(0), text="label:N"))
    subtitle = [answer] if answer else ["Each point is one timed TPROC-C run."]
    if len(layers) > 1 + (knee_users is not None) * 2:
        subtitle.append(ERRORS_NOTE)
    return alt.layer(*layers).properties(title=alt.Title("HammerDB TPROC-C: NOPM vs virtual users",
                                                         subtitle=subtitle))


#: the subtitle of a chart whose points with error lines are marked
ERRORS_NOTE = "A red ring marks a point with error lines (HammerDB's Procedure Error lines; Errors in the table)."


def _error_marks(data: pd.DataFrame, x: Any, tooltip: list) -> list[alt.Chart]:
    """A red ring on each point with error lines (none without any)."""
    if "errors" not in data or not (pd.to_numeric(data["errors"], errors="coerce") > 0).any():
        return []
    failed = data[pd.to_numeric(data["errors"], errors="coerce") > 0]
    return [alt.Chart(failed).mark_point(shape="circle", size=220, filled=False, color="#d62728", strokeWidth=2)
            .encode(x=x, y="nopm:Q", tooltip=tooltip)]


TITLE_COMPLETION = "Test completion time (s)"


def completion_vs_users(points: pd.DataFrame, *, color_domain: Sequence[str] | None = None) -> alt.Chart:
    """A fixed work's test completion time against virtual users, one line per configuration."""
    data = _mean_per_point(points, ["completion_s", "transactions", "errors"])
    domain = list(color_domain) if color_domain is not None else series_domain(data)
    color, dash = _series_channels(data, domain)
    x = _threads_x(data["threads"]).title(TITLE_USERS)
    encodings = {"x": x, "y": alt.Y("completion_s:Q", title=TITLE_COMPLETION), "color": color, "strokeDash": dash,
                 "order": alt.Order("threads:Q"),
                 "tooltip": [alt.Tooltip("threads:Q", title="Virtual users"),
                             alt.Tooltip("completion_s:Q", title="Completion time (s)", format=",.1f"),
                             alt.Tooltip("transactions:Q", title="Transactions", format=",.0f")]}
    chart = alt.Chart(data).mark_line(point=True).encode(**{k: v for k, v in encodings.items() if v is not None})
    return chart.properties(title=alt.Title("HammerDB TPROC-C: test completion time vs virtual users",
                                            subtitle=["Each point is one fixed work (HammerDB's test driver); "
                                                      "shorter is better."]))


def latency_vs_nopm(points: pd.DataFrame, *, color_domain: Sequence[str] | None = None) -> alt.Chart:
    """NEWORD p95 response time against NOPM, one line per configuration in order of virtual users:
    the OLTP hockey stick."""
    data = _mean_per_point(points, ["nopm", "neword_p95_ms"])
    domain = list(color_domain) if color_domain is not None else series_domain(data)
    color, dash = _series_channels(data, domain)
    encodings = {"x": alt.X("nopm:Q", title=TITLE_NOPM, axis=alt.Axis(format=",.0f")),
                 "y": alt.Y("neword_p95_ms:Q", title=TITLE_NEWORD_P95), "color": color, "strokeDash": dash,
                 "order": alt.Order("threads:Q"),
                 "tooltip": [alt.Tooltip("threads:Q", title="Virtual users"),
                             alt.Tooltip("nopm:Q", title="NOPM", format=",.0f"),
                             alt.Tooltip("neword_p95_ms:Q", title="NEWORD p95 (ms)", format=",.3f")]}
    chart = alt.Chart(data).mark_line(point=True).encode(**{k: v for k, v in encodings.items() if v is not None})
    return chart.properties(title=alt.Title("HammerDB TPROC-C: NEWORD p95 response time vs NOPM",
                                            subtitle=["Each point is one virtual-user count."]))


#: AWR's storage latencies drawn against NOPM: (column of average wait in us, event)
STORAGE_EVENTS = (("db_file_sequential_read_avg_wait_us", "db file sequential read"),
                  ("log_file_parallel_write_avg_wait_us", "log file parallel write"))
TITLE_STORAGE = "Average wait (ms, AWR)"


def has_awr(points: pd.DataFrame) -> bool:
    """Whether any point carries AWR's storage waits (HammerDB on Oracle with the AWR rows read)."""
    return any(c in points and pd.to_numeric(points[c], errors="coerce").notna().any() for c, _ in STORAGE_EVENTS)


def storage_latency_vs_nopm(points: pd.DataFrame, *, color_domain: Sequence[str] | None = None) -> alt.Chart:
    """AWR's storage latencies against NOPM (Oracle): ``db file sequential read`` (random reads) and
    ``log file parallel write`` (redo writes, what commits wait for) in ms, one line per
    configuration and event in order of virtual users, next to the NEWORD p95 chart."""
    columns = [c for c, _ in STORAGE_EVENTS if c in points]
    data = _mean_per_point(points, ["nopm", *columns])
    keys = [c for c in ("config", "workload", "threads", "nopm") if c in data]
    long = data.melt(id_vars=keys, value_vars=columns, var_name="event", value_name="wait_us").dropna(subset=["wait_us"])
    long["event"] = long["event"].map(dict(STORAGE_EVENTS))
    long["wait_ms"] = long.pop("wait_us") / 1000.0
    domain = list(color_domain) if color_domain is not None else series_domain(long)
    color, _ = _series_channels(long, domain)
    encodings = {"x": alt.X("nopm:Q", title=TITLE_NOPM, axis=alt.Axis(format=",.0f")),
                 "y": alt.Y("wait_ms:Q", title=TITLE_STORAGE), "color": color,
                 "strokeDash": alt.StrokeDash("event:N", title="AWR wait event"), "order": alt.Order("threads:Q"),
                 "tooltip": [alt.Tooltip("threads:Q", title="Virtual users"),
                             alt.Tooltip("nopm:Q", title="NOPM", format=",.0f"),
                             alt.Tooltip("event:N", title="Event"),
                             alt.Tooltip("wait_ms:Q", title="Average wait (ms)", format=",.3f")]}
    chart = alt.Chart(long).mark_line(point=True).encode(**{k: v for k, v in encodings.items() if v is not None})
    return chart.properties(title=alt.Title("HammerDB TPROC-C: storage latency (AWR) vs NOPM",
                                            subtitle=["Each point is one virtual-user count; AWR between the "
                                                      "snapshots HammerDB took."]))


def compare_at_equal_users(points: pd.DataFrame) -> pd.DataFrame:
    """The configurations side by side at each virtual-user count all of them ran: each one's NOPM,
    TPM and NEWORD times, and every other configuration's change against the first (the baseline), in %.

    ``points``: rows with ``config`` (the configurations in report order, the baseline first)."""
    data = _mean_per_point(points, [c for c, _ in COMPARED])
    configs = list(dict.fromkeys(points["config"].astype(str)))
    common = set.intersection(*(set(data[data["config"] == c]["threads"]) for c in configs)) if configs else set()
    rows: list[dict[str, Any]] = []
    for users in sorted(common):
        at = data[data["threads"] == users].set_index("config")
        base = at.loc[configs[0]]
        for config in configs:
            row: dict[str, Any] = {"Virtual users": int(users), "Configuration": config}
            for column, header in COMPARED:
                if column not in at.columns:
                    continue
                value = at.loc[config, column]
                row[header] = value
                if config != configs[0]:
                    row[f"{header.split(' (')[0]} change vs {configs[0]} (%)"] = (
                        None if not base[column] else round((value - base[column]) / base[column] * 100.0, 1))
            rows.append(row)
    return pd.DataFrame(rows)


def _us_as_ms(value: Any) -> str:
    us = tables.number(value)
    return tables.ms(None if us is None else us / 1000.0)


#: the points table's columns: (column, header with its unit, cell format); NOPM and TPM are per minute
POINT_COLUMNS = (("config", "Configuration", tables.text), ("threads", "Virtual users", tables.count),
                 ("completion_s", "Completion time (s)", lambda v: tables.pct(v, 1)),
                 ("transactions", "Transactions", tables.count),
                 ("nopm", "NOPM", tables.count), ("tpm", "TPM", tables.count),
                 ("errors", "Error lines", tables.count), ("neword_p50_ms", "NEWORD p50 (ms)", tables.ms), ("neword_p95_ms", "NEWORD p95 (ms)", tables.ms),
                 ("neword_p99_ms", "NEWORD p99 (ms)", tables.ms), ("payment_p95_ms", "PAYMENT p95 (ms)", tables.ms),
                 ("host_cpu_busy_pct", "Load host CPU (%)", tables.pct),
                 ("read_iops", "Read IOPS (AWR)", tables.count), ("write_iops", "Write IOPS (AWR)", tables.count),
                 ("db_file_sequential_read_avg_wait_us", "db file sequential read (ms)", _us_as_ms),
                 ("log_file_parallel_write_avg_wait_us", "log file parallel write (ms)", _us_as_ms),
                 ("db_host_cpu_busy_pct", "DB host CPU (%, AWR)", tables.pct),
                 ("nopm_hosts_spread_pct", "NOPM spread over load hosts (%)", tables.pct),
                 ("interval_tpm_cv_pct", "TPM CV (%)", tables.pct), ("interval_steady", "Steady", tables.text))
POINTS_NOTE = ("NOPM: new orders per minute, TPM: the database's transactions per minute (HammerDB's TEST RESULT); "
               "error lines: the transactions' errors HammerDB printed (per transaction in points.csv, "
               "neword_errors...; a point with more than hammerdb.max_errors is not a measurement); "
               "response times from HammerDB's time profile; CPU over the timed test; TPM CV: the scatter of the "
               "transaction counter within it. Every column of every point: points.csv.")


def points_table(points: pd.DataFrame) -> pd.DataFrame:
    """Every point to read, by configuration and virtual users: human headers with units, counts
    with thousands separators (``12,345``), times in ms, a dash where there is no value; a column
    no point has a value in is left out (AWR's without Oracle)."""
    present = [(c, h, f) for c, h, f in POINT_COLUMNS if c in points.columns and points[c].notna().any()]
    keys = [c for c in ("config", "threads") if c in points.columns]
    frame = points.sort_values(keys, kind="stable")
    cells = {h: [f(v) for v in frame[c]] for c, h, f in present}
    if "interval_steady" in frame:  # words, not Python's True/False/None
        cells["Steady"] = [tables.words("yes", "no")(v) for v in frame["interval_steady"]]
    return pd.DataFrame(cells, columns=[h for _, h, _ in present])


def _has(points: pd.DataFrame, column: str) -> bool:
    return column in points and pd.to_numeric(points[column], errors="coerce").notna().any()


def _fastest(points: pd.DataFrame) -> str:
    """The shortest test completion time of each configuration (a fixed work), in words."""
    words = []
    for config, part in (points.groupby("config", sort=False) if "config" in points else [(None, points)]):
        best = part.loc[pd.to_numeric(part["completion_s"], errors="coerce").idxmin()]
        words.append(f"{(str(config) + ': ') if config is not None else ''}{best['completion_s']:,.1f} s at "
                     f"{int(best['threads'])} virtual users ({best['transactions']:,.0f} transactions, "
                     f"{best['errors']:,.0f} error lines)")
    return "; ".join(words)


def _best(points: pd.DataFrame) -> str:
    """The most NOPM of each configuration, in words."""
    words = []
    for config, part in (points.groupby("config", sort=False) if "config" in points else [(None, points)]):
        best = part.loc[part["nopm"].idxmax()]
        errors = best.get("errors")
        told = f", {errors:,.0f} error lines" if pd.notna(errors) and errors else ""
        words.append(f"{(str(config) + ': ') if config is not None else ''}{best['nopm']:,.0f} NOPM "
                     f"({best['tpm']:,.0f} TPM) at {int(best['threads'])} virtual users, NEWORD p95 "
                     f"{best['neword_p95_ms']:,.3f} ms{told}")
    return "; ".join(words)


def build_report(cfg, points: pd.DataFrame, *, write_files: bool = True, pdf: bool = True):
    """The report of a HammerDB campaign's sweep (``points``; with ``config`` when campaigns are
    compared): the probe's answer, NOPM against virtual users with the knee, NEWORD p95 against
    NOPM, the configurations at equal virtual users, every point; written under ``report/`` as
    charts (SVG, PNG, Vega-Lite JSON), CSV tables and report.html (and report.pdf with ``pdf`` and
    a Chromium to print it)."""
    from flashpoc.present.reporting import Report, campaign_context, points_csv
    from flashpoc.core.store import CampaignStore

    store = CampaignStore(cfg.results_path())
    context = campaign_context(store, store.current_probe(cfg.measurement_hash()))
    configs = list(dict.fromkeys(points["config"].astype(str))) if "config" in points else []
    domain = series_domain(points, [] if len(configs) > 1 else cfg.workload_names)
    probe = context.probe or {}
    answer = probe.get("answer", "")
    charts = _charts(points, (probe.get("saturation") or {}).get("threads"), answer, domain)
    table = points_table(points)
    by_users = compare_at_equal_users(points) if len(configs) > 1 else pd.DataFrame()
    comparison = comparison_table(points, noise_pct=cfg.report.noise_pct) if len(configs) > 1 else pd.DataFrame()
    versions = sorted({str(v) for v in (context.manifest.get("engine_versions") or {}).values() if v})
    described = cfg.engine_object.describe(cfg, " / ".join(versions) or "(version not recorded)", points)
    best = (f"The shortest test completion time: {_fastest(points)}" if _has(points, "completion_s")
            else f"The most new orders per minute: {_best(points)}")
    headline = f"**{cfg.campaign}**: {described}. {best}."
    sections = [DocSection("summary", "Executive summary", [
                    headline, f"**Saturation probe**: {probe_sentence(probe)}" if answer
                    else "No probe of these settings is stored."]),
                *_conditions_and_method(cfg, context.manifest), *_comparison_sections(configs, comparison, by_users),
                DocSection("results", "Results", list(charts.values())),
                DocSection("appendix", "Appendix A: every point", [tables.Table(table, notes=[POINTS_NOTE],
                                                                                 text_columns=["Configuration"])])]
    files: dict[str, Any] = {}
    if write_files:
        files = _write_files(cfg, store, charts, {"points.csv": points_csv(points), **(
            {"comparison.csv": comparison, "comparison_users.csv": by_users} if not comparison.empty else {})},
            sections, context, pdf)
    return Report(headline, table, points, pd.DataFrame(), charts, files, comparison, [], cfg.slo_ms, cfg=cfg,
                  measured=points, domain=domain, sections=sections, context=context)


def _charts(points: pd.DataFrame, knee_users: int | None, answer: str, domain: list[str]) -> dict[str, Any]:
    """NOPM against virtual users (the probe's knee ``knee_users`` and ``answer`` on it), NEWORD
    p95 against NOPM and, on Oracle with AWR read, the storage's latency next to it."""
    charts = {"nopm_vs_users": nopm_vs_users(points, knee_users=knee_users, answer=answer, color_domain=domain)}
    if _has(points, "completion_s"):
        charts["completion_vs_users"] = completion_vs_users(points, color_domain=domain)
    if _has(points, "neword_p95_ms"):
        charts["neword_p95_vs_nopm"] = latency_vs_nopm(points, color_domain=domain)
    if has_awr(points):
        charts["storage_latency_vs_nopm"] = storage_latency_vs_nopm(points, color_domain=domain)
    return charts


def _conditions_and_method(cfg, manifest: dict) -> list[DocSection]:
    """The report's test conditions (database, load host, point length, HammerDB's options, the
    storage path and what differed between configurations, from the check's ``manifest``) and its method."""
    engine, s = cfg.engine_object, cfg.settings
    return [DocSection("conditions", "Test conditions", [
                f"- database: {s.database}, {s.warehouses} warehouses (TPROC-C schema)\n"
                f"- load host: {', '.join(h.name for h in cfg.hosts)}\n"
                f"- {engine.point_length_text(cfg, '')}\n"
                f"- keying and thinking: {'on' if s.keying_and_thinking else 'off'}; all warehouses: "
                f"{'yes' if s.all_warehouses else 'no'}; time profile: {'on' if s.time_profile else 'off'}"
                + "".join("\n" + line for line in environment.condition_lines(cfg, manifest))]),
            DocSection("method", "Method", [engine.fixed_work_note if s.fixed_work else engine.method_note,
                                            "Time series: " + engine.interval_text(cfg, 3)])]


def _comparison_sections(configs: list[str], comparison: pd.DataFrame, by_users: pd.DataFrame) -> list[DocSection]:
    """The configurations compared, against the first (the baseline); none for one campaign."""
    if len(configs) < 2:
        return []
    return [DocSection("comparison", "Comparison of the configurations", [
        f"Each configuration against {configs[0]} at equal virtual users (the same load offered) and at equal "
        "NOPM (the same work done): throughput, transaction times, CPU and, where AWR was read, the storage's "
        "I/O and latency.", comparison_display(comparison),
        f"Each configuration at every virtual-user count all of them ran; the changes are against {configs[0]}.",
        by_users])]


def _write_files(cfg, store, charts: dict[str, Any], tables_by_name: dict[str, pd.DataFrame],
                 sections: list[DocSection], context, pdf: bool) -> dict[str, Any]:
    """Write the charts, the tables (file name -> table) and report.html under report/, and print
    report.pdf with ``pdf`` (without a Chromium, ``context`` says why there is none); each file's path."""
    from flashpoc.core.errors import ReportError
    from flashpoc.present.report import print_pdf, write_html_report
    from flashpoc.present.reporting import write_report_files

    files: dict[str, Any] = write_report_files(store, charts, tables_by_name, pdf)
    title = f"OLTP performance report (HammerDB TPROC-C): {cfg.campaign}"
    write_html_report(files["report.html"], title, [(x.heading, x.items) for x in sections])
    if pdf:
        try:
            print_pdf(files["report.html"], files["report.pdf"])
        except ReportError as error:
            del files["report.pdf"]
            context.pdf_note = str(error).removeprefix("no PDF: ")
    return files
