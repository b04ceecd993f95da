"""Compare configurations at equal latency, equal IOPS and equal load (pure: DataFrames in, DataFrames out):
the table in :mod:`~flashpoc.analysis.compare.table`, its sentences and display in :mod:`~flashpoc.analysis.compare.words`.

A POC ends with a decision between configurations (A-series TLC vs C-series QLC, iSCSI vs
NVMe-oF, kernel NFS vs dNFS). The input is the sweep points of several campaigns in one table
with a ``config`` column (the campaign's label); the first configuration is the baseline.

Every number is read off the measured curves, never extrapolated:

* **IOPS at equal latency** (the SLO and the chosen latencies):
  :func:`flashpoc.analysis.iops_at_latency`, interpolated in latency between the two measured
  points around it; at least the most measured when every point is under it.
* **Latency at equal IOPS**: :func:`value_at_iops`, walking the curve in thread order up to the
  first point at or above the IOPS and interpolating linearly in IOPS; an IOPS level below the
  lightest measured load gives at most the lightest point's latency, one above the highest none.

A value outside a curve's measured range is a bound, and so is its change
(:mod:`flashpoc.analysis.bounds`): "at least 85,427 IOPS" against 12,267 is a change of at least
+596 %, in the table (``*_bound`` columns), its display and its sentences alike. Across
workloads, the change of a measure is the mean of the per-workload changes
(:func:`across_workloads`).
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

# Every name keeps its old path (flashpoc.analysis.compare.X): the package re-exports its modules' names.
from flashpoc.analysis.compare.table import (COMPARISON_COLUMNS, DEFINING_COLUMNS, EQUAL_LOAD_MEASURES, NOISE_PCT,
                                             ORACLE_WRITE_WAITS, WORKING_SET_TOLERANCE_PCT, measured_bound,
                                             mean_at_threads, comparability, comparison_row, comparison_table, configs,
                                             equal_iops_levels, equal_threads, has_writes, load_text, rate_at_latency,
                                             value_at_iops)
from flashpoc.analysis.compare.words import (ACROSS, across_workloads, change_cell, comparison_display, comparison_text,
                                             measure_label, row_bounds)
