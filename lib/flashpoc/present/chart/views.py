"""An engine's chart drawn from its data (:class:`flashpoc.core.views.ChartView`): its series, titles
and axes in the engine's words, in the report's palette and series channels, so a configuration has
one colour in every chart."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from flashpoc.core.views import Axis, ChartView
from flashpoc.present.chart.encodings import _series_channels, _threads_x
from flashpoc.present.chart.oracle import sql_cpu_over_time, sql_runs
from flashpoc.present.chart.theme import series_domain

#: the charts drawn from their data as it is, by the name a view gives as its kind
DRAWN_AS_IS = {"sql_runs": sql_runs, "sql_cpu_over_time": sql_cpu_over_time}

#: the ring that marks a flagged point (a point with error lines)
FLAG_MARK = {"shape": "circle", "size": 220, "filled": False, "color": "#d62728", "strokeWidth": 2}


def draw(view: ChartView, color_domain: Sequence[str] | None = None) -> Any:
    """The Altair chart of ``view``: its kind's drawing (``lines``: :func:`lines`)."""
    if view.kind == "lines":
        return lines(view, color_domain)
    return DRAWN_AS_IS[view.kind](view.data)


def _x(axis: Axis, data: pd.DataFrame) -> alt.X:
    if axis.threads:
        return _threads_x(data[axis.field]).title(axis.title)
    return alt.X(f"{axis.field}:Q", title=axis.title, **({"axis": alt.Axis(format=axis.format)} if axis.format else {}))


def _y(axis: Axis) -> alt.Y:
    return alt.Y(f"{axis.field}:Q", title=axis.title, **({"axis": alt.Axis(format=axis.format)} if axis.format else {}))


def lines(view: ChartView, color_domain: Sequence[str] | None = None) -> alt.Chart | alt.LayerChart:
    """One line per series (configuration or workload) of ``view.y`` against ``view.x``, in order of
    threads; ``view.dash`` tells a column apart by dash instead of the workloads, ``view.rule`` draws
    a labelled vertical rule and ``view.flag`` rings the points whose column is positive (then the
    chart is a layer, its subtitle saying so when any point is ringed)."""
    data = view.data
    domain = list(color_domain) if color_domain is not None else series_domain(data)
    color, dash = _series_channels(data, domain)
    if view.dash is not None:
        dash = alt.StrokeDash(f"{view.dash[0]}:N", title=view.dash[1])
    x = _x(view.x, data)
    tooltip = [alt.Tooltip(f"{t.field}:{t.type}", title=t.title, **({"format": t.format} if t.format else {}))
               for t in view.tooltip]
    encodings = {"x": x, "y": _y(view.y), "color": color, "strokeDash": dash, "order": alt.Order("threads:Q"),
                 "tooltip": tooltip}
    chart = alt.Chart(data).mark_line(point=True).encode(**{k: v for k, v in encodings.items() if v is not None})
    subtitle = list(view.subtitle)
    if view.flag is None and view.rule is None:
        return chart.properties(title=alt.Title(view.title, subtitle=subtitle))
    layers = [chart]
    flagged = _flag_marks(view, x, tooltip) if view.flag is not None else []
    layers += flagged
    if view.rule is not None:
        at, label = view.rule
        rule = pd.DataFrame({view.x.field: [at], "label": [label]})
        layers.append(alt.Chart(rule).mark_rule(strokeDash=[4, 3], color="#333333").encode(x=f"{view.x.field}:Q"))
        layers.append(alt.Chart(rule).mark_text(align="left", dx=4, dy=-6, color="#333333").encode(
            x=f"{view.x.field}:Q", y=alt.value(0), text="label:N"))
    if flagged:
        subtitle.append(view.flag[1])
    return alt.layer(*layers).properties(title=alt.Title(view.title, subtitle=subtitle))


def _flag_marks(view: ChartView, x: Any, tooltip: list) -> list[alt.Chart]:
    """A red ring on each point whose flag column is positive (none without any)."""
    data, column = view.data, view.flag[0]
    if column not in data or not (pd.to_numeric(data[column], errors="coerce") > 0).any():
        return []
    flagged = data[pd.to_numeric(data[column], errors="coerce") > 0]
    return [alt.Chart(flagged).mark_point(**FLAG_MARK).encode(x=x, y=f"{view.y.field}:Q", tooltip=tooltip)]
