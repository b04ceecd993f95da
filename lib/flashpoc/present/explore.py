"""Interactive exploration of a report in JupyterLab: pick campaigns, a workload, the SLO
and the point shown in detail.

:func:`explorer` returns an ipywidgets box whose charts and tables follow the controls; the
views themselves are :func:`view` and :func:`detail_view` (pure: tables in, charts and tables
out), so the static report of a papermill run shows the same numbers without any widget state.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

from flashpoc.present import chart, summary
from flashpoc.present.progress import BATCH_ENV, threads_text

ALL = "(all workloads)"
AUTO = "max IOPS within the SLO"

VIEW_COLUMNS = ["config", "workload", "points", "max_iops", "max_iops_lat_mean_ms", "iops_at_slo", "slo_status",
                "slo_note", "knee_iops", "knee_lat_mean_ms"]


def view(points: pd.DataFrame, *, slo_ms: float, configs: Sequence[str] | None = None,
         workload: str | None = None, color_domain: Sequence[str] | None = None) -> tuple[Any, pd.DataFrame]:
    """The hockey stick and the IOPS-at-SLO table of a selection.

    Args:
        points: sweep points (``config`` column when campaigns are compared).
        slo_ms: the latency SLO (ms).
        configs: configurations to show (default all); colours stay those of the full set.
        workload: one workload, or None / :data:`ALL` for every one.
        color_domain: the report's colour domain (:attr:`flashpoc.phases.Report.domain`); by
            default :func:`flashpoc.present.chart.series_domain` of ``points``: one workload or
            configuration keeps the colour it has in the report's charts.

    Returns:
        ``(chart, table)``; the table has one row per configuration and workload with
        ``iops_at_slo`` (IOPS), its status, max IOPS and the knee. An empty selection gives
        ``(None, empty table)``.
    """
    domain = list(color_domain) if color_domain else chart.series_domain(points)
    selected = points
    if configs is not None and "config" in points:
        selected = selected[selected["config"].isin(list(configs))]
    if workload not in (None, ALL):
        selected = selected[selected["workload"] == workload]
    if selected.empty:
        return None, pd.DataFrame(columns=VIEW_COLUMNS)
    figure = chart.hockey_stick(selected, knees=summary.knees(selected), slo_ms=slo_ms, color_domain=domain,
                                title=f"IOPS vs mean latency, SLO {slo_ms:g} ms")
    table = summary.summary_table(selected, slo_ms).rename(columns={f"iops_at_{slo_ms:g}ms": "iops_at_slo"})
    return figure, table[[c for c in VIEW_COLUMNS if c in table]]


def detail_view(detail: pd.DataFrame, intervals: pd.DataFrame, histogram: pd.DataFrame, *,
                color_domain: Sequence[str] | None = None) -> list[Any]:
    """The detail points' interval chart, latency table and histogram (what exists of them).

    Args:
        detail: the points (:func:`flashpoc.present.summary.detail_points`).
        intervals, histogram: their tables (:func:`flashpoc.phases.load_point_details`).
        color_domain: the report's colour domain, so colours match the report's.

    The latency table is the report's (:func:`flashpoc.present.summary.distribution_display`).
    """
    items: list[Any] = []
    if not intervals.empty:
        items.append(chart.interval_series(intervals, detail, color_domain=color_domain))
    table = summary.distribution_table(detail)
    if not table.empty:
        items.append(summary.distribution_display(table))
    if not histogram.empty:
        items.append(chart.latency_histogram(histogram, detail, color_domain=color_domain))
    return items


def explorer(report) -> Any:
    """Controls (campaigns, workload, SLO in ms, detail point) over the report's points, and their view.

    Args:
        report: a :class:`flashpoc.phases.Report`.

    Returns:
        An ``ipywidgets.VBox``: a row of controls, then an output area redrawn (chart and
        table of :func:`view`, then :func:`detail_view` of the chosen point of each curve)
        whenever a control changes. The point control lists the thread counts of the chosen
        workload. Its ``children[0].children`` are the controls, for tests and scripts.
    """
    import ipywidgets as widgets
    from IPython.display import Markdown

    points = report.points
    if points.empty:  # a DBA's job alone: no sweep point to explore
        return Markdown("(no sweep points to explore: this campaign ran only a DBA's job)")
    if "iops" not in points:  # an engine whose points are not I/O (HammerDB's NOPM): its report says it all
        return Markdown("(the explorer draws IOPS against latency: these points have no IOPS; the report's charts "
                        "and tables below show them)")
    if os.environ.get(BATCH_ENV):  # papermill keeps no widget state: the export would print the box's repr
        return Markdown("(Opened in JupyterLab, this notebook has controls here that pick a workload (and the "
                        "campaigns, when compared), the SLO and the point shown in detail, and redraw the chart and "
                        "the tables; the report below shows every workload at the campaign's SLO.)")
    names = report.configs
    workloads = list(dict.fromkeys(points["workload"]))
    controls = []
    pick_configs = None
    if names:
        pick_configs = widgets.SelectMultiple(options=names, value=tuple(names), description="Campaigns",
                                              rows=min(len(names), 6))
        controls.append(pick_configs)
    pick_workload = widgets.Dropdown(options=[ALL, *workloads], value=ALL if len(workloads) > 1 else workloads[0],
                                     description="Workload")
    slo = widgets.BoundedFloatText(value=report.slo_ms, min=0.001, max=10000.0, step=0.1, description="SLO (ms)")
    pick_point = widgets.Dropdown(options=[AUTO], value=AUTO, description="Detail at")
    controls += [pick_workload, slo, pick_point]
    out = widgets.Output()

    def point_options(*_: Any) -> None:
        threads = [] if pick_workload.value == ALL else sorted(
            {int(t) for t in points.loc[points["workload"] == pick_workload.value, "threads"]})
        pick_point.options = [AUTO, *(threads_text(t) for t in threads)]  # a count the workload lacks falls back to AUTO

    def render(*_: Any) -> None:
        chosen = None if pick_configs is None else pick_configs.value
        items = _view_items(report, slo.value, pick_workload.value, chosen, pick_point.value)
        # outputs set from the kernel side: the same in JupyterLab, a script or a test
        out.outputs = ()
        for item in items:
            out.append_display_data(item)

    pick_workload.observe(point_options, names="value")
    point_options()
    for control in controls:
        control.observe(render, names="value")
    render()
    return widgets.VBox([widgets.HBox(controls), out])


def _view_items(report, slo_ms: float, workload: str, chosen: tuple[str, ...] | None, point: str) -> list[Any]:
    """What the explorer shows for its controls' values: the chart and results table of
    :func:`view`, then :func:`detail_view` of the chosen point of each curve."""
    from IPython.display import Markdown

    points = report.points
    figure, _ = view(points, slo_ms=slo_ms, workload=workload, configs=chosen, color_domain=report.domain)
    if figure is None:
        return [Markdown("(nothing selected)")]
    selected = points if chosen is None else points[points["config"].isin(list(chosen))]
    if workload != ALL:
        selected = selected[selected["workload"] == workload]
    # the report's results table, for the selection and this SLO
    items = [figure, summary.results_table(summary.summary_table(selected, slo_ms), selected, slo_ms)]
    threads = None if point == AUTO else int(point.split()[0])
    detail = summary.detail_points(selected, slo_ms, threads)
    return items + detail_view(detail, *report.point_details(detail), color_domain=report.domain or None)
