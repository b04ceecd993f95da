"""The working set against the array's cache (pure): the POC guides want it at least
:data:`WORKING_SET_FACTOR` times the cache, so that reads come from flash, not from the cache;
with no cache size given, at least :data:`FALLBACK_MIN_BYTES` (their fallback). One verdict for
every engine: the check's row and the report's conditions say it in the same words."""

from __future__ import annotations

from typing import Any

from flashpoc.params import parse_size
from flashpoc.core.tables import size as _size

#: the POC guides: the working set should be at least this many times the array's cache
WORKING_SET_FACTOR = 10
#: the guides' fallback when the array's cache size is not known: a working set of at least 1 TB
FALLBACK_MIN_BYTES = 10**12

#: the check's row name
CHECK_NAME = "working set vs array cache"


def judge_working_set(working_set_bytes: int | float | None, array_cache: str | None,
                      unsized: list[str] = ()) -> dict[str, Any]:
    """The working set's verdict against the array cache (``array_cache``: the parameter, e.g.
    '512g', or None).

    Returns:
        ``{"working_set_bytes", "array_cache_bytes", "ratio", "status", "detail"}``: ``status``
        'pass' or 'warn' (never 'fail': a small demo still runs); ``detail`` one sentence.
        ``unsized``: targets whose size is unknown (``working_set_bytes`` is then None).
    """
    cache = parse_size(array_cache) if array_cache is not None else None
    total = None if unsized else working_set_bytes
    ratio = total / cache if total is not None and cache else None
    out = {"working_set_bytes": total, "array_cache_bytes": cache, "ratio": ratio}
    if total is None:
        what = f"targets {', '.join(unsized)} have no known size" if unsized else "the working set is not known"
        return {**out, "status": "warn", "detail": f"cannot judge the working set: {what}; give each target a size"}
    if cache is None:
        if total < FALLBACK_MIN_BYTES:
            return {**out, "status": "warn", "detail": (
                f"no array_cache given and the working set ({_size(total)}) is under 1 TB, the guides' fallback: "
                f"reads may come from the array's cache; give array_cache (the guides want {WORKING_SET_FACTOR}x it)")}
        return {**out, "status": "pass", "detail": (
            f"no array_cache given; the working set ({_size(total)}) is at least 1 TB, the guides' fallback")}
    if ratio < WORKING_SET_FACTOR:
        return {**out, "status": "warn", "detail": (
            f"the working set ({_size(total)}) is only {ratio:.1f}x the array cache ({_size(cache)}): the guides "
            f"want at least {WORKING_SET_FACTOR}x, else reads come from the cache; use at least "
            f"{_size(WORKING_SET_FACTOR * cache)}")}
    return {**out, "status": "pass", "detail": (
        f"the working set ({_size(total)}) is {ratio:,.1f}x the array cache ({_size(cache)}): at least the "
        f"{WORKING_SET_FACTOR}x the guides want")}
