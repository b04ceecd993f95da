"""The rate-curve sweep (``sweep.plan: rate-curve``): response time against requested I/O rates.

Array vendors draw the hockey stick from rate-controlled points: first the uncontrolled maximum
of a workload at the sweep's thread count, then fixed fractions of it (``sweep.curve_pct``,
default 10, 50, 70, 80, 90, 100 %), each asked of the same threads, up to the first step whose
mean latency passes ``sweep.stop_ms``. Near the knee this is cleaner than a thread sweep, and it
answers the SLO question ("how many IOPS at 1 ms") directly. Each step is a stored sweep point
whose id ends ``_c<pct>``, with ``curve_pct`` and ``iorate_requested`` (the IOPS asked for) in its
row, as vdbench's own ``iorate=curve`` steps (an engine that has one runs the curve in its own
sweep: its :meth:`flashpoc.engines.base.Engine.phase_rate_steps` are none); the report charts them as latency
against IOPS per configuration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flashpoc.core.records import PointSpec
from flashpoc.engines import loop

if TYPE_CHECKING:
    from flashpoc.hosts.workbench import Workbench


def measure_rate_curves(wb: Workbench, plan: dict[str, list[int]], bar, runtime_s: int) -> list[dict[str, Any]]:
    """For each workload and thread count of ``plan``: its uncontrolled maximum, then each rate
    of ``sweep.curve_pct`` of it (points of the loop whose spec has ``rate``, :class:`flashpoc.core.records.PointSpec`), until a
    step's mean latency passes ``sweep.stop_ms``; every row, in order."""
    from flashpoc.engines.loop import point_spec

    cfg = wb.cfg
    rows: list[dict[str, Any]] = []
    for name, threads_list in plan.items():
        workload = cfg.workload(name)
        for threads in threads_list:
            full = loop.measure_one(wb, point_spec(cfg, "sweep", workload, threads, runtime_s), bar)
            rows.append(full)
            for pct in wb.engine.phase_rate_steps(cfg):
                step = PointSpec("sweep", workload, threads, runtime_s, rate=(pct, full["iops"] * pct / 100))
                rows.append(loop.measure_one(wb, step, bar))
                if cfg.sweep.stop_ms is not None and (rows[-1].get("lat_mean_ms") or 0) > cfg.sweep.stop_ms:
                    break
    return rows
