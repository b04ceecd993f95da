"""Tables for people: human headers with units, rounded numbers with thousands separators,
no index, a few columns each (the CSV files keep every column under its machine name).

A :class:`Table` is what notebook 04 displays and report.html prints: the same HTML in both
(:meth:`Table.to_html`), so the customer reads the same table wherever they open the report.
The helpers here format one value each; the report's tables are built in
:mod:`flashpoc.present.summary` and :mod:`flashpoc.present.document`.
"""

from __future__ import annotations

import html
import math
import numbers
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

#: What an empty cell shows: the value does not exist (not measured, not reached).
MISSING = "–"


def threads_text(threads: int | str, unit: str = "threads") -> str:
    """``1 thread``, ``8 threads`` (``unit``: the engine's word, e.g. ``4 virtual users``); a text
    (a thread list) as it is."""
    if isinstance(threads, float) and threads.is_integer():
        threads = int(threads)
    if not isinstance(threads, numbers.Integral):
        return str(threads)
    return f"{int(threads)} {unit.removesuffix('s') if threads == 1 else unit}"


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None (None, a yes/no value, NaN, infinity, text that is no number)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


#: the one "number or None" of the workbook's tables, progress lines and host-limit verdict
number = _number


def count(value: Any) -> str:
    """A whole number with thousands separators: ``43,940``."""
    number = _number(value)
    return MISSING if number is None else f"{number:,.0f}"


def ms(value: Any) -> str:
    """A latency in ms: 3 decimals under 10 ms (``0.136``), 1 under 1,000 (``22.5``), else whole."""
    number = _number(value)
    if number is None:
        return MISSING
    if abs(number) < 10:
        return f"{number:.3f}"
    return f"{number:,.1f}" if abs(number) < 1000 else f"{number:,.0f}"


def pct(value: Any, digits: int = 1) -> str:
    """A percentage without its sign (the header has it): ``99.2``."""
    number = _number(value)
    return MISSING if number is None else f"{number:,.{digits}f}"


def signed_pct(value: Any) -> str:
    """A change in %: ``+40.6 %``, ``-12.0 %``."""
    number = _number(value)
    return MISSING if number is None else f"{number:+,.1f} %"


def mibps(value: Any) -> str:
    """A throughput in MiB/s: 1 decimal under 100, else whole with separators."""
    number = _number(value)
    if number is None:
        return MISSING
    return f"{number:,.1f}" if abs(number) < 100 else f"{number:,.0f}"


def size(value: Any) -> str:
    """Bytes in binary units: ``256 MiB``, ``1.5 TiB``."""
    number = _number(value)
    if number is None:
        return MISSING
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(number) < 1024 or unit == "TiB":
            return f"{number:,.0f} {unit}" if number == int(number) else f"{number:,.1f} {unit}"
        number /= 1024
    return MISSING  # pragma: no cover - the loop returns


UNITS = {"bytes": size, "ms": lambda v: f"{v:,.1f} ms", "x": lambda v: f"{v:,.1f}x", "IOPS": lambda v: f"{v:,.0f} IOPS"}
"""The units a table's number may be recorded in (a machine table's ``unit`` column, e.g. the environment
check's: the value is in that unit) and how it is shown: bytes in binary units (``23.5 GiB``), milliseconds
and ratios with one decimal and their unit. A number without a unit is a count (``256``)."""


def with_unit(value: Any, unit: Any = None) -> str:
    """A value of a machine table in words: a number in its ``unit`` (:data:`UNITS`), yes/no, a whole
    number with separators, else as recorded."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    number = _number(value)
    if number is not None and isinstance(unit, str) and unit in UNITS:
        return UNITS[unit](number)
    return count(number) if number is not None and number == int(number) else text(value)


def verdict(value: Any) -> bool | None:
    """A stored verdict (True, False, 'True', 'false', 1, 0) as a bool; None when there is none."""
    if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
        return None
    if isinstance(value, str):
        return {"true": True, "false": False}.get(value.strip().lower())
    return bool(value)


def words(yes: str, no: str):
    """A formatter of a stored yes/no value (:func:`verdict`): ``yes``, ``no`` or :data:`MISSING`."""
    return lambda value: {True: yes, False: no}.get(verdict(value), MISSING)


def text(value: Any) -> str:
    """Any value as cell text; missing values as :data:`MISSING`."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return MISSING
    try:
        if pd.isna(value):
            return MISSING
    except (TypeError, ValueError):
        pass
    return str(value)


