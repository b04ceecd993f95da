"""Compare configurations at equal latency, equal IOPS and equal load (pure: DataFrames in, DataFrames out).

A POC ends with a decision between configurations (A-series TLC vs C-series QLC, iSCSI vs
NVMe-oF, kernel NFS vs dNFS). The input is the sweep points of several campaigns in one table
with a ``config`` column (the campaign's label); the first configuration is the baseline.

Every number is read off the measured curves, never extrapolated:

* **IOPS at equal latency** (the SLO and the chosen latencies):
  :func:`flashpoc.analysis.iops_at_latency`, interpolated in latency between the two measured
  points around it.
* **Latency at equal IOPS**: :func:`value_at_iops`, walking the curve in thread order up to the
  first point at or above the IOPS and interpolating linearly in IOPS; an IOPS level below the
  lightest measured load or above the highest gives no value.
* **At equal load** (the same threads or users, as the seeds compare DB-host CPU at 128 and 256
  users): IOPS, MiB/s and latency, in total and per direction, and host CPU, at thread counts both
  configurations measured (:func:`equal_threads`).
* **Host CPU per 10K IOPS at equal IOPS**: host CPU busy (%) interpolated the same way, divided
  by the IOPS in tens of thousands (the NVMe-oF vs iSCSI finding: 40-45 % less CPU at equal
  load).

A workload is compared only when it is the same test in both configurations: same engine,
access pattern, block size, read share and queue depth (SLOB: update and scan share), and
working sets within :data:`WORKING_SET_TOLERANCE_PCT` of each other. Anything else is listed
by :func:`comparability` and left out of the deltas, never compared silently.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from . import analysis, confidence, tables
from .rows import curve_points
from .tables import threads_text

#: Columns that must be equal for two configurations' runs of a workload to be compared.
DEFINING_COLUMNS: dict[str, str] = {
    "engine": "engine",
    "rw": "access pattern",
    "bs": "block size",
    "rwmixread": "read share (%)",
    "iodepth": "queue depth per thread",
    "update_pct": "SLOB UPDATE_PCT",
    "scan_pct": "SLOB SCAN_PCT",
}

#: Working sets further apart than this (% of the larger) are not compared.
WORKING_SET_TOLERANCE_PCT = 10.0

#: Oracle write waits (SLOB points, ms) compared at equal IOPS, and their metric names.
ORACLE_WRITE_WAITS: dict[str, str] = {
    "redo_write_lat_ms": "redo write (log file parallel write) at equal IOPS",
    "dbwr_write_lat_ms": "DBWR write (db file parallel write) at equal IOPS",
}

COMPARISON_COLUMNS = ["workload", "metric", "unit", "at", "baseline", "config", "baseline_value", "config_value",
                      "delta", "delta_pct", "better", "delta_low", "delta_high", "runs", "noise"]

#: the point-to-point noise (%) a difference without repeats must pass to be more than noise
NOISE_PCT = 10.0


def configs(points: pd.DataFrame) -> list[str]:
    """The configurations in ``points`` in order of first appearance (the baseline first)."""
    if "config" not in points:
        return []
    return list(dict.fromkeys(points["config"].astype(str)))


def _first(group: pd.DataFrame, column: str) -> Any:
    if column not in group:
        return None
    values = group[column].dropna()
    return None if values.empty else values.iloc[0]


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9)
    except (TypeError, ValueError):
        return str(a) == str(b)


def comparability(points: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Which workloads can be compared across the configurations, and why the others cannot.

    Args:
        points: sweep points with ``config`` and ``workload`` columns.

    Returns:
        ``(comparable workloads, notes)``: a workload is comparable when at least two
        configurations ran it with the same definition (:data:`DEFINING_COLUMNS`, working set
        within :data:`WORKING_SET_TOLERANCE_PCT`); each note is one Markdown sentence naming the
        workload, the configurations and what differs (or which configuration lacks it).
    """
    names = configs(points)
    comparable, notes = [], []
    for workload in dict.fromkeys(points["workload"]):
        group = points[points["workload"] == workload]
        present = [c for c in names if (group["config"] == c).any()]
        missing = [c for c in names if c not in present]
        if len(present) < 2:
            notes.append(f"`{workload}` was measured only in {', '.join(present)}: nothing to compare it with.")
            continue
        if missing:
            notes.append(f"`{workload}` is missing from {', '.join(missing)}.")
        base = group[group["config"] == present[0]]
        differences = []
        for other in present[1:]:
            rows = group[group["config"] == other]
            for column, what in DEFINING_COLUMNS.items():
                a, b = _first(base, column), _first(rows, column)
                if not _same(a, b):
                    differences.append(f"{what} {a} ({present[0]}) vs {b} ({other})")
            wa, wb = _first(base, "working_set_bytes"), _first(rows, "working_set_bytes")
            if wa and wb and abs(wa - wb) / max(wa, wb) * 100 > WORKING_SET_TOLERANCE_PCT:
                differences.append(f"working set {wa / 2**30:,.1f} GiB ({present[0]}) vs "
                                   f"{wb / 2**30:,.1f} GiB ({other})")
        if differences:
            notes.append(f"`{workload}` is **not compared**: " + "; ".join(differences) + ".")
        else:
            comparable.append(workload)
    return comparable, notes


