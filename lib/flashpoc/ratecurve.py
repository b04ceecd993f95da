"""The rate-curve sweep (``sweep.plan: rate-curve``): response time against requested I/O rates.

Array vendors draw the hockey stick from rate-controlled points: first the uncontrolled maximum
of a workload at the sweep's thread count, then fixed fractions of it (``sweep.curve_pct``,
default 10, 50, 70, 80, 90, 100 %), each asked of the same threads, up to the first step whose
mean latency passes ``sweep.stop_ms``. Near the knee this is cleaner than a thread sweep, and it
answers the SLO question ("how many IOPS at 1 ms") directly. Each step is a stored sweep point
whose id ends ``_c<pct>``, with ``curve_pct`` and ``iorate_requested`` (the IOPS asked for) in its
row, as vdbench's own ``iorate=curve`` steps (an engine that has one runs the curve in its own
sweep, :meth:`flashpoc.engines.base.Engine.measure_sweep`); the report charts them as latency
against IOPS per configuration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .engines import get_engine

if TYPE_CHECKING:
    from .session import Workbench


def measure_rate_curves(wb: Workbench, plan: dict[str, list[int]], bar, runtime_s: int) -> list[dict[str, Any]]:
    """For each workload and thread count of ``plan``: its uncontrolled maximum, then each rate
    of ``sweep.curve_pct`` of it (:meth:`flashpoc.engines.base.Engine.measure_rate_step`), until a
    step's mean latency passes ``sweep.stop_ms``; every row, in order."""
    from .session import _measure

    cfg = wb.cfg
    engine = get_engine(cfg.engine)
    rows: list[dict[str, Any]] = []
    for name, threads_list in plan.items():
        workload = cfg.workload(name)
        for threads in threads_list:
            bar.begin(name, threads)
            full = _measure(wb, "sweep", workload, threads, runtime_s)
            rows.append(full)
            bar.point(full)
            for pct in cfg.sweep.rate_steps:
                bar.begin(name, threads)
                row = engine.measure_rate_step(wb, workload, threads, runtime_s, pct, full["iops"] * pct / 100)
                rows.append(row)
                bar.point(row)
                if cfg.sweep.stop_ms is not None and (row.get("lat_mean_ms") or 0) > cfg.sweep.stop_ms:
                    break
    return rows