@dataclass
class Table:
    """A table to read: ``frame`` holds the cells as text under human headers (with units).

    Attributes:
        frame: the cells, already formatted (see :func:`count`, :func:`ms`, ...); its index is
            never shown.
        caption: one line above the table saying what it shows (optional).
        notes: lines under the table (what a mark or an empty cell means).
        text_columns: columns aligned left (the others, numbers, align right); by default the
            first column.
    """

    frame: pd.DataFrame
    caption: str = ""
    notes: Sequence[str] = field(default_factory=list)
    text_columns: Sequence[str] | None = None

    @property
    def empty(self) -> bool:
        return self.frame.empty

    def __len__(self) -> int:
        return len(self.frame)

    def to_html(self) -> str:
        """The table as an HTML fragment: ``<figure class="flashpoc-table">`` with an optional
        caption, a ``<table>`` with a header row and the notes under it."""
        left = set(self.text_columns if self.text_columns is not None else list(self.frame.columns[:1]))
        head = "".join(f'<th class="{"text" if c in left else "num"}">{_esc(c)}</th>' for c in self.frame.columns)
        rows = []
        for values in self.frame.itertuples(index=False):
            cells = "".join(f'<td class="{"text" if c in left else "num"}">{_cell(v)}</td>'
                            for c, v in zip(self.frame.columns, values))
            rows.append(f"<tr>{cells}</tr>")
        parts = ['<figure class="flashpoc-table">']
        if self.caption:
            parts.append(f"<figcaption>{_esc(self.caption)}</figcaption>")
        parts.append(f'<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n' + "\n".join(rows) + "\n</tbody>\n</table>")
        parts += [f'<p class="table-note">{_esc(note)}</p>' for note in self.notes]
        parts.append("</figure>")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return f"<style>{NOTEBOOK_CSS}</style>\n{self.to_html()}"

    def __repr__(self) -> str:
        lines = [self.caption] if self.caption else []
        lines.append(self.frame.to_string(index=False))
        return "\n".join(lines + list(self.notes))


def utc(value: Any) -> str:
    """An ISO 8601 UTC time stamp (``2026-11-24T20:50:43+00:00``, fractions of a second dropped) as
    ``2026-11-24 20:50:43``, for a column whose header says UTC; any other value as :func:`text`."""
    said = text(value)
    stamp = re.fullmatch(r"(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.\d+)?(?:\+00:00|Z)?", said)
    return f"{stamp[1]} {stamp[2]}" if stamp else said


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _cell(value: Any) -> str:
    """A cell: escaped text; a line break where the text has one."""
    return "<br>".join(_esc(line) for line in text(value).split("\n"))


#: The tables' look in JupyterLab (report.html has its own page style with the same rules).
NOTEBOOK_CSS = """
figure.flashpoc-table { margin: 0.4rem 0 1rem; max-width: 62rem; }
figure.flashpoc-table figcaption { font-weight: 600; margin-bottom: 0.3rem; }
figure.flashpoc-table table { border-collapse: collapse; font-size: 0.9rem; width: 100%; table-layout: auto; }
figure.flashpoc-table th, figure.flashpoc-table td { padding: 0.25rem 0.55rem; border-bottom: 1px solid #ddd;
  vertical-align: top; }
figure.flashpoc-table th { background: #f3f3f3; border-bottom: 2px solid #999; font-weight: 600; }
figure.flashpoc-table .num { text-align: right; font-variant-numeric: tabular-nums; }
figure.flashpoc-table .text { text-align: left; }
figure.flashpoc-table p.table-note { font-size: 0.82rem; color: #555; margin: 0.3rem 0 0; }
"""


def table(rows: Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None, **kwargs: Any) -> Table:
    """A :class:`Table` from rows of already formatted cells (dicts keyed by header)."""
    frame = pd.DataFrame(list(rows), columns=list(columns) if columns is not None else None)
    return Table(frame.fillna(MISSING) if not frame.empty else frame, **kwargs)