def value_at_iops(group: pd.DataFrame, column: str, iops: float) -> dict[str, Any]:
    """A column's value where one curve reaches ``iops``, interpolated linearly in IOPS.

    The curve is walked in thread order (repeats averaged) up to the first point at or above
    ``iops``; nothing is extrapolated.

    Args:
        group: the points of one configuration and workload (threads, iops, ``column``).
        column: e.g. ``lat_mean_ms`` (ms) or ``host_cpu_busy_pct`` (%).
        iops: the IOPS level (> 0).

    Returns:
        ``{"value": float | None, "status": str}``: ``"exact"``, ``"interpolated"``,
        ``"below_all"`` (the lightest measured load already exceeds ``iops``), ``"above_all"``
        (the curve never reaches it) or ``"missing"`` (no values of ``column`` on the way).
    """
    if column not in group:
        return {"value": None, "status": "missing"}
    curve = (group.dropna(subset=["iops", column]).groupby("threads", sort=True)[["iops", column]].mean())
    if curve.empty:
        return {"value": None, "status": "missing"}
    previous = None
    for _, row in curve.iterrows():
        y, v = float(row["iops"]), float(row[column])
        if y == iops:
            return {"value": v, "status": "exact"}
        if y > iops:
            if previous is None:
                return {"value": None, "status": "below_all"}
            y0, v0 = previous
            return {"value": v0 + (iops - y0) / (y - y0) * (v - v0), "status": "interpolated"}
        previous = (y, v)
    return {"value": None, "status": "above_all"}


def _delta(base: float | None, other: float | None) -> tuple[float | None, float | None]:
    if base is None or other is None:
        return None, None
    return other - base, (None if base == 0 else (other - base) / base * 100.0)


def _better(delta: float | None, higher_is_better: bool, baseline: str, config: str) -> str | None:
    if delta is None:
        return None
    if delta == 0:
        return "equal"
    return config if (delta > 0) == higher_is_better else baseline


def _iops_text(iops: float) -> str:
    return f"{iops:,.0f} IOPS"


def equal_iops_levels(base: pd.DataFrame, other: pd.DataFrame, levels: Sequence[float] = ()) -> list[float]:
    """IOPS at which two curves are compared: ``levels`` if given, else half and all of the lower
    of the two maximum IOPS (both curves reach them), rounded down to 3 significant digits."""
    if levels:
        return [float(v) for v in levels]
    common = min(float(base["iops"].max()), float(other["iops"].max()))
    if not common > 0:
        return []
    def down_3_digits(value: float) -> float:  # rounded down, so that both curves still reach it
        step = 10.0 ** (math.floor(math.log10(value)) - 2)
        return math.floor(value / step) * step

    return sorted({down_3_digits(common * share) for share in (0.5, 1.0)})


