"""Plain-text tables for a terminal (pure): human headers, readable numbers, a given width.

Numbers are right-aligned, with thousands separators and at most three decimals; text is
left-aligned. Columns are laid out left to right while they fit in the width; the last column
that fits wraps its text onto more lines, and a last line names the columns left out.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Sequence
from typing import Any

UNITS = {"_ms": "ms", "_us": "us", "_s": "s", "_pct": "%", "_mibps": "MiB/s", "_mbps": "MB/s", "_bytes": "bytes",
         "_gb": "GB"}
GAP = "  "
MIN_WRAP = 16  # the narrowest a wrapped last column gets
NUMBER_LIKE = re.compile(r"^([<>=]+ ?)?-?[\d,]+(\.\d+)?$|^(none)?$")  # right-aligned like numbers: ">= 27,061"


def human_header(key: str) -> str:
    """A readable header for a column key: ``lat_mean_ms`` -> ``lat mean (ms)``, ``iops`` -> ``IOPS``."""
    for suffix, unit in UNITS.items():
        if key.endswith(suffix) and len(key) > len(suffix):
            return f"{human_header(key[: -len(suffix)])} ({unit})"
    words = key.replace("_", " ")
    return " ".join("IOPS" if w == "iops" else w for w in words.split(" "))


def cell_text(value: Any, spec: str | None = None) -> str:
    """A value as a table shows it: ``42,327.5``, ``0.084``, ``141.4``, ``yes`` (a float to 1 decimal from
    1,000 up, else to 3); empty for None or NaN;
    a number in the format ``spec`` when given."""
    if value is None:
        return ""
    if spec and _is_number(value) and math.isfinite(value):
        return format(value, spec)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "" if math.isnan(value) else str(value)
        text = f"{value:,.1f}" if abs(value) >= 1000 else f"{value:,.3f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    if isinstance(value, (dict, list, tuple)):
        items = (f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else map(str, value)
        return ", ".join(items)
    return " ".join(str(value).split())


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def text_table(rows: Sequence[dict[str, Any]], columns: Sequence[tuple[str, ...]] | None = None,
               width: int = 100) -> str:
    """``rows`` as a text table no wider than ``width``.

    Args:
        rows: one mapping per row.
        columns: ``(key, header)`` or ``(key, header, format)`` (e.g. ``",.0f"``) of the columns to
            show, in order (default every key of the rows, with :func:`human_header`); a column
            empty in every row is left out.
        width: the most characters of a line.
    """
    if columns is None:
        keys = list(dict.fromkeys(k for row in rows for k in row))
        columns = [(k, human_header(k)) for k in keys]
    formats = {c[0]: c[2] for c in columns if len(c) > 2}
    columns = [(c[0], c[1]) for c in columns if any(cell_text(row.get(c[0])) for row in rows)]
    if not rows or not columns:
        return "(nothing to show)"
    cells = [[cell_text(row.get(k), formats.get(k)) for k, _ in columns] for row in rows]
    numeric = [all(_is_number(row.get(k)) or NUMBER_LIKE.match(text) for row, text in zip(rows, column))
               for (k, _), column in zip(columns, zip(*cells))]
    natural = [max(len(h), *(len(c[i]) for c in cells)) for i, (_, h) in enumerate(columns)]
    shown, used = [], 0
    for i, size in enumerate(natural):
        room = width - used - (len(GAP) if shown else 0)
        if size <= room:
            shown.append((i, size))
        elif not numeric[i] and room >= max(MIN_WRAP, len(columns[i][1])):
            shown.append((i, room))  # text wraps in the room left
        else:
            break
        used += shown[-1][1] + (len(GAP) if len(shown) > 1 else 0)
    if not shown:  # not even the first column fits: wrap it to the width
        shown = [(0, width)]

    def line(values: list[str]) -> str:
        return GAP.join(v.rjust(size) if numeric[i] else v.ljust(size)
                        for (i, size), v in zip(shown, values)).rstrip()

    out = [line([columns[i][1] for i, _ in shown])]
    for row in cells:
        wrapped = [textwrap.wrap(row[i], size, break_long_words=True) or [""] if not numeric[i] else [row[i]]
                   for i, size in shown]
        for k in range(max(len(w) for w in wrapped)):
            out.append(line([w[k] if k < len(w) else "" for w in wrapped]))
    left = [h for j, (_, h) in enumerate(columns) if j not in {i for i, _ in shown}]
    if left:
        note = (f"({len(left)} more column{'s' if len(left) > 1 else ''}: {', '.join(left)}; --format csv or json "
                "shows every column)")
        out += textwrap.wrap(note, width)
    return "\n".join(out)
