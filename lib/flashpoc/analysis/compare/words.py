"""The comparison to read: the deltas in sentences (:func:`comparison_text`, with the mean of the
per-workload changes across workloads) and as a table (:func:`comparison_display`); every value and
change printed as the value or bound it is (:mod:`flashpoc.analysis.bounds`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from flashpoc.analysis import confidence
from flashpoc.core import tables
from flashpoc.analysis import bounds
from flashpoc.analysis.compare.table import EQUAL_LOAD_MEASURES, ORACLE_WRITE_WAITS


def row_bounds(row: dict[str, Any]) -> tuple[bounds.Bound, bounds.Bound, bounds.Bound]:
    """The baseline's value, the configuration's and the change in % of a comparison row, each as the
    bound it is (a row without ``*_bound`` columns: exact values)."""
    return (bounds.of(row.get("baseline_value"), row.get("baseline_bound")),
            bounds.of(row.get("config_value"), row.get("config_bound")),
            bounds.of(row.get("delta_pct"), row.get("delta_bound")))


def _signed(value: float) -> str:
    return f"{value:+,.1f} %"


def comparison_text(table: pd.DataFrame, notes: Sequence[str] = ()) -> str:
    """Markdown: one sentence per workload and configuration with the headline deltas (max
    IOPS, IOPS at each latency, latency at the highest equal-IOPS level), the mean change across
    workloads (:func:`across_workloads`), then the notes."""
    lines = []
    for (workload, config), rows in table.groupby(["workload", "config"], sort=False):
        baseline = rows["baseline"].iloc[0]
        parts = []
        throughput = (rows["metric"] == "MiB/s at latency").any()  # sequential and large-block I/O: in MiB/s
        for r in rows.to_dict("records"):
            if r["metric"] in (("max MiB/s", "MiB/s at latency") if throughput else ("max IOPS", "IOPS at latency")):
                where = "max" if r["metric"].startswith("max") else f"at {r['at']}"
                parts.append(_phrase(f"{r['unit']} {where}", r, ",.0f"))
        for metric, what, fmt, unit in (("mean latency at equal IOPS", "mean latency", ".3f", " ms"),
                                        ("host CPU per 10K IOPS", "host CPU per 10K IOPS", ".1f", " %"),
                                        ("IOPS at equal threads", "IOPS", ",.0f", "")):
            chosen = rows[rows["metric"] == metric]
            if not chosen.empty:
                r = chosen.iloc[-1].to_dict()
                parts.append(_phrase(f"{what} at {r['at']}", r, fmt, unit))
        lines.append(f"- `{workload}`, **{config}** vs {baseline}: " + "; ".join(parts) + ".")
    lines += across_workloads(table)
    lines += [f"- {note}" for note in notes]
    return "\n".join(lines)


def _phrase(what: str, row: dict[str, Any], fmt: str, unit: str = "") -> str:
    """``what`` for both sides and the change: "IOPS at 0.5 ms 12,267 -> ≥ 85,427 (≥ +596.4 %; B: under
    0.5 ms at every point measured)"; a level a side never reached says so, with no change."""
    a, b, pct = row_bounds(row)
    number = lambda v: format(v, fmt)  # noqa: E731
    said = [side.cell(number) + (unit if side.known else "") for side in (a, b)]
    inner = [pct.cell(_signed)] if pct.known else (
        ["no change can be read: both are bounds the same way"] if a.known and b.known else [])
    if isinstance(row.get("bound_note"), str):
        inner.append(row["bound_note"])
    change = f" ({'; '.join(inner)})" if inner else ""
    low, high = row.get("delta_low"), row.get("delta_high")
    if low is not None and not pd.isna(low):
        change += f", 95 % interval of the difference {low:+{fmt}}..{high:+{fmt}}{unit}"
    if confidence.is_noise(row.get("noise")):
        change += f": **{row['noise']}**"
    return f"{what} {said[0]} -> {said[1]}{change}"


#: The measures whose change is averaged over workloads (:func:`across_workloads`).
ACROSS = ("IOPS at latency", "MiB/s at latency", "host CPU at equal threads", "DB CPU at equal threads")


def across_workloads(table: pd.DataFrame) -> list[str]:
    """Markdown lines: for each configuration and measure (:data:`ACROSS`) compared in two or more
    workloads at the same place (the same latency, threads or sessions), the mean of the
    per-workload changes in %, and each workload's change. A change that is a bound is listed but
    not averaged (the mean says of how many it is)."""
    lines = []
    if table.empty:
        return lines
    chosen = table[table["metric"].isin(ACROSS)]
    for (config, metric, at), rows in chosen.groupby(["config", "metric", "at"], sort=False):
        if rows["workload"].nunique() < 2:
            continue
        changes = [(r["workload"], row_bounds(r)[2]) for r in rows.to_dict("records")]
        exact = [c.value for _, c in changes if c.exact]
        if len(exact) < 2:
            continue
        mean = sum(exact) / len(exact)
        each = ", ".join(f"`{w}` {c.cell(_signed)}" for w, c in changes)
        of = "" if len(exact) == len(changes) else f" of the {len(exact)} exact changes; the others are bounds"
        lines.append(f"- Across {len(changes)} workloads, **{config}** vs {rows['baseline'].iloc[0]}: "
                     f"{measure_label(metric, at)} {mean:+.1f} % on average (the mean of the per-workload "
                     f"changes{of}: {each}; from {min(exact):+.1f} to {max(exact):+.1f} %).")
    return lines


