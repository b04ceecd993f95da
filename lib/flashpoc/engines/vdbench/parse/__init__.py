"""Parse vdbench output directories (totals, summary, flatfile, histograms) into tidy rows.

Pure functions: text in, rows (dicts) out. The only file reading is :func:`read_output_dir`
(and :func:`parse_vdbench_dir`, which calls it); every problem with the input raises
:class:`flashpoc.core.errors.ParseError` naming the file and what was expected.

Units follow the key names: ``iops`` (I/O per second), ``mb_per_s`` (vdbench MB/s, where
MB = 1024**2 bytes), ``bytes_per_io``, ``*_ms`` (milliseconds), ``*_pct`` (percent),
``*_us`` (microseconds, histogram bounds), ``elapsed_s``/``warmup_s`` (seconds),
``lunsize_gb`` (vdbench GB = 1024**3 bytes).

What the files look like (checked on real outputs of vdbench 5.04.01, 5.04.06 and 5.04.07):

* Every report (totals.html, summary.html, the per-host ``hd1.html`` / per-slave
  ``hd1-0.html`` reports) is HTML around a ``<pre>`` block. Each run starts with a line
  ``<time> Starting RD=<name>; I/O rate: Uncontrolled MAX; elapsed=10; For loops: threads=8``
  (file-system runs: ``Starting RD=rd1; elapsed=20; fwdrate=max. For loops: None``).
* The column header is two lines: a localized date (never used), ``interval``, then column
  names stacked over two lines (``i/o`` over ``rate``...). File-system (fsd/fwd) reports
  use dotted group labels over several columns (``.ReqstdOps...`` over ``rate resp``).
  Both header lines end at the same column, so the labels are matched to the columns by
  position from the right. totals.html prints the header once, after the first run's start
  line (5.04.07 prints it again every ~15 runs); summary.html every 30 lines. 5.04.07 SD
  reports have 15 columns (``read max`` and ``write max`` instead of ``resp max``).
* An ``avg_2-10`` line closes each run; file-system reports add ``std_`` and ``max_`` lines
  with blank fields, which are matched to their columns by position.
* vdbench 5.04.06 labels the average ``avg_2-N`` but its numbers are the mean of intervals
  1..N (interval 1 included); 5.04.01 and 5.04.07 average 2..N as labelled. The parser
  reports the label as printed (``interval_start``, ``interval_end``).

Runs are told apart by ``run_index`` (0-based order of the ``Starting RD`` lines, the same in
every report of a directory); the loop values come from the ``For loops:`` text. Dates and
times of day are localized or meaningless across files and are never used as keys.

A text whose last line has no line end is taken as cut off and refused: its last number
may be cut short. A cut exactly at a line end parses to the rows before the cut; only
:func:`parse_output_dir`, which has the other files, can tell such a cut.

Damage is refused rather than read as another number: values are unsigned and without
exponent, tags are blanked (not removed, which would join a number's halves), an SD header
label that is not vdbench's, a line with numbers that is neither data nor header, and an
unknown histogram section are errors. :func:`parse_output_dir` then checks the files against
each other (every number that vdbench prints twice, every run that each file lists), so that
a damaged or cut output set is refused, naming the file and what disagrees, or gives the
undamaged numbers: never another number, never a run dropped unsaid.
"""

from __future__ import annotations

# The parser by concern; every public name is importable from here (the engine and the layers above use it).
from flashpoc.engines.vdbench.parse.keys import (FLATFILE_DUPLICATES, FLATFILE_NAMES, FLATFILE_TEXT_COLUMNS,
                                                 HISTOGRAM_KEYS, HISTOGRAM_SECTIONS, LOOP_KEYS, RUN_KEYS,
                                                 SD_HEADER_NAMES, SD_METRIC_KEYS, SUMMARY_KEYS, TOTALS_KEYS)
from flashpoc.engines.vdbench.parse.files import (OPENING_LINE, READ_FILES, STORED_PREFIX, WRITTEN, missing_files,
                                                  open_modes, read_output_dir, slave_errors, stored_output_files,
                                                  vdbench_failure)
from flashpoc.engines.vdbench.parse.tables import (flatfile_column_key, parse_flatfile, parse_summary, parse_totals,
                                                   report_column_key)
from flashpoc.engines.vdbench.parse.histogram import histogram_shares, parse_histogram
from flashpoc.engines.vdbench.parse.crosscheck import FLATFILE_TWINS
from flashpoc.engines.vdbench.parse.rows import (parse_output_dir, parse_vdbench_dir, runs_without_histogram,
                                                 vdbench_rows)
