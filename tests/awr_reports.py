"""The AWR and Statspack reports of tests/data parsed once per test session (the HTML ones are up to
2 MB): every parser test module reads them through :func:`parsed`."""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path

from flashpoc.oracle.awr import parse_awr, read_awr_file


@lru_cache(maxsize=None)
def _parsed(path: Path) -> dict:
    return parse_awr(read_awr_file(path))


def parsed(path: Path) -> dict:
    """``path``'s report as :func:`flashpoc.oracle.awr.parse_awr` reads it, parsed once; a deep copy
    the test may change."""
    return copy.deepcopy(_parsed(Path(path)))
