"""Parse Oracle AWR reports (text or HTML) into a dict of tidy rows.

Pure functions: text in, dicts/rows out. Nothing here prints or exits. Each section is read
on its own: one that is absent or cannot be understood is ``None`` (``[]`` for histograms)
and named in the result's ``sections`` (``read``, ``absent``, ``not_understood`` with the
reason), so one odd section never loses the report; input that is not an AWR report, is cut
(no ``End of Report``) or has no readable section at all raises
:class:`flashpoc.core.errors.ParseError` in one line. The one helper that touches the file system
is :func:`read_awr_file` (gunzip + decode).

Versions differ in wording, not in meaning: columns are found by what they hold
(:func:`column_meaning`: ``Avg wait``, ``Avg Wait (ms)``, ``Wait Avg(ms)``, ``Avg Wt(ms)`` are
all the average wait) and a bare number takes the unit its header names
(:func:`header_unit`). Key events are the names of :data:`KEY_EVENTS` in their wait class
(:data:`KEY_EVENT_CLASSES`), or an event that stands for one on another platform
(:data:`EQUIVALENT_EVENTS`: Exadata's ``cell single block physical read`` for ``db file
sequential read``); ``key_event_names`` says which event each was read from.

HTML is indexed by regular expressions (table start/end, ``summary`` attribute, the heading
above) and a table is cut into cells only when a section reads it (html.parser spent most of
the parse on the hundreds of tables no section reads). A cell counts only when closed by its
``</td>``; a re-saved report with doubled quotes (``summary=""..""``) is undone first.

Both renderings are first reduced to the same shape -- a titled table with a header (one
string per column) and rows (one string per cell, as printed) -- and every section is then
read by its column names, so the text and HTML renderings of one report give the same numbers.

A damaged report loses numbers, never changes one: an HTML row short of a cell is refused (its
numbers would move a column), and what a report prints twice is cross-checked, both figures lost
(named in ``not_understood``) where they disagree: the Top 10 events' waits and the Foreground Wait
Events' (:func:`_top_events_unlike`), the Load Profile rows every report prints
(:data:`_LOAD_PROFILE_ROWS`), a tablespace's I/O and its files' (both tables), a file's single-block
reads and its reads, a RAC global report's transactions and its instances' (:func:`transactions_checked`,
Statspack's with its Load Profile's), an event's histogram rows and the section its waits reach
(:func:`_histogram_gap`); a wait event name with a byte no event name has is a damaged row
(:data:`_EVENT_NAME_RE`), and a section every report prints not found is not understood, not absent.

* Text: a table is located under its section title (a form feed before the title, as 11.2 spools
  each page, is dropped); its columns are the runs of ``-`` (or
  ``~``) of the separator line under the header; a cell is the text between the end of the
  previous column and the end of its own column (numbers are right-aligned). Event names
  are truncated to the column width in text (e.g. ``gc current grant read-most``); the key
  events are short enough to be complete.
* HTML: tables come with a ``summary`` attribute and/or follow an ``<h3>`` section title;
  SQL*Plus prompt text before ``<html>``, uppercase tags and CRLF line ends are accepted.
* A text report printed by a SQL*Plus query (``SELECT * FROM TABLE(AWR_REPORT_TEXT(...))``) has
  a blank line and the column heading ``OUTPUT`` atop each page, inside tables: both are dropped.

Units follow the key names: ``*_us`` microseconds, ``*_s`` seconds, ``*_min`` minutes,
``*_pct`` percent, ``*_mb`` MiB (AWR's ``M``/``G`` data suffixes are multiples of 1024).
Latency cells carry their own unit (``350.19us``, ``10.37ms``, ``52.86 s``, ``.00ns``; RAC
reports truncate ``ms`` to ``m`` in narrow columns: ``3638.43m``) and are converted to
microseconds; a column headed ``(ms)`` without units in the cells is read as milliseconds.
Abbreviated counts (``12.2K``, ``10.2M``, ``2.8E+04``) are expanded by powers of 1000 and
the printed text is kept next to the number.

Coverage, as seen in the fixtures (11.2.0.3, 11.2.0.4 (HTML and text), 12.1.0.2, 12.2.0.1, 18c
and 19c, single instance, RAC instance and global, container databases (root and PDB reports,
HTML and text), Exadata; no 21c or 23ai report was found):

* instance reports (single instance or one RAC instance), text and HTML: header, load
  profile, top foreground events, key events, event histograms, IOStat by function, host
  CPU, tablespace/file IO (:func:`_io_stats`: reads, writes, buffer waits and their averages
  per tablespace and per file, and their container in a CDB; ``[]`` when the report prints "No
  data exists", as most 12.2, 18c and 19c reports here do; a text report prints each row on two
  lines, names then figures; 11.2.0.4 prints the tablespace table's cells in another order than
  its header, read in that order where they add up to the files').
* RAC global reports (``WORKLOAD REPOSITORY REPORT (RAC)``), text and HTML: header
  (database summary + instance list), key events from the ``(Global)`` foreground /
  background wait events (cluster-wide average), key-event histograms from ``Wait Event
  Histogram (Global)``, per-instance host CPU (``host_cpu_by_instance``), per-instance
  ``system_statistics_per_second`` and ``time_model_by_instance`` (``Time Model``: DB time,
  DB CPU, bg CPU ... in seconds), and the cluster-wide ``System Statistics (Global)``
  (``system_statistics_global``: every statistic's Total, per Second and per Trans; the text
  report prints it on several pages with the same title, which are merged; large values are
  printed like ``4.5200871E+08``; the HTML prints two decimals where the text prints one;
  runs of spaces in statistic names are collapsed, as in HTML).
  Not parsed for RAC global: load profile (there is none),
  top events, IOStat, tablespace/file IO, the per-instance ``Top Timed Events`` breakdown,
  global cache / interconnect sections.
* Both kinds: ``key_event_waits`` -- the ``Waits`` count of the same wait-event rows the
  ``key_events`` averages come from (foreground rows for foreground key events, background
  rows for background ones).
"""

from __future__ import annotations

# The reader by concern (reader, instance, rac), on the parts it shares with Statspack's (flashpoc.oracle.reportparse);
# every public name the AWR reader had is importable from here (the engines, the CLI and the layers above use them).
from flashpoc.oracle.awr.reader import decode_report, detect_awr_format, parse_awr, read_awr_file
from flashpoc.oracle.reportparse import (EQUIVALENT_EVENTS, IO_STATS_COLUMNS, KEY_EVENTS, KEY_EVENTS_BACKGROUND,
                                         KEY_EVENTS_FOREGROUND, KEY_EVENT_CLASSES, STATSPACK_TITLE, TRUNCATED,
                                         WAIT_CLASSES, column_meaning, header_unit, is_truncated, key_event,
                                         parse_count, parse_latency_us, transactions_checked)
