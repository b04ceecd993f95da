"""The 95 % intervals of repeated points (:mod:`flashpoc.analysis.confidence`) drawn on the sweep charts:
a rule from the interval's low to its high end at each point measured more than once, in the
colour of its series."""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd

from flashpoc.analysis import confidence

#: the subtitle line of a chart that draws intervals
NOTE = "Bars: the 95 % interval of each point's mean over its repeats (Student t)."


def with_intervals(df: pd.DataFrame, data: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    """``data`` (one row per point, means) with ``<metric>_lo`` and ``<metric>_hi``, the 95 %
    interval of each metric over the point's repeats in ``df``; unchanged when no point of ``df``
    was measured more than once. A point measured once has no interval (NaN: no bar). A point is
    what :func:`flashpoc.analysis.confidence.point_keys` says (a rate-curve step its own), of the keys
    ``data`` has."""
    if not confidence.has_repeats(df):
        return data
    keys = [c for c in confidence.point_keys(df) if c in data.columns]
    out = data
    for metric in metrics:
        if metric not in df:
            continue
        table = confidence.point_table(df[[*keys, metric]], metric)
        table = table[[*keys, "ci_low", "ci_high"]].rename(columns={"ci_low": f"{metric}_lo",
                                                                    "ci_high": f"{metric}_hi"})
        table["threads"] = table["threads"].astype(int)
        for bound in (f"{metric}_lo", f"{metric}_hi"):
            table[bound] = pd.to_numeric(table[bound], errors="coerce").astype(float)
        out = out.merge(table, on=keys, how="left")
    return out


def has_intervals(data: pd.DataFrame, metric: str) -> bool:
    """Whether ``data`` (:func:`with_intervals`) has an interval of ``metric`` to draw."""
    return f"{metric}_lo" in data and data[f"{metric}_lo"].notna().any()


def rules(data: pd.DataFrame, x: str, y: str, color: Any, along: str, titles: tuple[str, str]) -> list[alt.Chart]:
    """The interval bars of ``along`` (``x`` or ``y``: the field that has ``_lo``/``_hi``) at each
    point (``x``, ``y``; the axes' ``titles``), coloured as the series (``color``); [] when there is none."""
    if not has_intervals(data, along):
        return []
    drawn = data[data[f"{along}_lo"].notna()]
    title = {"iops": "IOPS", "bw_mibps": "MiB/s"}.get(along, along)
    fmt = ",.0f" if along in ("iops", "bw_mibps") else ".3f"
    tooltip = [alt.Tooltip("threads:Q", title="Threads"),
               alt.Tooltip(f"{along}_lo:Q", title=f"95 % interval low ({title})", format=fmt),
               alt.Tooltip(f"{along}_hi:Q", title=f"95 % interval high ({title})", format=fmt)]
    encodings = {"tooltip": tooltip}
    if color is not None:
        encodings["color"] = color
    if along == x:
        encodings.update(x=alt.X(f"{x}_lo:Q", title=titles[0]), x2=alt.X2(f"{x}_hi:Q"),
                         y=alt.Y(f"{y}:Q", title=titles[1]))
    else:
        encodings.update(y=alt.Y(f"{y}_lo:Q", title=titles[1]), y2=alt.Y2(f"{y}_hi:Q"),
                         x=alt.X(f"{x}:Q", title=titles[0]))
    return [alt.Chart(drawn).mark_rule(strokeWidth=2, opacity=0.7).encode(**encodings)]
