"""The comparison table: every compared value of each configuration against the baseline, as a value or a
bound (:mod:`flashpoc.analysis.bounds`), with its change and whether it is noise."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from flashpoc import analysis
from flashpoc.analysis import confidence
from flashpoc.analysis import bounds
from flashpoc.analysis.bounds import AT_MOST, EXACT, MISSING, NOT_REACHED, Bound
from flashpoc.core.tables import threads_text
from flashpoc.analysis.rows import to_points
from flashpoc.analysis.rows import KIND_THROUGHPUT, workload_kinds

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
                      "delta", "delta_pct", "better", "delta_low", "delta_high", "runs", "noise",
                      "baseline_bound", "config_bound", "delta_bound", "bound_note"]
"""The columns of :func:`comparison_table`; ``*_bound`` is each value's kind (:data:`flashpoc.analysis.bounds.KINDS`:
``exact``, ``at_least``, ``at_most``, ``not_reached``, ``missing``), ``delta_pct`` has ``delta``'s kind, and
``bound_note`` says what makes a value a bound."""

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


def value_at_iops(group: pd.DataFrame, column: str, iops: float, unit: str = "IOPS") -> Bound:
    """A column's value where one curve reaches ``iops``, interpolated linearly in IOPS.

    The curve is walked in thread order (repeats averaged) up to the first point at or above
    ``iops``; nothing is extrapolated.

    Args:
        group: the points of one configuration and workload (threads, iops, ``column``).
        column: e.g. ``lat_mean_ms`` (ms) or ``host_cpu_busy_pct`` (%): a measure that does not
            fall as the load rises.
        iops: the IOPS level (> 0).
        unit: the level's unit in words (``NOPM`` for a NOPM curve).

    Returns:
        A :class:`~flashpoc.analysis.bounds.Bound`: exact (measured or interpolated); at most the
        lightest point's value when that point already exceeds ``iops`` (less load, no more
        latency or CPU); :data:`~flashpoc.analysis.bounds.NOT_REACHED` when the curve never reaches
        it; :data:`~flashpoc.analysis.bounds.MISSING` without values of ``column`` on the way.
    """
    if column not in group:
        return Bound(None, MISSING)
    curve = (group.dropna(subset=["iops", column]).groupby("threads", sort=True)[["iops", column]].mean())
    if curve.empty:
        return Bound(None, MISSING)
    previous = None
    for _, row in curve.iterrows():
        y, v = float(row["iops"]), float(row[column])
        if y == iops:
            return Bound(v)
        if y > iops:
            if previous is None:
                return Bound(v, AT_MOST, f"already above {iops:,.0f} {unit} at its lightest load ({y:,.0f} {unit})")
            y0, v0 = previous
            return Bound(v0 + (iops - y0) / (y - y0) * (v - v0))
        previous = (y, v)
    return Bound(None, NOT_REACHED, f"at most {curve['iops'].max():,.0f} {unit} measured")


def measured_bound(value: float | None) -> Bound:
    """A measured value (or none) as a :class:`~flashpoc.analysis.bounds.Bound`."""
    return Bound(value, EXACT if value is not None else MISSING)


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
    ("db_cpu_s_per_s", "DB CPU at equal threads", "s/s", False),
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


def mean_at_threads(group: pd.DataFrame, threads: int, column: str) -> float | None:
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
        ``max IOPS`` (IOPS), ``IOPS at latency`` (IOPS, ``at`` e.g. "1 ms"; sequential and large-block
        I/O: ``MiB/s at latency``, MiB/s), ``mean latency at
        equal IOPS`` (ms), ``write latency at equal IOPS`` (ms, where writes exist), the Oracle
        write waits of :data:`ORACLE_WRITE_WAITS` (ms, SLOB points), ``host CPU
        per 10K IOPS`` (%), ``max MiB/s``, and at equal load (``at`` e.g. "64 threads") the
        :data:`EQUAL_LOAD_MEASURES` both configurations have values of (IOPS, MiB/s and latency,
        in total and, for workloads that both read and write, per direction; host CPU); ``delta`` = config - baseline, ``delta_pct`` in % of the baseline,
        ``better`` names the better configuration, or is :data:`flashpoc.analysis.confidence.NOISE` when the
        difference cannot be told from noise. With repeats on both sides, ``delta_low``..``delta_high``
        is the 95 % Welch interval of the difference of the repeat-wise answers (each repeat's curve
        gives its own max IOPS, IOPS at a latency, value at equal IOPS or threads), ``runs`` the
        repeats used ('3 vs 3'); ``noise`` says whether the difference is within measurement noise
        (:func:`flashpoc.analysis.confidence.noise_verdict`: the interval spans zero, or, without repeats,
        the difference is below ``noise_pct``). A value is a bound where the curve gives only
        one (``*_bound``, ``bound_note``: every point under a latency, a level below the lightest
        load), and its change a bound too; a level a curve never reaches is ``not_reached``, with no
        change. Workloads :func:`comparability` rejects are left out.
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


def comparison_row(where: dict[str, Any], a: Bound, b: Bound, higher_is_better: bool | None, noise_pct: float,
                   interval: Any = None) -> dict[str, Any]:
    """One row of a comparison table (:data:`COMPARISON_COLUMNS`): ``where`` (workload, metric, unit,
    at, baseline, config), the baseline's and the configuration's value as the bounds they are, their
    difference (a bound too: :func:`flashpoc.analysis.bounds.difference`), whether it is noise and
    the better configuration (None where more or less is neither, ``higher_is_better`` None).

    ``interval(delta, delta_pct)``: the 95 % interval of an exact difference from repeats
    (:func:`_noise`); without it the stated point-to-point noise decides. A bound is beyond noise
    when the whole bound is (at least +596 % against a 10 % noise), and only then better or worse."""
    delta, pct = bounds.difference(a, b)
    if delta.exact:
        noise = interval(delta.value, pct.value) if interval else {
            "delta_low": None, "delta_high": None, "runs": None,
            "noise": confidence.noise_verdict(pct.value, None, noise_pct)}
    else:
        beyond = bounds.beyond(pct, noise_pct)
        noise = {"delta_low": None, "delta_high": None, "runs": None,
                 "noise": f"beyond the {noise_pct:g} % point-to-point noise (a bound)" if beyond else None}
    verdict = None if higher_is_better is None else bounds.better(delta, higher_is_better)
    if not delta.exact and not bounds.beyond(pct, noise_pct):
        verdict = None
    better = None if verdict is None else where["config"] if verdict else where["baseline"]
    if higher_is_better is not None and delta.exact and delta.value == 0:
        better = "equal"
    if higher_is_better is not None and confidence.is_noise(noise["noise"]):
        better = confidence.NOISE
    note = "; ".join(f"{where[side]}: {value.why}" for side, value in (("baseline", a), ("config", b)) if value.why)
    return {**where, "baseline_value": a.value, "config_value": b.value, "delta": delta.value, "delta_pct": pct.value,
            **noise, "better": better, "baseline_bound": a.kind, "config_bound": b.kind, "delta_bound": delta.kind,
            "bound_note": note or None}


def _adder(rows: list[dict[str, Any]], workload: str, baseline: str, config: str, base: pd.DataFrame,
           other: pd.DataFrame, noise_pct: float):
    """A function appending one row of :func:`comparison_table` to ``rows`` for ``config`` against ``baseline``."""
    def add(metric: str, unit: str, at: str, a: Bound, b: Bound, higher_is_better: bool, answer: Any = None) -> None:
        where = {"workload": workload, "metric": metric, "unit": unit, "at": at, "baseline": baseline, "config": config}
        rows.append(comparison_row(where, a, b, higher_is_better, noise_pct,
                                   lambda delta, pct: _noise(base, other, answer, delta, pct, noise_pct)))
    return add


def _at_iops(column: str, level: float, per: float = 1.0) -> Any:
    """The repeat-wise answer: ``column`` of one curve at ``level`` IOPS, divided by ``per`` (None
    where the curve gives only a bound)."""
    def answer(curve: pd.DataFrame) -> float | None:
        found = _exact(value_at_iops(curve, column, level))
        return None if found is None else found / per
    return answer


def _add_curve_metrics(add, group: pd.DataFrame, base: pd.DataFrame, other: pd.DataFrame,
                       latencies: Sequence[float], iops_levels: Sequence[float]) -> None:
    """The rows of :func:`comparison_table` read from the curves: max IOPS and MiB/s, IOPS (and, for
    sequential and large-block I/O, MiB/s) at each latency, and latencies and host CPU at equal IOPS."""
    means = [confidence.mean_rows(g) for g in (base, other)]  # repeats: each point's mean, never its best
    add("max IOPS", "IOPS", "", *[measured_bound(float(m["iops"].max())) for m in means], True, confidence.max_iops)
    mibps = "bw_mibps" in group and base["bw_mibps"].notna().any() and other["bw_mibps"].notna().any()
    if mibps:
        add("max MiB/s", "MiB/s", "", *[measured_bound(float(m["bw_mibps"].max())) for m in means], True,
            lambda curve: curve["bw_mibps"].max())
    throughput = mibps and workload_kinds(group).get(str(group["workload"].iloc[0])) == KIND_THROUGHPUT
    metric, unit, rate = ("MiB/s at latency", "MiB/s", "bw_mibps") if throughput else ("IOPS at latency", "IOPS", "iops")
    for latency in latencies:  # sequential and large-block I/O in MiB/s, small-block random I/O in IOPS
        add(metric, unit, f"{latency:g} ms", *[rate_at_latency(g, latency, rate) for g in (base, other)], True,
            lambda curve, latency=latency: _exact(rate_at_latency(curve, latency, rate)))
    for level in equal_iops_levels(*means, iops_levels):
        _add_at_iops(add, base, other, level)


def rate_at_latency(curve: pd.DataFrame, latency: float, rate: str = "iops") -> Bound:
    """The most ``rate`` (``iops``, ``bw_mibps``) one curve gives within ``latency`` ms
    (:func:`flashpoc.analysis.iops_at_latency`: a value or a bound)."""
    rows = curve.dropna(subset=[rate, "lat_mean_ms"]).sort_values("threads")
    return analysis.iops_at_latency(to_points(rows.to_dict("records"), rate=rate), latency)


def _exact(found: Bound) -> float | None:
    """A repeat-wise answer: the value when it is one (an interval of bounds would say nothing)."""
    return found.value if found.exact else None


def _add_at_iops(add, base: pd.DataFrame, other: pd.DataFrame, level: float) -> None:
    """The rows of :func:`comparison_table` at one IOPS level: mean and write latency, the Oracle
    write waits and host CPU per 10K IOPS, each as the value or bound each curve gives there."""
    at = _iops_text(level)
    add("mean latency at equal IOPS", "ms", at, value_at_iops(base, "lat_mean_ms", level),
        value_at_iops(other, "lat_mean_ms", level), False, _at_iops("lat_mean_ms", level))
    if has_writes(base) and has_writes(other):
        add("write latency at equal IOPS", "ms", at, value_at_iops(base, "write_lat_mean_ms", level),
            value_at_iops(other, "write_lat_mean_ms", level), False, _at_iops("write_lat_mean_ms", level))
    for column, metric in ORACLE_WRITE_WAITS.items():
        waits = [value_at_iops(g, column, level) for g in (base, other)]
        if any(w.known for w in waits):
            add(metric, "ms", at, *waits, False, _at_iops(column, level))
    cpu = [value_at_iops(g, "host_cpu_busy_pct", level) for g in (base, other)]
    if any(v.known for v in cpu):
        add("host CPU per 10K IOPS", "%", at, *[v.scaled(1 / (level / 1e4)) for v in cpu],
            False, _at_iops("host_cpu_busy_pct", level, level / 1e4))


def load_text(group: pd.DataFrame, threads: int, unit: str = "threads") -> str:
    """The load at ``threads`` in words: "64 threads"; for SLOB, whose threads are per schema, the
    sessions: "256 sessions (256 schemas x 1 thread)"."""
    if "sessions" in group and "schemas" in group:
        at = group[group["threads"].astype(int) == threads]
        sessions, schemas = (pd.to_numeric(at[c], errors="coerce").dropna() for c in ("sessions", "schemas"))
        if not sessions.empty and not schemas.empty:
            return (f"{threads_text(int(sessions.iloc[0]), 'sessions')} ({int(schemas.iloc[0]):,} schemas x "
                    f"{threads_text(threads, 'threads')})")
    return threads_text(threads, unit)


def _add_equal_load(add, group: pd.DataFrame, base: pd.DataFrame, other: pd.DataFrame, threads: Sequence[int]) -> None:
    """The rows of :func:`comparison_table` at equal load: each of :data:`EQUAL_LOAD_MEASURES` at each thread count."""
    mixed = all(c in group and (group[c].fillna(0) > 0).any() for c in ("read_iops", "write_iops"))
    for count in equal_threads(base, other, threads):
        for column, metric, unit, higher in EQUAL_LOAD_MEASURES:
            if column.startswith(("read_", "write_")) and not mixed:  # one direction: the total says it
                continue
            a, b = mean_at_threads(base, count, column), mean_at_threads(other, count, column)
            if a is not None and b is not None and (a or b):  # a direction neither did is left out
                add(metric, unit, load_text(base, count), measured_bound(a), measured_bound(b), higher,
                    lambda curve, count=count, column=column: mean_at_threads(curve, count, column))


def _noise(base: pd.DataFrame, other: pd.DataFrame, answer: Any, delta: float, pct: float | None,
           noise_pct: float) -> dict[str, Any]:
    """The interval of a difference from the repeat-wise answers of both curves (Welch), the
    repeats it used, and whether the difference is noise (:func:`flashpoc.analysis.confidence.noise_verdict`)."""
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


