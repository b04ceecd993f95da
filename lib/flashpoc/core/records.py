"""Records every layer shares and no layer owns (pure, imports nothing of flashpoc): the families
of the row's columns that engines of different kinds fill alike.
"""

from __future__ import annotations

SHARE_LIMITS_US: dict[str, int] = {"512us": 512, "1ms": 1000, "2ms": 2000, "4ms": 4000}
"""Latency limits (us) of the ``clat_under_<limit>_pct`` shares (fio from its JSON+ bins, vdbench
from its histograms) and of SLOB's ``db_file_sequential_read_under_<limit>_pct`` columns."""