def _measure_label(what: str, unit: str) -> str:
    """'Read IOPS at {at}', 'Mean latency (ms) at {at}': the unit unless the name says it."""
    return f"{what[0].upper()}{what[1:]}{'' if unit in what else f' ({unit})'} at {{at}}"


_MEASURES = {"max IOPS": "Max IOPS", "IOPS at latency": "IOPS at {at}", "MiB/s at latency": "MiB/s at {at}",
             "mean latency at equal IOPS": "Mean latency (ms) at {at}",
             "write latency at equal IOPS": "Write latency (ms) at {at}",
             "host CPU per 10K IOPS": "Host CPU per 10K IOPS (%) at {at}", "max MiB/s": "Max MiB/s",
             ORACLE_WRITE_WAITS["redo_write_lat_ms"]: "Redo write wait (ms) at {at}",
             ORACLE_WRITE_WAITS["dbwr_write_lat_ms"]: "DBWR write wait (ms) at {at}",
             **{metric: _measure_label(metric.removesuffix(" at equal threads"), unit)
                for _, metric, unit, _ in EQUAL_LOAD_MEASURES}}
_FORMATS = {"IOPS": tables.count, "ms": tables.ms, "%": tables.pct, "MiB/s": tables.mibps,
            "s/s": lambda v: tables.pct(v, 2)}


def measure_label(metric: str, at: str) -> str:
    """A comparison row's measure to read: "IOPS at 1 ms", "Host CPU (%) at 64 threads"."""
    return _MEASURES.get(metric, metric).format(at=at)


def comparison_display(table: pd.DataFrame, *, place: Callable[[dict[str, Any]], dict[str, str]] | None = None,
                       formats: dict[str, Callable[[Any], str]] | None = None,
                       note: str | None = None) -> tables.Table:
    """:func:`comparison_table` to read: one row per place and measure (``place`` gives a row's leading
    text columns; by default its workload and measure), the baseline's value, then each other
    configuration's value and its change against the baseline ("better" or "worse" for that
    configuration), each value written by the ``formats`` of its unit. A bound shows as one
    ("≥ 85,427", "≥ +596.4 %"), what makes it one is noted under the table after ``note`` (by default
    how an IOPS comparison reads its values); a level a curve never reaches shows "not reached"."""
    if table.empty:
        return tables.table([])
    place = place or (lambda r: {"Workload": r["workload"], "Measure": measure_label(r["metric"], r["at"])})
    formats = formats or _FORMATS
    baseline = str(table["baseline"].iloc[0])
    others = list(dict.fromkeys(table["config"].astype(str)))
    rows: dict[tuple, dict[str, str]] = {}
    said: dict[str, None] = {}
    for r in table.to_dict("records"):
        fmt = formats.get(r["unit"], tables.pct)
        a, b, _ = row_bounds(r)
        where = place(r)
        row = rows.setdefault(tuple(where.values()), {**where, baseline: a.cell(fmt)})
        row[r["config"]] = b.cell(fmt)
        row[f"{r['config']} vs {baseline}"] = change_cell(r)
        if isinstance(r.get("bound_note"), str):
            said[f"{', '.join(where.values())}: {r['bound_note']}."] = None
    leading = list(place(table.iloc[0].to_dict()))
    columns = [*leading, baseline] + [c for other in others for c in (other, f"{other} vs {baseline}")]
    return tables.table(rows.values(), columns=columns, text_columns=leading,
                        notes=[f"Baseline: {baseline}. " + (note or _IOPS_NOTE), *said])


_IOPS_NOTE = ("Values between measured points are interpolated, never extrapolated. Outside them a value is a "
              "bound: '≥' (at least: every point was under the latency) or '≤' (at most: the lightest load already "
              "did more), and its change a bound too; a level a curve never reaches shows 'not reached', with no "
              "change. With repeats, each change has its 95 % interval (Welch, over the repeat-wise answers); a "
              "change whose interval spans zero, or, without repeats, one smaller than the stated point-to-point "
              "noise, is within measurement noise: neither better nor worse. Every value, with its kind of bound: "
              "comparison.csv.")


def change_cell(r: dict[str, Any]) -> str:
    """A comparison row's change to read: its % of the baseline (a bound where it is one), "better" or
    "worse" where more or less is better, then its 95 % interval and the words when it is noise
    (:func:`_interval_cell`)."""
    change = row_bounds(r)[2].cell(tables.signed_pct)
    if r["better"] in (r["config"], r["baseline"]) and change != tables.MISSING:
        change += "\nbetter" if r["better"] == r["config"] else "\nworse"
    return change + _interval_cell(r)


def _interval_cell(r: dict[str, Any]) -> str:
    """The 95 % interval of a change in % of the baseline, and the words when it is noise."""
    text = ""
    low, base = r.get("delta_low"), r.get("baseline_value")
    if low is not None and not pd.isna(low) and base:
        text += f"\n95 %: {low / base * 100:+.1f}..{r['delta_high'] / base * 100:+.1f} %"
    if confidence.is_noise(r.get("noise")):
        text += f"\n{confidence.NOISE}"
    return text
