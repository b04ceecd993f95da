"""What the AWR and Statspack readers share (:mod:`flashpoc.oracle.awr`, :mod:`flashpoc.oracle.statspack`): a
report's cells as numbers (:mod:`.values`), the report reduced to titled tables from its text or HTML rendering
(:mod:`.tables`), and the readers of the sections an instance report prints alike in both: the header's lines,
Load Profile, host CPU and truncation (:mod:`.sections`), wait events and their histograms (:mod:`.events`),
I/O by function, tablespace and file (:mod:`.iostats`)."""

from __future__ import annotations

# The shared parts by concern; their public names are importable from here.
from flashpoc.oracle.reportparse.values import parse_count, parse_latency_us
from flashpoc.oracle.reportparse.tables import column_meaning, header_unit
from flashpoc.oracle.reportparse.sections import STATSPACK_TITLE, TRUNCATED, is_truncated, transactions_checked
from flashpoc.oracle.reportparse.events import (EQUIVALENT_EVENTS, KEY_EVENTS, KEY_EVENTS_BACKGROUND,
                                                KEY_EVENTS_FOREGROUND, KEY_EVENT_CLASSES, WAIT_CLASSES, key_event)
from flashpoc.oracle.reportparse.iostats import IO_STATS_COLUMNS
