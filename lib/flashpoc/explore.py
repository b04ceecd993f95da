"""Interactive exploration of a report in JupyterLab: pick campaigns, a workload and the SLO.

:func:`explorer` returns an ipywidgets box whose chart and table follow the controls; the
view itself is :func:`view` (pure: points in, chart and table out), so the static report of a
papermill run shows the same numbers without any widget state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from . import chart, summary
from .compare import configs as config_names

ALL = "(all workloads)"

VIEW_COLUMNS = ["config", "workload", "points", "max_iops", "max_iops_lat_mean_ms", "iops_at_slo", "slo_status",
                "knee_iops", "knee_lat_mean_ms"]


def view(points: pd.DataFrame, *, slo_ms: float, configs: Sequence[str] | None = None,
         workload: str | None = None) -> tuple[Any, pd.DataFrame]:
    """The hockey stick and the IOPS-at-SLO table of a selection.

    Args:
        points: sweep points (``config`` column when campaigns are compared).
        slo_ms: the latency SLO (ms).
        configs: configurations to show (default all); colours stay those of the full set.
        workload: one workload, or None / :data:`ALL` for every one.

    Returns:
        ``(chart, table)``; the table has one row per configuration and workload with
        ``iops_at_slo`` (IOPS), its status, max IOPS and the knee. An empty selection gives
        ``(None, empty table)``.
    """
    domain = config_names(points) or None
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


def explorer(report) -> Any:
    """Controls (campaigns, workload, SLO in ms) over the report's points, and their view.

    Args:
        report: a :class:`flashpoc.phases.Report`.

    Returns:
        An ``ipywidgets.VBox``: a row of controls, then an output area redrawn (chart and
        table of :func:`view`) whenever a control changes. Its ``children[0].children`` are
        the controls, for tests and scripts.
    """
    import ipywidgets as widgets
    from IPython.display import Markdown

    points = report.points
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
    controls += [pick_workload, slo]
    out = widgets.Output()

    def render(*_: Any) -> None:
        figure, table = view(points, slo_ms=slo.value, workload=pick_workload.value,
                             configs=None if pick_configs is None else pick_configs.value)
        # outputs set from the kernel side: the same in JupyterLab, a script or a test
        out.outputs = ()
        for item in ([Markdown("(nothing selected)")] if figure is None else [figure, table]):
            out.append_display_data(item)

    for control in controls:
        control.observe(render, names="value")
    render()
    return widgets.VBox([widgets.HBox(controls), out])
