"""Wait histograms: the share of an event's waits below a bound, and its buckets as AWR prints them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flashpoc.core.numbers import tidy


HISTOGRAM_EVENTS: tuple[str, ...] = ("db file sequential read", "direct path read")
"""Events whose histogram shares are reported."""


HISTOGRAM_LIMITS: dict[str, float] = {"512us": 512.0, "1ms": 1024.0, "2ms": 2048.0, "4ms": 4096.0}
"""Key suffix -> limit in AWR histogram microseconds (AWR's histogram ms is 1024 us)."""


_HISTOGRAM_SECTIONS: tuple[str, ...] = (
    "Wait Event Histogram",
    "Wait Event Histogram (up to 64 us)",
    "Wait Event Histogram (up to 32 ms)",
    "Wait Event Histogram (Global)",
)
# Sections whose bucket labels are read. The longer-range sections ("up to 2 sec/2 min/1 hr")
# are left out: their buckets start at 32 ms, and in text "m" there means minutes.


_BUCKET_RE = re.compile(r"^(<=|<|>=|>)(\d+(?:\.\d+)?(?:/\d+)?)([a-z]*)$")
_BUCKET_UNITS: dict[str, float] = {"": 1.0, "u": 1.0, "us": 1.0, "m": 1024.0, "ms": 1024.0, "s": 1024.0**2}
# In the sections above a label without unit is in us ("<512" and ">=512" where the text cuts
# the column), and "m" is a cut "ms" (">=32m").


# --------------------------------------------------------------------------- histograms


def bucket_bound(label: str) -> tuple[str, float] | None:
    """Read an AWR histogram bucket label as ``(operator, limit)``, the limit in AWR us.

    Args:
        label: The column header as parsed (``<512us``, ``<128u``, ``<512``, ``>=512``,
            ``<1ms``, ``>=32m``, ``<1/8s``, ``<=1s``), from the sections listed in the module
            docstring (unitless and ``u`` are us, ``m``/``ms`` are AWR ms = 1024 us, ``s`` is
            1024 AWR ms).

    Returns:
        ``("<", limit)`` for a bucket of waits below ``limit`` (``"<="`` for 11g's
        ``<=1s``), ``(">=", limit)`` / ``(">", limit)`` for the overflow bucket, or ``None``
        when the label is not a bucket.
    """
    match = _BUCKET_RE.match(label.replace(" ", "").lower())
    if not match or match.group(3) not in _BUCKET_UNITS:
        return None
    number = match.group(2)
    if "/" in number:
        num, den = number.split("/")
        value = float(num) / float(den)
    else:
        value = float(number)
    return match.group(1), value * _BUCKET_UNITS[match.group(3)]


def histogram_shares(rows: Iterable[Mapping[str, Any]], event: str,
                     limits: Mapping[str, float] | None = None) -> dict[str, float | None]:
    """Percent of an event's waits below each limit, from AWR's wait event histograms.

    Args:
        rows: ``parse_awr(...)["event_histograms"]`` (section, event, bucket, pct,
            pct_printed).
        event: The wait event.
        limits: Key suffix -> limit in AWR us; :data:`HISTOGRAM_LIMITS` by default.

    Returns:
        ``{suffix: percent or None}`` (see "Histogram shares" in the module docstring),
        rounded to 3 decimals (the printed cells have one).
    """
    limits = HISTOGRAM_LIMITS if limits is None else limits
    sections: dict[str, list[tuple[tuple[str, float], Mapping[str, Any]]]] = {}
    seen: dict[str, set[str]] = {}
    unreadable: set[str] = set()
    for row in rows:
        section = row.get("section")
        if row.get("event") != event or section not in _HISTOGRAM_SECTIONS:
            continue
        if row["bucket"] in seen.setdefault(section, set()):
            continue  # the event printed again on a later page: keep the first row
        seen[section].add(row["bucket"])
        bound = bucket_bound(row["bucket"])
        if bound is None:
            unreadable.add(section)
            continue
        sections.setdefault(section, []).append((bound, row))
    for section in unreadable:
        sections.pop(section, None)
    return {suffix: _share_below(list(sections.values()), limit) for suffix, limit in limits.items()}


def _share_below(sections: Sequence[Sequence[tuple[tuple[str, float], Mapping[str, Any]]]],
                 limit: float) -> float | None:
    best: tuple[int, float] | None = None
    for buckets in sections:
        uppers = [(bound, float(row["pct"])) for (op, bound), row in buckets if op in ("<", "<=")]
        if not any(abs(bound - limit) < 1e-9 for bound, _ in uppers):
            continue
        terms = [pct for bound, pct in uppers if bound <= limit + 1e-9]
        if best is None or len(terms) < best[0]:
            best = (len(terms), sum(terms))
    if best is not None:
        return tidy(best[1])
    for buckets in sections:
        for (op, bound), row in buckets:
            if op in (">=", ">") and bound <= limit and not str(row.get("pct_printed", "")).strip():
                return 100.0  # no wait at or above a lower bound ("value of null is truly 0")
    return None


# --------------------------------------------------------------------------- buckets


def histogram_buckets(rows: Iterable[Mapping[str, Any]], event: str, *, low: float = 512.0,
                      high: float = 32768.0) -> list[dict[str, Any]]:
    """An event's wait histogram per bucket, as AWR prints it: the share (%) of all the event's
    waits in each bucket from ``<512us`` to ``>=32ms``.

    The section read is, of those listing the event, one with a ``<1ms`` bucket and the most
    buckets ("(up to 32 ms)" in 19c/12.2 instance reports, "(Global)" in RAC global reports, the
    single "Wait Event Histogram" of 11g), else the one with the most buckets. Its buckets below
    ``low`` (AWR us) add up to one ``<512us`` bucket and those at or above ``high`` to one
    ``>=32ms`` bucket, so that every report gives the same buckets; AWR's "ms" is 1024 us, so
    ``512us-1ms`` really ends at 1.024 ms (``upper_us`` holds AWR's bound).

    Returns:
        Rows ``bucket`` (label), ``lower_us``, ``upper_us`` (None for the last), ``share_pct``
        (the printed cells added, to 0.1), ``within_pct`` (cumulative, at most 100: the cells are
        rounded), ``section``; ``[]``
        when no section lists the event or its buckets cannot be read.
    """
    chosen = _histogram_section(rows, event)
    if chosen is None:
        return []
    name, buckets = chosen
    merged: dict[tuple[float, float | None], float] = {}
    previous = 0.0
    for (op, bound), pct in buckets:
        if op in ("<", "<="):
            lower, upper = previous, bound
            previous = bound
        else:
            lower, upper = bound, None
        if upper is not None and upper <= low:
            key = (0.0, low)
        elif upper is None or lower >= high:
            key = (high, None)
        else:
            key = (lower, upper)
        merged[key] = merged.get(key, 0.0) + pct
    out, within = [], 0.0
    for (lower, upper), share in sorted(merged.items(), key=lambda item: item[0][0]):
        within += share
        out.append({"bucket": _bucket_text(lower, upper), "lower_us": lower, "upper_us": upper,
                    "share_pct": tidy(share), "within_pct": min(tidy(within), 100.0), "section": name})
    return out


def _histogram_section(rows: Iterable[Mapping[str, Any]], event: str
                       ) -> tuple[str, list[tuple[tuple[str, float], float]]] | None:
    """The section :func:`histogram_buckets` reads for ``event`` and its buckets (bound, printed
    share) in the report's order; None when no section lists the event or its buckets cannot be read."""
    sections: dict[str, list[tuple[tuple[str, float], float]]] = {}
    seen: set[tuple[str, str]] = set()
    for row in rows:
        section = row.get("section")
        if row.get("event") != event or section not in _HISTOGRAM_SECTIONS or (section, row["bucket"]) in seen:
            continue
        seen.add((section, row["bucket"]))
        bound = bucket_bound(row["bucket"])
        if bound is None:
            sections[section] = []
            sections.setdefault(f"!{section}", [])  # unreadable: never chosen
            continue
        if f"!{section}" not in sections:
            sections.setdefault(section, []).append((bound, float(row["pct"])))
    usable = {name: buckets for name, buckets in sections.items() if buckets and not name.startswith("!")
              and f"!{name}" not in sections}
    if not usable:
        return None
    with_1ms = {n: b for n, b in usable.items() if any(op in ("<", "<=") and abs(v - 1024.0) < 1e-9
                                                         for (op, v), _ in b)}
    pool = with_1ms or usable
    name = max(pool, key=lambda n: len(pool[n]))
    return name, pool[name]


def _awr_time(us: float) -> str:
    return f"{us / 1024.0:g}ms" if us >= 1024.0 else f"{us:g}us"


def _bucket_text(lower: float, upper: float | None) -> str:
    if upper is None:
        return f">={_awr_time(lower)}"
    if lower == 0.0:
        return f"<{_awr_time(upper)}"
    if lower >= 1024.0:
        return f"{lower / 1024.0:g}-{upper / 1024.0:g}ms"
    return f"{_awr_time(lower)}-{_awr_time(upper)}"
