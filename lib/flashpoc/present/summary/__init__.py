"""Report tables from sweep rows (pure: DataFrame in, DataFrame out)."""

from __future__ import annotations

# Every name keeps its old path (flashpoc.present.summary.X): the package re-exports its modules' names.
from flashpoc.present.summary.display import (FRAME_COLUMNS, POINT_COLUMNS, _RW_TEXT, _block_text, _checks_cell, _ended_by, _int_or_none,
                      _knee_cell, _line, _pair, _point_caveats, _slo_cell, distribution_display, frame_display,
                      hosts_display, io_text, points_display, results_table, slo_words, steadiness_display)
from flashpoc.present.summary.frames import (AT_MAX_IF_PRESENT, DISTRIBUTION_COLUMNS, KIND_RANDOM, KIND_THROUGHPUT, MIN_VERDICT_INTERVALS,
                     SEQUENTIAL_RW, SMALL_BLOCK_BYTES, STEADY_COLUMNS, _ended_by_fio, _series, _where,
                     curve_points, detail_points, distribution_table, distribution_text, io_kind, judged_points, knees,
                     read_latency_shares, slo_bound, snia_rule_text, steadiness_table, steadiness_text, summary_table,
                     unsteady_summary, verdict, without_verdict, workload_kinds)
