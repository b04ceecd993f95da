"""Pure analysis of probe and sweep points: saturation, knee, IOPS at a latency SLO, Little's law.

Numbers in, numbers and frozen dataclasses out: no I/O, no printing. IOPS are I/O operations per
second, latencies are in milliseconds (ms), thread counts are the engine's threads (fio numjobs,
vdbench threads).

The package's modules: :mod:`~flashpoc.analysis.point` (the measured :class:`Point` and the checks
of the numbers an analysis is given), :mod:`~flashpoc.analysis.fit` (the isotonic, concave and S
curve fits, the noise, the fall past the peak, the bootstrap), :mod:`~flashpoc.analysis.saturation` (where
IOPS stop rising: :func:`find_saturation`, :func:`plateau_share`, :func:`reach_threads`; the probe's
answer in words, :func:`probe_sentence`),
:mod:`~flashpoc.analysis.curve` (the knee, IOPS at a latency SLO, Little's law),
:mod:`~flashpoc.analysis.bounds` (a value or a bound: :class:`Bound`),
:mod:`~flashpoc.analysis.adaptive` (the thread counts a probe measures: :class:`AdaptiveProbe`) and
:mod:`~flashpoc.analysis.steady` (steady state of a point's intervals, SNIA's window).
"""

from __future__ import annotations

# Every name keeps its old path (flashpoc.analysis.X): the package re-exports its modules' names.
from flashpoc.analysis.bounds import (AT_LEAST, AT_MOST, EXACT, KINDS, MISSING, NOT_REACHED, Bound, beyond, better,
                                      difference, of)
from flashpoc.analysis.adaptive import MAX_REFINE_POINTS, PLATEAU_CONFIRMATIONS, AdaptiveProbe, linear_probe_threads, start_threads
from flashpoc.analysis.curve import find_knee, iops_at_latency, knee_interval, littles_law
from flashpoc.analysis.fit import FALL_SHARE, LACK_OF_FIT_ALPHA, MIN_DISTINCT_THREADS
from flashpoc.analysis.point import Point
from flashpoc.analysis.saturation import (REACH_SHARE, Saturation, fall_text, find_saturation, plateau_share,
                                          probe_sentence, reach_threads)
from flashpoc.analysis.steady import (SNIA_MAX_DATA_EXCURSION_PCT, SNIA_MAX_SLOPE_EXCURSION_PCT, SNIA_ROUNDS, STEADY_MAX_CV_PCT,
                     STEADY_MAX_DRIFT_PCT, interval_steadiness, snia_steady_state)
