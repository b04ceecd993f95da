"""HammerDB configurations compared (pure: DataFrames in, DataFrames out): at equal virtual users
and at equal NOPM, with the deltas a storage POC's OLTP table shows.

The input is the sweep points of several campaigns in one table with a ``config`` column (the
campaign's label, the baseline first), one row per timed run. Two ways to line them up:

* **At equal virtual users** (the same load offered): each measure at the user counts both
  configurations ran (:func:`flashpoc.analysis.compare.equal_threads`: the highest both ran and the one
  nearest half of it), repeats averaged.
* **At equal NOPM** (the same work done): each measure read off the NOPM curve, walked in
  virtual-user order up to the first point at or above the NOPM level and interpolated linearly
  in NOPM (:func:`flashpoc.analysis.compare.value_at_iops` on the NOPM curve); a level a curve already
  exceeds at its lightest load gives at most that run's value (a bound, and its change a bound
  too), a level it does not reach none. The levels are half and all of
  the lower of the two highest NOPM (:func:`flashpoc.analysis.compare.equal_iops_levels`).

The measures (:data:`MEASURES`): a fixed work's test completion time (at equal users: its change
is the improvement, shorter being better), NOPM and TPM (at equal users), the mean transaction completion
time and NEWORD p95 (HammerDB's time profile), the load host's CPU and, where the rows carry
AWR's (Oracle), the database host's CPU, read and write IOPS, MiB/s and the read and redo write
latencies. A measure neither configuration has is left out; one only one has shows "–".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from flashpoc.core import tables
from flashpoc.analysis.bounds import MISSING, Bound
from flashpoc.analysis.compare import comparison_display as _display
from flashpoc.analysis.compare import (COMPARISON_COLUMNS, NOISE_PCT, change_cell, comparison_row, configs,
                        equal_iops_levels, equal_threads, measured_bound, mean_at_threads, row_bounds, value_at_iops)
from flashpoc.core.tables import threads_text

#: (column, measure, unit, higher is better; None: neither, e.g. I/O done at equal NOPM)
MEASURES: tuple[tuple[str, str, str, bool | None], ...] = (
    ("completion_s", "Test completion time (fixed work)", "s", False),
    ("nopm", "NOPM", "new orders/min", True),
    ("tpm", "TPM", "transactions/min", True),
    ("txn_mean_ms", "Mean transaction completion time", "ms", False),
    ("neword_p95_ms", "NEWORD p95", "ms", False),
    ("host_cpu_busy_pct", "Load host CPU", "%", False),
    ("db_host_cpu_busy_pct", "Database host CPU (AWR)", "%", False),
    ("read_iops", "Read IOPS (AWR)", "IOPS", None),
    ("write_iops", "Write IOPS (AWR)", "IOPS", None),
    ("read_mibps", "Read MiB/s (AWR)", "MiB/s", None),
    ("write_mibps", "Write MiB/s (AWR)", "MiB/s", None),
    ("db_file_sequential_read_avg_wait_us", "db file sequential read (AWR)", "us", False),
    ("log_file_parallel_write_avg_wait_us", "log file parallel write (AWR)", "us", False),
)
#: the measures compared at equal NOPM (NOPM itself is the level; more or fewer TPM for the same new
#: orders is neither better nor worse)
AT_EQUAL_NOPM = tuple((c, m, u, None if c == "tpm" else h) for c, m, u, h in MEASURES
                      if c not in ("nopm", "completion_s"))
_FORMATS = {"s": lambda v: tables.pct(v, 1), "new orders/min": tables.count, "transactions/min": tables.count, "IOPS": tables.count,
            "ms": tables.ms, "us": tables.count, "%": tables.pct, "MiB/s": tables.mibps}


def value_at_nopm(group: pd.DataFrame, column: str, nopm: float) -> Bound:
    """``column`` where one configuration's NOPM curve reaches ``nopm`` (its points, in
    virtual-user order, interpolated in NOPM; :func:`flashpoc.analysis.compare.value_at_iops`): a value, or
    at most the lightest run's where that run already did more, or not reached."""
    if column not in group:
        return Bound(None, MISSING)
    curve = pd.DataFrame({"threads": group["threads"], "iops": group["nopm"],
                          "value": pd.to_numeric(group[column], errors="coerce")})
    return value_at_iops(curve, "value", nopm, unit="NOPM")


