"""Damaged engine output: what a reader lost, and from which file (one mechanism for every engine).

A file cut short, emptied, removed or changed where the engine prints a figure twice may cost a
number; it never changes one and never loses one unsaid. A reader that finds such damage and can
still give the other numbers records a :class:`Loss` on the row with :func:`note_loss`: the lost
columns are emptied (None) and the row's :data:`DAMAGED` column names the file and what was wrong,
so points.csv, the tables and ``flashpoc parse`` say it. Damage a reader cannot confine to some
columns is a :class:`~flashpoc.core.errors.ParseError` naming the file (one line).
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any

#: The row column that names the damaged files and what each cost (text; absent on a whole output).
DAMAGED = "damaged"


@dataclass(frozen=True)
class Loss:
    """One damaged file: ``file`` as the engine names it (``mpstat.out``, ``hostcpu.log``),
    ``what`` is wrong with it (``cut short after line 64``, ``missing``, ``empty``, ``iops 7151 is
    not total_ios / runtime (7951)``) and the row columns ``lost`` because of it."""

    file: str
    what: str
    lost: tuple[str, ...] = ()

    def text(self) -> str:
        """``FILE: WHAT (lost: a, b)``: how the row's :data:`DAMAGED` column says it."""
        lost = f" (lost: {', '.join(self.lost)})" if self.lost else ""
        return f"{self.file}: {self.what}{lost}"


def note_loss(row: MutableMapping[str, Any], loss: Loss) -> MutableMapping[str, Any]:
    """Record ``loss`` on ``row``: each of its lost columns set to None, its text added to the
    row's :data:`DAMAGED` column (``; ``-separated, each text once). Returns ``row``."""
    for column in loss.lost:
        row[column] = None
    texts = [t for t in (row.get(DAMAGED) or "").split("; ") if t]
    if loss.text() not in texts:
        texts.append(loss.text())
    row[DAMAGED] = "; ".join(texts)
    return row


def note_losses(row: MutableMapping[str, Any], losses: Iterable[Loss]) -> MutableMapping[str, Any]:
    """:func:`note_loss` for each of ``losses``."""
    for loss in losses:
        note_loss(row, loss)
    return row


def carry(row: MutableMapping[str, Any], *texts: str | None) -> MutableMapping[str, Any]:
    """Add to ``row``'s :data:`DAMAGED` column the texts of ``texts`` (other rows' or a whole
    output's :data:`DAMAGED` columns, None when undamaged), each text once: a figure computed
    from damaged rows says what they lost. Returns ``row``."""
    found = [t for text in ((row.get(DAMAGED) or ""), *texts) if text for t in text.split("; ") if t]
    if found:
        row[DAMAGED] = "; ".join(dict.fromkeys(found))
    return row


def damaged_files(row: MutableMapping[str, Any] | dict[str, Any]) -> list[str]:
    """The files the row's :data:`DAMAGED` column names, in its order."""
    return [t.split(": ", 1)[0] for t in (row.get(DAMAGED) or "").split("; ") if t]
