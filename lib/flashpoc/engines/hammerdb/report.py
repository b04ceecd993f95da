"""The report's HammerDB views (pure): NOPM against virtual users with the knee, NEWORD p95 against
NOPM (the OLTP hockey stick), and the configurations compared at equal virtual users.

Each takes the points as stored (one row per timed run: ``threads`` = virtual users, ``nopm``,
``tpm``, ``neword_p95_ms``; ``config`` when several campaigns are compared) and draws with the
report's palette and series channels (:mod:`flashpoc.chart`), so a configuration has one colour in
every chart; every axis title carries its unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from ... import analysis
from ...chart import _series_channels, _threads_x, series_domain

TITLE_USERS = "Virtual users (count)"
TITLE_NOPM = "NOPM (new orders per minute)"
TITLE_NEWORD_P95 = "NEWORD p95 response time (ms)"
#: the comparison table's columns: (column, header)
COMPARED = (("nopm", "NOPM (new orders/min)"), ("tpm", "TPM (transactions/min)"),
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
    data = _mean_per_point(points, ["nopm", "tpm"])
    domain = list(color_domain) if color_domain is not None else series_domain(data)
    color, dash = _series_channels(data, domain)
    x = _threads_x(data["threads"]).title(TITLE_USERS)
    tooltip = [alt.Tooltip("threads:Q", title="Virtual users"), alt.Tooltip("nopm:Q", title="NOPM", format=",.0f"),
               alt.Tooltip("tpm:Q", title="TPM", format=",.0f")]
    encodings = {"x": x, "y": alt.Y("nopm:Q", title=TITLE_NOPM, axis=alt.Axis(format=",.0f")), "color": color,
                 "strokeDash": dash, "order": alt.Order("threads:Q"), "tooltip": tooltip}
    lines = alt.Chart(data).mark_line(point=True).encode(**{k: v for k, v in encodings.items() if v is not None})
    layers = [lines]
    if knee_users is not None:
        rule = pd.DataFrame({"threads": [knee_users], "label": [f"knee: {knee_users} virtual user{'s' if knee_users != 1 else ''}"]})
        layers.append(alt.Chart(rule).mark_rule(strokeDash=[4, 3], color="#333333").encode(x="threads:Q"))
        layers.append(alt.Chart(rule).mark_text(align="left", dx=4, dy=-6, color="#333333").encode(
            x="threads:Q", y=alt.value(0), text="label:N"))
    subtitle = [answer] if answer else ["Each point is one timed TPROC-C run."]
    return alt.layer(*layers).properties(title=alt.Title("HammerDB TPROC-C: NOPM vs virtual users",
                                                         subtitle=subtitle))


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