#: Measures compared at equal load (the same threads or users), per direction where the engine
#: reports it: (column, metric, unit, higher is better).
EQUAL_LOAD_MEASURES: tuple[tuple[str, str, str, bool], ...] = (
    ("iops", "IOPS at equal threads", "IOPS", True),
    ("read_iops", "read IOPS at equal threads", "IOPS", True),
    ("write_iops", "write IOPS at equal threads", "IOPS", True),
    ("bw_mibps", "MiB/s at equal threads", "MiB/s", True),
    ("read_bw_mibps", "read MiB/s at equal threads", "MiB/s", True),
    ("write_bw_mibps", "write MiB/s at equal threads", "MiB/s", True),
    ("lat_mean_ms", "mean latency at equal threads", "ms", False),
    ("read_lat_mean_ms", "read latency at equal threads", "ms", False),
    ("write_lat_mean_ms", "write latency at equal threads", "ms", False),
    ("host_cpu_busy_pct", "host CPU at equal threads", "%", False),
)


def equal_threads(base: pd.DataFrame, other: pd.DataFrame, wanted: Sequence[int] = ()) -> list[int]:
    """Thread counts (users) at which two curves are compared at equal load: those of ``wanted``
    both measured, else the highest both measured and the common one nearest half of it."""
    common = sorted(set(base["threads"].astype(int)) & set(other["threads"].astype(int)))
    if wanted:
        return [t for t in wanted if t in common]
    if not common:
        return []
    top = common[-1]
    return sorted({min(common, key=lambda t: (abs(t - top / 2), t)), top})


def _at_threads(group: pd.DataFrame, threads: int, column: str) -> float | None:
    """The mean of ``column`` over the points measured at ``threads`` (None when there is none)."""
    if column not in group:
        return None
    values = pd.to_numeric(group.loc[group["threads"].astype(int) == threads, column], errors="coerce").dropna()
    return None if values.empty else float(values.mean())


def comparison_table(points: pd.DataFrame, *, slo_ms: float, latencies_ms: Sequence[float] = (),
                     iops_levels: Sequence[float] = (), threads: Sequence[int] = (),
                     noise_pct: float = NOISE_PCT) -> pd.DataFrame:
    """Deltas of every configuration against the baseline (the first), per comparable workload.

    Args:
        points: sweep points of all configurations (``config``, ``workload``, ``threads``,
            ``iops``, ``lat_mean_ms``; optional ``host_cpu_busy_pct``, ``write_lat_mean_ms``).
        slo_ms: the latency SLO (ms); IOPS are compared at it and at ``latencies_ms``.
        latencies_ms: further latencies (ms).
        iops_levels: IOPS levels for latency and CPU at equal IOPS (default
            :func:`equal_iops_levels`).
        threads: thread counts (users) to compare at equal load (default :func:`equal_threads`).
        noise_pct: the point-to-point noise (%) a difference must pass when there are no repeats.

    Returns:
        One row per workload, configuration and metric (:data:`COMPARISON_COLUMNS`): metric
        ``max IOPS`` (IOPS), ``IOPS at latency`` (IOPS, ``at`` e.g. "1 ms"), ``mean latency at
        equal IOPS`` (ms), ``write latency at equal IOPS`` (ms, where writes exist), the Oracle
        write waits of :data:`ORACLE_WRITE_WAITS` (ms, SLOB points), ``host CPU
        per 10K IOPS`` (%), ``max MiB/s``, and at equal load (``at`` e.g. "64 threads") the
        :data:`EQUAL_LOAD_MEASURES` both configurations have values of (IOPS, MiB/s and latency,
        in total and, for workloads that both read and write, per direction; host CPU); ``delta`` = config - baseline, ``delta_pct`` in % of the baseline,
        ``better`` names the better configuration, or is :data:`flashpoc.confidence.NOISE` when the
        difference cannot be told from noise. With repeats on both sides, ``delta_low``..``delta_high``
        is the 95 % Welch interval of the difference of the repeat-wise answers (each repeat's curve
        gives its own max IOPS, IOPS at a latency, value at equal IOPS or threads), ``runs`` the
        repeats used ('3 vs 3'); ``noise`` says whether the difference is within measurement noise
        (:func:`flashpoc.confidence.noise_verdict`: the interval spans zero, or, without repeats,
        the difference is below ``noise_pct``). Values a curve does not reach are None, with
        no delta. Workloads :func:`comparability` rejects are left out.
    """
    names = configs(points)
    if len(names) < 2:
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    workloads, _ = comparability(points)
    latencies = sorted({float(slo_ms), *map(float, latencies_ms)})
    rows: list[dict[str, Any]] = []
    baseline = names[0]
    for workload in workloads:
        group = points[points["workload"] == workload]
        base = group[group["config"] == baseline]
        if base.empty:
            continue
        for config in names[1:]:
            other = group[group["config"] == config]
            if other.empty:
                continue
            add = _adder(rows, workload, baseline, config, base, other, noise_pct)
            _add_curve_metrics(add, group, base, other, latencies, iops_levels)
            _add_equal_load(add, group, base, other, threads)
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


