"""Phase 4, the report: :func:`build_report` writes a campaign's charts, tables, report.html
and report.pdf and returns the :class:`Report` notebook 04 shows; and the report's texts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from flashpoc.analysis import hostlimit
from flashpoc.core.errors import AnalysisError, ReportError
from flashpoc.params import Campaign
from flashpoc.present.summary.probe import probe_table
from flashpoc.campaign.results import _no_sweep, load_comparison, load_point_details, load_results
from flashpoc.core.store import CampaignStore, StoreError
from flashpoc.core.views import ReportView


def _series_why(detail: pd.DataFrame) -> str:
    """Why the detail points keep no time series, as their rows say: a SLOB point's
    ``intervals_source`` when it is none (a Direct NFS point stored before such points sampled the
    database's counters) and its ``intervals_error``; ``""`` if none says."""
    said = [str(v) for column in ("intervals_source", "intervals_error") if column in detail
            for v in detail[column].dropna() if column == "intervals_error" or str(v).startswith("none")]
    return "\n\nSLOB detail points: " + "; ".join(dict.fromkeys(said)) + "." if said else ""


@dataclass
class Report:
    """What the report phase shows and wrote.

    Attributes:
        headline: Markdown: the campaign and its key results per workload (:func:`flashpoc.present.document.headline`).
        summary: one row per workload (and configuration) (max IOPS, IOPS at SLO, knee,
            percentiles, CPU).
        points: every sweep point used (with a ``config`` column when campaigns are compared).
        knees: the knee per workload (and configuration).
        charts: name -> altair chart.
        files: name -> path of every file written under report/.
        comparison: :func:`flashpoc.analysis.compare.comparison_table` (empty without ``report.compare``).
        comparison_notes: what was not compared, and why.
        slo_ms: the latency SLO (ms) of the report.
        detail: the point of each curve shown in detail (:func:`flashpoc.present.summary.detail_points`).
        distribution: latency percentiles and shares under 512 us/1/2/4 ms at the detail points.
        steadiness: every point's steady-state verdict (:func:`flashpoc.present.summary.steadiness_table`).
        cfg: the campaign, to load the time series and histogram of other points on demand.
        hosts: each load host's IOPS, share, latency and CPU at each workload's highest-IOPS
            point run on several hosts (:func:`flashpoc.analysis.hostlimit.busiest_points`).
        host_limit: the probe's verdict on hosts or array (:func:`flashpoc.analysis.hostlimit.host_limit`).
        measured: every point of the report, vdbench's ``iorate=curve`` steps included.
        domain: the colour domain every chart shares (:func:`flashpoc.present.chart.series_domain`).
        sections: the report as a document (:func:`flashpoc.present.document.compose`): what report.html
            prints and :meth:`show` displays, in the same order.
        context: what the campaign recorded besides its points (:class:`flashpoc.present.document.Context`).
    """

    headline: str
    summary: pd.DataFrame
    points: pd.DataFrame
    knees: pd.DataFrame
    charts: dict[str, Any]
    files: dict[str, Path]
    comparison: pd.DataFrame = field(default_factory=pd.DataFrame)
    comparison_notes: list[str] = field(default_factory=list)
    slo_ms: float = 1.0
    detail: pd.DataFrame = field(default_factory=pd.DataFrame)
    distribution: pd.DataFrame = field(default_factory=pd.DataFrame)
    steadiness: pd.DataFrame = field(default_factory=pd.DataFrame)
    cfg: Campaign | None = None
    hosts: pd.DataFrame = field(default_factory=pd.DataFrame)
    host_limit: dict[str, Any] | None = None
    measured: pd.DataFrame = field(default_factory=pd.DataFrame)
    domain: list[str] = field(default_factory=list)
    sections: list[Any] = field(default_factory=list)
    context: Any = None

    def show(self, key: str) -> None:
        """Display the sections of ``key`` (summary, conditions, method, comparison, results,
        appendix) in the notebook as report.html prints them: headings, text, tables, charts."""
        from IPython.display import Markdown, display

        known = list(dict.fromkeys(s.key for s in self.sections))
        if key not in known:
            raise AnalysisError(f"report section {key!r}: this report has {', '.join(known)}")
        for section in (s for s in self.sections if s.key == key):
            display(Markdown(f"## {section.heading}"))
            for item in section.items:
                display(Markdown(item) if isinstance(item, str) else item)

    @property
    def hosts_text(self) -> str:
        """Markdown: what the load hosts table shows, and the probe's verdict on hosts or array."""
        return hosts_text(self.hosts, self.host_limit, self.cfg.engine_object.host_shares_text(self.hosts)
                          if self.cfg is not None else None)

    def point_details(self, detail: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The interval series and latency histograms of ``detail`` points (see :func:`load_point_details`)."""
        if self.cfg is None:
            return pd.DataFrame(), pd.DataFrame()
        return load_point_details(self.cfg, detail)

    @property
    def steadiness_text(self) -> str:
        """Markdown: how many points had steady intervals, which did not, and the detail points."""
        from flashpoc.present.summary import steadiness_text

        return steadiness_text(self.steadiness, self.detail,
                               self.cfg.engine_object.own_steadiness() if self.cfg is not None else None)

    @property
    def configs(self) -> list[str]:
        """The compared configurations, the baseline first ([] for a single campaign)."""
        from flashpoc.analysis.compare import configs

        return configs(self.points)

    @property
    def comparison_text(self) -> str:
        """Markdown: the deltas against the baseline and what was not compared."""
        from flashpoc.analysis.compare import comparison_text

        if not self.configs:
            return ("(one campaign: list other campaigns under `report: compare:` to compare configurations "
                    "at equal latency and equal IOPS)")
        return comparison_text(self.comparison, self.comparison_notes) or "(nothing comparable)"

    @property
    def comparison_display(self):
        """The comparison to read (:func:`flashpoc.analysis.compare.comparison_display`): the baseline's
        value, each configuration's and its change, per workload and measure."""
        from flashpoc.analysis.compare import comparison_display

        return comparison_display(self.comparison)

    def chart(self, name: str):
        """The chart called ``name``, or a Markdown note saying why there is none."""
        from IPython.display import Markdown

        from flashpoc.present.summary import distribution_text

        why = distribution_text(self.detail) if not self.detail.empty else ""  # vdbench: what it has instead
        notes = {"latency_percentiles": "(no latency percentiles: the engine does not report them)"
                                        + (f"\n\n{why}" if why else ""),
                 "interval_series": "(no interval time series: fio ran without interval logs (fio.interval_s: 0), "
                                    "or SLOB runs left no iostat.out with timestamps)" + _series_why(self.detail),
                 "latency_histogram": "(no latency histogram: fio's JSON+ output and vdbench's histogram.html have one; "
                                      "for SLOB see the read latency distribution from AWR below)",
                 "probe_curve": "(no saturation probe was run)",
                 "write_latency": "(no write latency: no workload wrote)",
                 "oracle_latency": "(no Oracle wait latencies: not a SLOB campaign)",
                 "db_cpu": "(no DB CPU: not a SLOB campaign, or AWR did not report it)",
                 "read_latency_shares": "(no read latency histogram: not a SLOB campaign, or AWR did not "
                                        "report one)",
                 "oracle_write_latency": "(no Oracle write waits: not a SLOB campaign, or AWR listed none)",
                 "db_time_shares": "(no DB CPU share or buffer hit: not a SLOB campaign, or AWR did not report them)",
                 "wait_histogram": "(no read wait histogram at the detail points: not a SLOB campaign, or their "
                                   "AWR reports have none)",
                 "per_host_iops": ""}  # hosts_text says it
        if name in self.charts:
            return self.charts[name]
        return Markdown(notes.get(name, f"(no {name} chart)"))

    @property
    def files_table(self):
        """What each file of the campaign's folder is for, paths relative to it (the appendix's table)."""
        from flashpoc.present import document

        return document.files_table(self, self.context or document.Context())


def build_report(cfg: Campaign, *, write_files: bool = True, pdf: bool | None = None) -> Report:
    """Build the report of a campaign's sweep and write it under ``results/<campaign>/report``:
    charts (SVG, PNG, Vega-Lite JSON), CSV tables, report.html and, with ``pdf`` (default the
    parameters' ``report.pdf``) and a Chromium to print it, report.pdf (without one the report's
    file table says why there is none, and a report.pdf of an earlier build is removed).

    Raises:
        AnalysisError: when no sweep point of the current settings is stored.
    """
    from flashpoc.present import chart, document, summary
    from flashpoc.analysis import compare

    cfg = cfg.resolved()
    pdf = cfg.report.pdf if pdf is None else pdf
    engine = cfg.engine_object
    points = None  # a campaign that skips the sweep (a DBA's job alone): its engine's report of its runs
    if engine.skipped_text(cfg, "sweep") is None:
        points = load_comparison(cfg) if cfg.report.compare else load_results(cfg, "sweep")
        if points.empty:
            raise _no_sweep(cfg)
    view = engine.report_view(cfg, points)
    if view is not None:  # an engine whose numbers are not I/O (NOPM, a DBA's job): its own report, from its data
        return _view_report(cfg, view, write_files=write_files, pdf=pdf)
    measured, steps = _measured(cfg, points)
    points = measured[~steps].reset_index(drop=True)
    table, knee_frame = summary.summary_table(points, cfg.slo_ms), summary.knees(points)
    configs = compare.configs(points)
    domain = chart.series_domain(points, [] if configs else cfg.workload_names)
    comparison, notes = _comparison(cfg, points, configs)
    charts = _sweep_charts(cfg, points, _rate_curves(measured, steps), knee_frame, domain)
    detail = summary.detail_points(points, cfg.slo_ms, cfg.report.detail_threads)
    charts.update(_detail_charts(cfg, points, detail, domain))
    steadiness, distribution = summary.steadiness_table(points), summary.distribution_table(detail)
    per_host = hostlimit.per_host_table(points)
    if not per_host.empty:
        charts["per_host_iops"] = chart.per_host_iops(per_host)
    store = CampaignStore(cfg.results_path())
    probe = store.current_probe(cfg.measurement_hash())  # a probe of other settings is not this array's
    charts.update(_campaign_charts(store, probe, None if configs else domain, domain))
    tables = {"summary.csv": table, **({"comparison.csv": comparison} if configs else {}),
              "points.csv": points_csv(measured), "distribution.csv": distribution,
              **({"per_host.csv": per_host} if not per_host.empty else {}),
              **({"steadiness.csv": steadiness} if not steadiness.empty else {})}
    files = write_report_files(store, charts, tables, pdf) if write_files else {}
    context = _pdf_context(campaign_context(store, probe), store, pdf, write_files)
    result = Report("", table, points, knee_frame, charts, files, comparison, notes, cfg.slo_ms,
                    detail, distribution, steadiness, cfg, hostlimit.busiest_points(per_host),
                    (probe or {}).get("host_limit"), measured, domain, [], context)
    result.sections = document.compose(result, context)
    result.headline = document.headline(result)
    if write_files:
        _write_document(result, context, pdf)
    return result


def _view_report(cfg: Campaign, view: ReportView, *, write_files: bool, pdf: bool) -> Report:
    """The report an engine gives as data (:meth:`flashpoc.engines.base.Engine.report_view`), drawn and
    written under ``results/<campaign>/report``: its charts (SVG, PNG, Vega-Lite JSON), its CSV tables,
    report.html and, with ``pdf`` and a Chromium to print it, report.pdf (without one, the context says
    why there is none).

    Raises:
        AnalysisError: the engine has nothing stored to report (``view.missing`` says what).
    """
    from flashpoc.present import chart, report
    from flashpoc.present.document.views import render_sections

    if view.missing:
        raise AnalysisError(view.missing)
    store = CampaignStore(cfg.results_path())
    context = _pdf_context(campaign_context(store, store.current_probe(cfg.measurement_hash())), store, pdf,
                           write_files)
    domain = chart.series_domain(view.points, list(view.domain)) if view.domain is not None else None
    charts = {c.name: chart.draw(c, domain) for c in view.charts}
    files = write_report_files(store, charts, dict(view.tables), pdf) if write_files else {}

    def compose() -> None:  # again once printing failed: a table of files says why there is no report.pdf
        result.sections = render_sections(cfg, view.sections, context, charts=charts, files=files)

    result = Report(view.headline, view.summary, view.points, pd.DataFrame(), charts, files, view.comparison, [],
                    cfg.slo_ms, cfg=cfg, measured=view.points, domain=domain or [], context=context)
    compose()
    if write_files:
        _write_printed(files, pdf, context, compose, lambda: report.write_html_report(
            files["report.html"], view.title, [(s.heading, s.items) for s in result.sections]))
    return result


def _measured(cfg: Campaign, points: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    """Every point of the report in its order (the baseline first, workloads as in the
    parameters), and which of them are rate-curve steps: vdbench's ``iorate=curve`` steps are a
    response-time curve at each thread count, charted apart; the thread curves (knee, SLO,
    detail) are the full-speed runs."""
    order = ["config", "workload", "threads"] if "config" in points else ["workload", "threads"]
    measured = points.sort_values(order, key=_baseline_first(points, cfg.workload_names), kind="stable").reset_index(drop=True)
    steps = measured["curve_pct"].notna() if "curve_pct" in measured else pd.Series(False, index=measured.index)
    return measured, steps


def _rate_curves(measured: pd.DataFrame, steps: pd.Series) -> pd.DataFrame:
    """The rows of the rate curves: each step (``steps``) and the full-speed run of its workload
    and threads; none without steps."""
    if not steps.any():
        return measured.iloc[:0]
    keys = ["workload", "threads"]
    return measured[measured.set_index(keys).index.isin(measured[steps].set_index(keys).index)]


def _comparison(cfg: Campaign, points: pd.DataFrame, configs: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """The configurations compared (:func:`flashpoc.analysis.compare.comparison_table`) and what was not
    compared, and why; an empty table for a single campaign."""
    from flashpoc.analysis import compare

    if not configs:
        return pd.DataFrame(columns=compare.COMPARISON_COLUMNS), []
    comparison = compare.comparison_table(points, slo_ms=cfg.slo_ms, latencies_ms=cfg.report.latencies_ms,
                                          iops_levels=cfg.report.iops_levels, threads=cfg.report.equal_threads,
                                          noise_pct=cfg.report.noise_pct)
    return comparison, compare.comparability(points)[1]


def _sweep_charts(cfg: Campaign, points: pd.DataFrame, curves: pd.DataFrame, knees: pd.DataFrame,
                  domain: list[str]) -> dict[str, Any]:
    """The charts of the thread curves (``points``): latency against load, load against threads,
    the rate curves (``curves``, when there are), write latency, the latency percentiles (fio has
    them, vdbench does not) and the CPU."""
    from flashpoc.present import chart
    from flashpoc.analysis import compare

    charts = {"hockey_stick": chart.hockey_stick(points, knees=knees, slo_ms=cfg.slo_ms, color_domain=domain),
              "load_vs_threads": chart.load_vs_threads(points, color_domain=domain)}
    if not curves.empty:
        charts["rate_curve"] = chart.rate_curve(curves, color_domain=domain, title=cfg.engine_object.rate_curve_title)
    if compare.has_writes(points):
        charts["write_latency"] = chart.write_latency(points, color_domain=domain)
    percentiles = [c for c in ("clat_p50_ms", "clat_p99_ms", "clat_p99_9_ms") if c in points]
    if percentiles and points[percentiles].notna().any().any():
        charts["latency_percentiles"] = chart.latency_percentiles(points, color_domain=domain)
    return {**charts, **_cpu_charts(cfg, points, domain)}


def _cpu_charts(cfg: Campaign, points: pd.DataFrame, domain: list[str]) -> dict[str, Any]:
    """The load hosts' CPU; on Oracle the database's: its wait latencies, its host's CPU (AWR),
    DB CPU and the read latency shares, where AWR reported them."""
    from flashpoc.present import chart, summary

    source = cfg.engine_object.database_metrics(cfg)
    if source is None:
        return {"host_cpu": chart.host_cpu(points, color_domain=domain)}
    charts = {"oracle_latency": chart.oracle_latencies(points, color_domain=domain),
              "host_cpu": chart.host_cpu(points, metrics=chart.ORACLE_HOST_CPU, color_domain=domain,
                                         title=f"DB host CPU vs threads per schema ({source} Host CPU)")}
    if "db_cpu_s_per_s" in points and points["db_cpu_s_per_s"].notna().any():
        charts["db_cpu"] = chart.db_cpu(points, color_domain=domain)
    shares = summary.read_latency_shares(points)
    if not shares.empty:
        charts["read_latency_shares"] = chart.latency_shares(shares)
    return charts


def _detail_charts(cfg: Campaign, points: pd.DataFrame, detail: pd.DataFrame, domain: list[str]) -> dict[str, Any]:
    """The charts of the detail points: Oracle's (:func:`flashpoc.present.oracle_report.oracle_charts`), the
    interval time series and the latency histogram, where the points kept them."""
    from flashpoc.present import chart

    charts: dict[str, Any] = {}
    if cfg.engine_object.database_metrics(cfg) is not None:
        from flashpoc.present.oracle_report import oracle_charts

        charts.update(oracle_charts(cfg, points, detail, domain))
    intervals, histogram = load_point_details(cfg, detail)
    if not intervals.empty:
        charts["interval_series"] = chart.interval_series(intervals, detail, color_domain=domain)
    if not histogram.empty:
        charts["latency_histogram"] = chart.latency_histogram(histogram, detail, color_domain=domain)
    return charts


def _campaign_charts(store: CampaignStore, probe: dict[str, Any] | None, probe_domain: list[str] | None,
                     domain: list[str]) -> dict[str, Any]:
    """The charts of what the campaign did before its sweep: the probe's curve (``probe``, the
    current probe; coloured by ``probe_domain``) and the precondition's write rounds converging,
    as notebook 02 shows them."""
    from flashpoc.present import chart
    from flashpoc.campaign.precondition import read_status, rounds_table

    charts: dict[str, Any] = {}
    if probe is not None:
        charts["probe_curve"] = chart.probe_curve(probe_table(probe), probe["saturation"].get("threads"),
                                                  color_domain=probe_domain)
    preconditioned = rounds_table(read_status(store.root))
    if not preconditioned.empty:
        charts["precondition_rounds"] = chart.precondition_rounds(preconditioned, color_domain=domain)
    return charts


def points_csv(points: pd.DataFrame) -> pd.DataFrame:
    """The rows of report/points.csv: every column of ``points`` but ``per_host`` (each host's
    numbers, in per_host.csv)."""
    return points.drop(columns=["per_host"], errors="ignore")


def write_report_files(store: CampaignStore, charts: dict[str, Any], tables: dict[str, pd.DataFrame], pdf: bool
                       ) -> dict[str, Path]:
    """Write ``charts`` and ``tables`` (file name -> table) under report/; every file's path by
    name, report.html's (and with ``pdf`` report.pdf's) too, before they are written (the caller
    writes them, and drops report.pdf when it cannot print it)."""
    from flashpoc.present.report import save_charts

    out = store.root / "report"
    files = save_charts(charts, out)
    files.update({name: store.write_table(f"report/{name}", frame) for name, frame in tables.items()})
    files["report.html"] = out / "report.html"
    if pdf:
        files["report.pdf"] = out / "report.pdf"
    return files


def _write_document(result: Report, context: Any, pdf: bool) -> None:
    """Write report.html and, with ``pdf``, print report.pdf from it (:func:`_write_printed`)."""
    from flashpoc.present import document, report

    def recompose() -> None:
        result.sections = document.compose(result, context)

    _write_printed(result.files, pdf, context, recompose, lambda: report.write_html_report(
        result.files["report.html"], f"Storage performance report: {result.cfg.campaign}",
        [(s.heading, s.items) for s in result.sections], subtitle=document.title_lines(result, context)))


def _write_printed(files: dict[str, Path], pdf: bool, context: Any, recompose: Callable[[], None],
                   write_html: Callable[[], None]) -> None:
    """Write report.html (``write_html``) and, with ``pdf``, print report.pdf from it. Without a
    Chromium that prints it, report.pdf leaves ``files`` (and an earlier build's file, which would not
    match, the folder) and the context says why; the sections are composed again (``recompose``: their
    table of files says so) and report.html is written again."""
    from flashpoc.present import report

    write_html()
    if not pdf:
        return
    try:
        report.print_pdf(files["report.html"], files["report.pdf"])
    except ReportError as error:
        files.pop("report.pdf").unlink(missing_ok=True)  # an earlier build's, not this report's
        context.pdf_note = str(error).removeprefix("no PDF: ")
        recompose()
        write_html()


#: why a report has no PDF when the parameters turn it off (the files table's row)
PDF_OFF_NOTE = "the parameters say report: {pdf: false}"


def _pdf_context(context: Any, store: CampaignStore, pdf: bool, write_files: bool) -> Any:
    """``context`` saying why there is no PDF when ``pdf`` is off; a report.pdf of an earlier build,
    which no longer matches report.html, is removed then (and whenever printing fails)."""
    if not pdf:
        context.pdf_note = PDF_OFF_NOTE
        if write_files:
            (store.root / "report" / "report.pdf").unlink(missing_ok=True)
    return context


def campaign_context(store: CampaignStore, probe: dict[str, Any] | None) -> Any:
    """What the campaign recorded besides its points (:class:`flashpoc.present.document.Context`): its
    manifest, its check table and ``probe`` (the current probe, or None)."""
    from flashpoc.present.document import Context

    return Context(manifest=_read_or_empty(store, "manifest.json"), check=_check_table(store), probe=probe,
                   root=store.root)


def _read_or_empty(store: CampaignStore, name: str) -> dict[str, Any]:
    """``name`` of the campaign's folder as JSON, or {} when it is missing or broken (the report
    then says "not recorded" where it would quote it)."""
    try:
        found = store.read_json(name)
    except StoreError:
        return {}
    return found if isinstance(found, dict) else {}


def _check_table(store: CampaignStore) -> pd.DataFrame:
    """check.csv, or an empty table when the check left none."""
    path = store.root / "check.csv"
    try:
        return pd.read_csv(path) if path.is_file() else pd.DataFrame()
    except (OSError, ValueError):
        return pd.DataFrame()


EQUAL_SHARES_TEXT = ("The same threads run on every host, so the shares should be about equal: a host well below "
                     "the others limits itself.")
"""What the load hosts' shares should be when the engine says nothing else
(:meth:`flashpoc.engines.base.Engine.host_shares_text`)."""


def hosts_text(hosts: pd.DataFrame, limit: dict[str, Any] | None, shares: str | None = None) -> str:
    """Markdown: what the load hosts table (:func:`flashpoc.analysis.hostlimit.busiest_points`) shows,
    what the shares should be (``shares``, the engine's words:
    :meth:`flashpoc.engines.base.Engine.host_shares_text`; by default :data:`EQUAL_SHARES_TEXT`) and
    the probe's verdict on hosts or array (``limit``, from probe.json)."""
    if hosts.empty:
        text = ("One load host ran every point. With several, this section shows each host's IOPS, so that a "
                "host holding the others back is visible.")
    else:
        text = ("Each load host's IOPS, its share of the total, its mean latency and CPU at each workload's "
                "highest-IOPS point; the chart has every thread count. ") + (shares or EQUAL_SHARES_TEXT)
    if limit:
        text += "\n\nSaturation probe: " + hostlimit.host_limit_text(limit)
    return text


def _baseline_first(points: pd.DataFrame, workloads: list[str] = ()):
    """Sort key: configurations in their given order (the baseline first), workloads in the
    order of the parameters (``workloads``; others after them, by name), other columns as they are."""
    from flashpoc.analysis.compare import configs

    rank = {name: i for i, name in enumerate(configs(points))}
    order = {name: i for i, name in enumerate(workloads)}

    def key(column: pd.Series) -> pd.Series:
        if column.name == "config":
            return column.map(rank)
        if column.name == "workload" and order:
            return column.map(lambda w: (order.get(w, len(order)), str(w))).map(lambda t: f"{t[0]:06d}{t[1]}")
        return column
    return key