def comparison_table(points: pd.DataFrame, *, users: Sequence[int] = (), nopm: Sequence[float] = (),
                     noise_pct: float = NOISE_PCT) -> pd.DataFrame:
    """Every configuration against the baseline (the first), at equal virtual users and at equal NOPM.

    Args:
        points: the sweep points (``config``, ``threads`` = virtual users, ``nopm`` and the
            :data:`MEASURES` columns they have).
        users: virtual-user counts to compare at (default :func:`flashpoc.analysis.compare.equal_threads`).
        nopm: NOPM levels to compare at (default :func:`flashpoc.analysis.compare.equal_iops_levels` of the NOPM).

    Returns:
        One row per configuration, place and measure, in :data:`flashpoc.analysis.compare.COMPARISON_COLUMNS`
        (``workload`` tprocc, ``metric`` the measure, ``at`` e.g. ``"4 virtual users"`` or
        ``"9,300 NOPM"``); ``delta`` = config - baseline, ``delta_pct`` in % of the baseline,
        ``better`` the better configuration (None where more or less is neither).
    """
    names = configs(points)
    rows: list[dict[str, Any]] = []
    if len(names) < 2:
        return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)
    baseline = names[0]
    base = points[points["config"].astype(str) == baseline]
    have = {c for c, *_ in MEASURES if c in points and pd.to_numeric(points[c], errors="coerce").notna().any()}
    for config in names[1:]:
        other = points[points["config"].astype(str) == config]

        def add(metric: str, unit: str, at: str, a: Bound, b: Bound, higher: bool | None) -> None:
            if not a.known and not b.known:  # neither curve says anything at this level: a row would say nothing
                return
            rows.append(comparison_row({"workload": "tprocc", "metric": metric, "unit": unit, "at": at,
                                        "baseline": baseline, "config": config}, a, b, higher, noise_pct))

        for count in equal_threads(base, other, users):
            at = threads_text(count, "virtual users")
            for column, metric, unit, higher in (m for m in MEASURES if m[0] in have):
                add(metric, unit, at, measured_bound(mean_at_threads(base, count, column)),
                    measured_bound(mean_at_threads(other, count, column)), higher)
        levels = equal_iops_levels(base.assign(iops=base["nopm"]), other.assign(iops=other["nopm"]), nopm)
        for level in levels:
            at = f"{level:,.0f} NOPM"
            for column, metric, unit, higher in (m for m in AT_EQUAL_NOPM if m[0] in have):
                add(metric, unit, at, value_at_nopm(base, column, level), value_at_nopm(other, column, level), higher)
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


def comparison_display(table: pd.DataFrame) -> tables.Table:
    """:func:`comparison_table` to read (:func:`flashpoc.analysis.compare.comparison_display`): one row per
    place (equal users, equal NOPM) and measure, the baseline's value, then each other configuration's
    and its change ("better" or "worse" where more or less is better). A bound shows as one
    ("≤ 10.603"); a level a curve does not reach shows "not reached"."""
    return _display(table, place=lambda r: {"At": r["at"], "Measure": f"{r['metric']} ({r['unit']})"},
                    formats=_FORMATS, note=(
        "At equal NOPM the values are read off each configuration's NOPM curve, "
        "interpolated between the two runs around the level, never extrapolated: a level a curve already exceeds "
        "at its fewest virtual users gives at most that run's value ('≤'), and its change is a bound too; a level "
        "it does not reach shows 'not reached'. Transaction completion time: the mean over every transaction of "
        "HammerDB's time profile. A change smaller than the stated point-to-point noise (report.noise_pct) is "
        "within measurement noise: neither better nor worse. Every value, with its kind of bound: comparison.csv."))