def _adder(rows: list[dict[str, Any]], workload: str, baseline: str, config: str, base: pd.DataFrame,
           other: pd.DataFrame, noise_pct: float):
    """A function appending one row of :func:`comparison_table` to ``rows`` for ``config`` against ``baseline``."""
    def add(metric: str, unit: str, at: str, a: float | None, b: float | None, higher_is_better: bool,
            answer: Any = None) -> None:
        delta, pct = _delta(a, b)
        noise = _noise(base, other, answer, delta, pct, noise_pct)
        better = _better(delta, higher_is_better, baseline, config)
        rows.append({"workload": workload, "metric": metric, "unit": unit, "at": at, "baseline": baseline,
                     "config": config, "baseline_value": a, "config_value": b, "delta": delta,
                     "delta_pct": pct, **noise,
                     "better": confidence.NOISE if confidence.is_noise(noise["noise"]) else better})
    return add


def _at_iops(column: str, level: float, per: float = 1.0) -> Any:
    """The repeat-wise answer: ``column`` of one curve at ``level`` IOPS, divided by ``per``."""
    def answer(curve: pd.DataFrame) -> float | None:
        found = value_at_iops(curve, column, level)["value"]
        return None if found is None else found / per
    return answer


def _add_curve_metrics(add, group: pd.DataFrame, base: pd.DataFrame, other: pd.DataFrame,
                       latencies: Sequence[float], iops_levels: Sequence[float]) -> None:
    """The rows of :func:`comparison_table` read from the curves: max IOPS and MiB/s, IOPS at each
    latency, and latencies and host CPU at equal IOPS."""
    means = [confidence.mean_rows(g) for g in (base, other)]  # repeats: each point's mean, never its best
    add("max IOPS", "IOPS", "", *[float(m["iops"].max()) for m in means], True, confidence.max_iops)
    if "bw_mibps" in group and base["bw_mibps"].notna().any() and other["bw_mibps"].notna().any():
        add("max MiB/s", "MiB/s", "", *[float(m["bw_mibps"].max()) for m in means], True,
            lambda curve: curve["bw_mibps"].max())
    for latency in latencies:
        a = analysis.iops_at_latency(curve_points(base), latency)
        b = analysis.iops_at_latency(curve_points(other), latency)
        # "below_all" means "at least": no delta between lower bounds
        values = [r["iops"] if r["status"] in ("exact", "interpolated") else None for r in (a, b)]
        add("IOPS at latency", "IOPS", f"{latency:g} ms", *values, True, confidence.iops_at_slo(latency))
    for level in equal_iops_levels(*means, iops_levels):
        at = _iops_text(level)
        add("mean latency at equal IOPS", "ms", at, value_at_iops(base, "lat_mean_ms", level)["value"],
            value_at_iops(other, "lat_mean_ms", level)["value"], False, _at_iops("lat_mean_ms", level))
        if has_writes(base) and has_writes(other):
            add("write latency at equal IOPS", "ms", at,
                value_at_iops(base, "write_lat_mean_ms", level)["value"],
                value_at_iops(other, "write_lat_mean_ms", level)["value"], False,
                _at_iops("write_lat_mean_ms", level))
        for column, metric in ORACLE_WRITE_WAITS.items():
            waits = [value_at_iops(g, column, level)["value"] for g in (base, other)]
            if any(v is not None for v in waits):
                add(metric, "ms", at, *waits, False, _at_iops(column, level))
        cpu = [value_at_iops(g, "host_cpu_busy_pct", level)["value"] for g in (base, other)]
        if any(v is not None for v in cpu):
            add("host CPU per 10K IOPS", "%", at, *[None if v is None else v / (level / 1e4) for v in cpu],
                False, _at_iops("host_cpu_busy_pct", level, level / 1e4))


