"""The report's HammerDB views as data (:mod:`flashpoc.core.views`): NOPM against virtual users with
the knee, NEWORD p95 against NOPM (the OLTP hockey stick), and the configurations compared at equal
virtual users and at equal NOPM (:mod:`.compare`); :func:`report_view` is the whole report, which
the present layer draws and writes (:func:`flashpoc.present.reporting.build_report`).

Each takes the points as stored (one row per timed run: ``threads`` = virtual users, ``nopm``,
``tpm``, ``neword_p95_ms``; ``config`` when several campaigns are compared) and gives a chart's
series, its titles and its axes (:class:`flashpoc.core.views.ChartView`), every axis title with its
unit; the present layer draws them with the report's palette and series channels, so a
configuration has one colour in every chart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from flashpoc import analysis
from flashpoc.analysis.saturation import probe_sentence
from flashpoc.core import tables
from flashpoc.core.store import CampaignStore, StoreError
from flashpoc.core.views import Axis, ChartView, ConditionLines, FilesTable, ReportView, SectionView, Tip
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


def nopm_vs_users(points: pd.DataFrame, *, knee_users: int | None = None, answer: str = "") -> ChartView:
    """NOPM against virtual users, one line per configuration; the knee (``knee_users``, e.g. the
    probe's answer) as a vertical rule, ``answer`` (the probe's answer in words) as the subtitle, and
    a red ring on each point with error lines."""
    data = _mean_per_point(points, ["nopm", "tpm", "errors"])
    tooltip = (Tip("threads", "Virtual users"), Tip("nopm", "NOPM", ",.0f"), Tip("tpm", "TPM", ",.0f"),
               *((Tip("errors", "Error lines", ",.0f"),) if "errors" in data else ()))
    rule = None
    if knee_users is not None:
        rule = (knee_users, f"knee: {knee_users} virtual user{'s' if knee_users != 1 else ''}")
    return ChartView("nopm_vs_users", "lines", data, "HammerDB TPROC-C: NOPM vs virtual users",
                     (answer,) if answer else ("Each point is one timed TPROC-C run.",),
                     x=Axis("threads", TITLE_USERS, threads=True), y=Axis("nopm", TITLE_NOPM, ",.0f"),
                     tooltip=tooltip, rule=rule, flag=("errors", ERRORS_NOTE))


#: the subtitle of a chart whose points with error lines are marked
ERRORS_NOTE = "A red ring marks a point with error lines (HammerDB's Procedure Error lines; Errors in the table)."
TITLE_COMPLETION = "Test completion time (s)"


def completion_vs_users(points: pd.DataFrame) -> ChartView:
    """A fixed work's test completion time against virtual users, one line per configuration."""
    return ChartView("completion_vs_users", "lines", _mean_per_point(points, ["completion_s", "transactions", "errors"]),
                     "HammerDB TPROC-C: test completion time vs virtual users",
                     ("Each point is one fixed work (HammerDB's test driver); shorter is better.",),
                     x=Axis("threads", TITLE_USERS, threads=True), y=Axis("completion_s", TITLE_COMPLETION),
                     tooltip=(Tip("threads", "Virtual users"), Tip("completion_s", "Completion time (s)", ",.1f"),
                              Tip("transactions", "Transactions", ",.0f")))


def latency_vs_nopm(points: pd.DataFrame) -> ChartView:
    """NEWORD p95 response time against NOPM, one line per configuration in order of virtual users:
    the OLTP hockey stick."""
    return ChartView("neword_p95_vs_nopm", "lines", _mean_per_point(points, ["nopm", "neword_p95_ms"]),
                     "HammerDB TPROC-C: NEWORD p95 response time vs NOPM", ("Each point is one virtual-user count.",),
                     x=Axis("nopm", TITLE_NOPM, ",.0f"), y=Axis("neword_p95_ms", TITLE_NEWORD_P95),
                     tooltip=(Tip("threads", "Virtual users"), Tip("nopm", "NOPM", ",.0f"),
                              Tip("neword_p95_ms", "NEWORD p95 (ms)", ",.3f")))