def _add_equal_load(add, group: pd.DataFrame, base: pd.DataFrame, other: pd.DataFrame, threads: Sequence[int]) -> None:
    """The rows of :func:`comparison_table` at equal load: each of :data:`EQUAL_LOAD_MEASURES` at each thread count."""
    mixed = all(c in group and (group[c].fillna(0) > 0).any() for c in ("read_iops", "write_iops"))
    for count in equal_threads(base, other, threads):
        for column, metric, unit, higher in EQUAL_LOAD_MEASURES:
            if column.startswith(("read_", "write_")) and not mixed:  # one direction: the total says it
                continue
            a, b = _at_threads(base, count, column), _at_threads(other, count, column)
            if a is not None and b is not None and (a or b):  # a direction neither did is left out
                add(metric, unit, threads_text(count), a, b, higher,
                    lambda curve, count=count, column=column: _at_threads(curve, count, column))


def _noise(base: pd.DataFrame, other: pd.DataFrame, answer: Any, delta: float | None, pct: float | None,
           noise_pct: float) -> dict[str, Any]:
    """The interval of a difference from the repeat-wise answers of both curves (Welch), the
    repeats it used, and whether the difference is noise (:func:`flashpoc.confidence.noise_verdict`)."""
    if delta is None:
        return {"delta_low": None, "delta_high": None, "runs": None, "noise": None}
    a, b = ([] if answer is None else confidence.repeat_answers(c, answer) for c in (base, other))
    difference = confidence.welch(a, b)
    return {"delta_low": None if difference is None else difference.low,
            "delta_high": None if difference is None else difference.high,
            "runs": f"{len(a)} vs {len(b)}" if a and b else None,
            "noise": confidence.noise_verdict(pct, difference, noise_pct)}


def has_writes(points: pd.DataFrame) -> bool:
    """Whether any point wrote (``write_iops`` > 0) and has a write latency (``write_lat_mean_ms``)."""
    return ("write_lat_mean_ms" in points and points["write_lat_mean_ms"].notna().any()
            and "write_iops" in points and (points["write_iops"].fillna(0) > 0).any())


def comparison_text(table: pd.DataFrame, notes: Sequence[str] = ()) -> str:
    """Markdown: one sentence per workload and configuration with the headline deltas (max
    IOPS, IOPS at each latency, latency at the highest equal-IOPS level), then the notes."""
    lines = []
    for (workload, config), rows in table.groupby(["workload", "config"], sort=False):
        baseline = rows["baseline"].iloc[0]
        parts = []
        for r in rows.to_dict("records"):
            if r["metric"] in ("max IOPS", "IOPS at latency"):
                where = "max" if r["metric"] == "max IOPS" else f"at {r['at']}"
                parts.append(_phrase(f"IOPS {where}", r, ",.0f"))
        latency = rows[rows["metric"] == "mean latency at equal IOPS"]
        if not latency.empty:
            r = latency.iloc[-1].to_dict()
            parts.append(_phrase(f"mean latency at {r['at']}", r, ".3f", " ms"))
        cpu = rows[rows["metric"] == "host CPU per 10K IOPS"]
        if not cpu.empty:
            r = cpu.iloc[-1].to_dict()
            parts.append(_phrase(f"host CPU per 10K IOPS at {r['at']}", r, ".1f", " %"))
        load = rows[rows["metric"] == "IOPS at equal threads"]
        if not load.empty:
            r = load.iloc[-1].to_dict()
            parts.append(_phrase(f"IOPS at {r['at']}", r, ",.0f"))
        lines.append(f"- `{workload}`, **{config}** vs {baseline}: " + "; ".join(parts) + ".")
    lines += [f"- {note}" for note in notes]
    return "\n".join(lines)