#: AWR's storage latencies drawn against NOPM: (column of average wait in us, event)
STORAGE_EVENTS = (("db_file_sequential_read_avg_wait_us", "db file sequential read"),
                  ("log_file_parallel_write_avg_wait_us", "log file parallel write"))
TITLE_STORAGE = "Average wait (ms, AWR)"


def has_awr(points: pd.DataFrame) -> bool:
    """Whether any point carries AWR's storage waits (HammerDB on Oracle with the AWR rows read)."""
    return any(c in points and pd.to_numeric(points[c], errors="coerce").notna().any() for c, _ in STORAGE_EVENTS)


def storage_latency_vs_nopm(points: pd.DataFrame) -> ChartView:
    """AWR's storage latencies against NOPM (Oracle): ``db file sequential read`` (random reads) and
    ``log file parallel write`` (redo writes, what commits wait for) in ms, one line per
    configuration and event in order of virtual users, next to the NEWORD p95 chart."""
    columns = [c for c, _ in STORAGE_EVENTS if c in points]
    data = _mean_per_point(points, ["nopm", *columns])
    keys = [c for c in ("config", "workload", "threads", "nopm") if c in data]
    long = data.melt(id_vars=keys, value_vars=columns, var_name="event", value_name="wait_us").dropna(subset=["wait_us"])
    long["event"] = long["event"].map(dict(STORAGE_EVENTS))
    long["wait_ms"] = long.pop("wait_us") / 1000.0
    return ChartView("storage_latency_vs_nopm", "lines", long, "HammerDB TPROC-C: storage latency (AWR) vs NOPM",
                     ("Each point is one virtual-user count; AWR between the snapshots HammerDB took.",),
                     x=Axis("nopm", TITLE_NOPM, ",.0f"), y=Axis("wait_ms", TITLE_STORAGE),
                     tooltip=(Tip("threads", "Virtual users"), Tip("nopm", "NOPM", ",.0f"), Tip("event", "Event", type="N"),
                              Tip("wait_ms", "Average wait (ms)", ",.3f")),
                     dash=("event", "AWR wait event"))


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
                        None if not base[column] else (value - base[column]) / base[column] * 100.0)
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


def report_view(cfg, points: pd.DataFrame) -> ReportView:
    """The report of a HammerDB campaign's sweep (``points``; with ``config`` when campaigns are
    compared) as data: the probe's answer, NOPM against virtual users with the knee, NEWORD p95
    against NOPM, the configurations at equal virtual users, every point; the present layer draws
    and writes it under ``report/`` (charts, CSV tables, report.html and report.pdf)."""
    store = CampaignStore(cfg.results_path())
    probe = store.current_probe(cfg.measurement_hash()) or {}
    configs = list(dict.fromkeys(points["config"].astype(str))) if "config" in points else []
    answer = probe.get("answer", "")
    charts = _charts(points, (probe.get("saturation") or {}).get("threads"), answer)
    table = points_table(points)
    by_users = compare_at_equal_users(points) if len(configs) > 1 else pd.DataFrame()
    comparison = comparison_table(points, noise_pct=cfg.report.noise_pct) if len(configs) > 1 else pd.DataFrame()
    versions = sorted({str(v) for v in (_manifest(store).get("engine_versions") or {}).values() if v})
    described = cfg.engine_object.describe(cfg, " / ".join(versions) or "(version not recorded)", points)
    best = (f"The shortest test completion time: {_fastest(points)}" if _has(points, "completion_s")
            else f"The most new orders per minute: {_best(points)}")
    headline = f"**{cfg.campaign}**: {described}. {best}."
    sections = (SectionView("summary", "Executive summary", (
                    headline, f"**Saturation probe**: {probe_sentence(probe)}" if answer
                    else "No probe of these settings is stored.")),
                *_conditions_and_method(cfg), *_comparison_sections(configs, comparison, by_users),
                SectionView("results", "Results", charts),
                SectionView("appendix", "Appendix A: every point", (tables.Table(table, notes=[POINTS_NOTE],
                                                                                  text_columns=["Configuration"]),)),
                SectionView("files", "Appendix B: files", (FilesTable("Files of the report", FILE_NOTES, CHART_NOTE),)))
    csv = {"points.csv": points.drop(columns=["per_host"], errors="ignore"),
           **({"comparison.csv": comparison, "comparison_users.csv": by_users} if not comparison.empty else {})}
    return ReportView(f"OLTP performance report (HammerDB TPROC-C): {cfg.campaign}", headline, sections, charts=charts,
                      tables=tuple(csv.items()), summary=table, points=points, comparison=comparison,
                      domain=tuple([] if len(configs) > 1 else cfg.workload_names))