def _phrase(what: str, row: dict[str, Any], fmt: str, unit: str = "") -> str:
    a, b = row["baseline_value"], row["config_value"]
    if a is None or b is None or pd.isna(a) or pd.isna(b):
        missing = row["baseline"] if a is None or pd.isna(a) else row["config"]
        return f"{what}: not reached by {missing}"
    pct = row["delta_pct"]
    change = "" if pct is None or pd.isna(pct) else f" ({pct:+.1f} %)"
    low, high = row.get("delta_low"), row.get("delta_high")
    if low is not None and not pd.isna(low):
        change += f", 95 % interval of the difference {low:+{fmt}}..{high:+{fmt}}{unit}"
    if confidence.is_noise(row.get("noise")):
        change += f": **{row['noise']}**"
    return f"{what} {a:{fmt}}{unit} -> {b:{fmt}}{unit}{change}"


def _measure_label(what: str, unit: str) -> str:
    """'Read IOPS at {at}', 'Mean latency (ms) at {at}': the unit unless the name says it."""
    return f"{what[0].upper()}{what[1:]}{'' if unit in what else f' ({unit})'} at {{at}}"


_MEASURES = {"max IOPS": "Max IOPS", "IOPS at latency": "IOPS at {at}", "mean latency at equal IOPS":
             "Mean latency (ms) at {at}", "write latency at equal IOPS": "Write latency (ms) at {at}",
             "host CPU per 10K IOPS": "Host CPU per 10K IOPS (%) at {at}", "max MiB/s": "Max MiB/s",
             ORACLE_WRITE_WAITS["redo_write_lat_ms"]: "Redo write wait (ms) at {at}",
             ORACLE_WRITE_WAITS["dbwr_write_lat_ms"]: "DBWR write wait (ms) at {at}",
             **{metric: _measure_label(metric.removesuffix(" at equal threads"), unit)
                for _, metric, unit, _ in EQUAL_LOAD_MEASURES}}
_FORMATS = {"IOPS": tables.count, "ms": tables.ms, "%": tables.pct, "MiB/s": tables.mibps}


def comparison_display(table: pd.DataFrame) -> tables.Table:
    """:func:`comparison_table` to read: one row per workload and measure, the baseline's value,
    then each other configuration's value and its change against the baseline ("better" or
    "worse" for that configuration). Values a curve does not reach show as "not reached"."""
    if table.empty:
        return tables.table([])
    baseline = str(table["baseline"].iloc[0])
    others = list(dict.fromkeys(table["config"].astype(str)))
    rows: dict[tuple, dict[str, str]] = {}
    for r in table.to_dict("records"):
        fmt = _FORMATS.get(r["unit"], tables.pct)
        key = (r["workload"], r["metric"], r["at"])
        row = rows.setdefault(key, {"Workload": r["workload"],
                                    "Measure": _MEASURES.get(r["metric"], r["metric"]).format(at=r["at"]),
                                    baseline: _reached(r["baseline_value"], fmt)})
        row[r["config"]] = _reached(r["config_value"], fmt)
        row[f"{r['config']} vs {baseline}"] = change_cell(r)
    columns = ["Workload", "Measure", baseline]
    for other in others:
        columns += [other, f"{other} vs {baseline}"]
    return tables.table(rows.values(), columns=columns, text_columns=["Workload", "Measure"],
                        notes=[f"Baseline: {baseline}. Values between measured points are interpolated, never "
                               "extrapolated: a level a curve never reaches gives no value and no change. "
                               "With repeats, each change has its 95 % interval (Welch, over the repeat-wise "
                               "answers); a change whose interval spans zero, or, without repeats, one smaller "
                               "than the stated point-to-point noise, is within measurement noise: neither "
                               "better nor worse. Every value: comparison.csv."])


def change_cell(r: dict[str, Any]) -> str:
    """A comparison row's change to read: its % of the baseline, "better" or "worse" where more or
    less is better, then its 95 % interval and the words when it is noise (:func:`_interval_cell`)."""
    change = tables.signed_pct(r["delta_pct"])
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


def _reached(value: Any, fmt) -> str:
    return "not reached" if value is None or pd.isna(value) else fmt(value)