#: what each file of the report is, by the start of its name (a chart's file otherwise)
FILE_NOTES = (("nopm_vs_users.", "Chart: NOPM against virtual users (the probe's knee marked, where it found "
                                 "one)."),
              ("neword_p95_vs_nopm.", "Chart: NEWORD p95 response time against NOPM."),
              ("points.csv", "Every point's row: NOPM, TPM, NEWORD latency, error lines, host CPU."),
              ("comparison_users.csv", "The configurations side by side at each virtual-user count all of them ran."),
              ("comparison.csv", "Every configuration against the baseline, at equal virtual users and at equal NOPM."))
CHART_NOTE = "Chart: one of the Results section."


def _manifest(store: CampaignStore) -> dict[str, Any]:
    """The campaign's manifest.json, or {} when it is missing or broken."""
    try:
        found = store.read_json("manifest.json")
    except StoreError:
        return {}
    return found if isinstance(found, dict) else {}


def _charts(points: pd.DataFrame, knee_users: int | None, answer: str) -> tuple[ChartView, ...]:
    """NOPM against virtual users (the probe's knee ``knee_users`` and ``answer`` on it), NEWORD
    p95 against NOPM and, on Oracle with AWR read, the storage's latency next to it."""
    charts = [nopm_vs_users(points, knee_users=knee_users, answer=answer)]
    if _has(points, "completion_s"):
        charts.append(completion_vs_users(points))
    if _has(points, "neword_p95_ms"):
        charts.append(latency_vs_nopm(points))
    if has_awr(points):
        charts.append(storage_latency_vs_nopm(points))
    return tuple(charts)


def _conditions_and_method(cfg) -> list[SectionView]:
    """The report's test conditions (database, load host, point length, HammerDB's options, then the
    storage path and what differed between configurations, which the check recorded) and its method."""
    engine, s = cfg.engine_object, cfg.settings
    return [SectionView("conditions", "Test conditions", (ConditionLines(
                f"- database: {s.database}, {s.warehouses} warehouses (TPROC-C schema)\n"
                f"- load host: {', '.join(h.name for h in cfg.hosts)}\n"
                f"- {engine.point_length_text(cfg, '')}\n"
                f"- keying and thinking: {'on' if s.keying_and_thinking else 'off'}; all warehouses: "
                f"{'yes' if s.all_warehouses else 'no'}; time profile: {'on' if s.time_profile else 'off'}"),)),
            SectionView("method", "Method", (engine.fixed_work_note if s.fixed_work else engine.method_note,
                                              "Time series: " + engine.interval_text(cfg, 3)))]


def _comparison_sections(configs: list[str], comparison: pd.DataFrame, by_users: pd.DataFrame) -> list[SectionView]:
    """The configurations compared, against the first (the baseline); none for one campaign."""
    if len(configs) < 2:
        return []
    return [SectionView("comparison", "Comparison of the configurations", (
        f"Each configuration against {configs[0]} at equal virtual users (the same load offered) and at equal "
        "NOPM (the same work done): throughput, transaction times, CPU and, where AWR was read, the storage's "
        "I/O and latency.", comparison_display(comparison),
        f"Each configuration at every virtual-user count all of them ran; the changes are against {configs[0]}.",
        by_users))]
