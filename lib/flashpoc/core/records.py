"""Records every layer shares and no layer owns (pure, imports nothing of flashpoc): the families
of the row's columns that engines of different kinds fill alike, and the records of the one measure
loop (:mod:`flashpoc.engines.loop`): a :class:`PointSpec` says what to measure, a :class:`Point` is
what was measured (or found stored), a :class:`Measured` what an engine hands the loop; and the
environment check's rows (:data:`COLUMNS`, :func:`check_row`), which every layer's check fills.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

SHARE_LIMITS_US: dict[str, int] = {"512us": 512, "1ms": 1000, "2ms": 2000, "4ms": 4000}
"""Latency limits (us) of the ``clat_under_<limit>_pct`` shares (fio from its JSON+ bins, vdbench
from its histograms) and of SLOB's ``db_file_sequential_read_under_<limit>_pct`` columns."""

Row = dict[str, Any]
"""A row of the environment check (the keys of :data:`COLUMNS`)."""
COLUMNS = ["host", "check", "value", "unit", "status", "detail"]
"""The environment check's columns (check.csv)."""
CAMPAIGN_ROW_HOST = "(campaign)"  # not a valid host name, so it cannot collide with one


def check_row(host: str, check: str, value: Any, status: str, detail: str = "", unit: str | None = None) -> Row:
    """A row of the environment check; ``unit``: what a number ``value`` counts (``bytes``, ``ms``,
    :data:`flashpoc.campaign.check.UNITS`), so that the table shows it in words (``23.5 GiB``) while check.csv keeps
    the number."""
    return {"host": host, "check": check, "value": value, "unit": unit, "status": status, "detail": detail}


def format_bytes(value: int | None) -> str:
    """Return ``value`` as ``16.0 MiB``-style text (binary units), or ``unknown``."""
    if value is None:
        return "unknown"
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(size) < 1024 or unit == "TiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class PointSpec:
    """A point to measure.

    Attributes:
        phase: the phase it is stored under ("probe", "sweep", "precondition").
        workload: the engine's workload (:class:`flashpoc.params.Workload`, SLOB's, ...).
        threads: the engine's threads (per host, per SD or per schema: the engine's unit).
        runtime_s: measured seconds (with ``steady``: the most).
        repeat: 0 for the first measurement, 1.. for measurements of the same point again.
        steady: ``(criterion, window_s)``: the point ends once its IOPS are steady, or None.
        rate: ``(pct, total IOPS)``: a rate-curve step at ``pct`` % of the uncontrolled maximum.
    """

    phase: str
    workload: Any
    threads: int
    runtime_s: int
    repeat: int = 0
    steady: tuple[str, int] | None = None
    rate: tuple[float, float] | None = None

    @property
    def key(self) -> tuple[str, str, int, float | None]:
        """What the repeats of one point share: phase, workload, threads and rate step."""
        return (self.phase, self.workload.name, self.threads, self.rate[0] if self.rate else None)

    def again(self, repeat: int) -> PointSpec:
        """The same point, measured again as repeat ``repeat``."""
        return dataclasses.replace(self, repeat=repeat)


@dataclass(frozen=True)
class Point:
    """A measured (or reused) point: its spec, id, row (read-only) and whether it was reused."""

    spec: PointSpec
    point_id: str
    reused: bool
    row: Mapping[str, Any]

    @classmethod
    def of(cls, spec: PointSpec, row: Mapping[str, Any], key: str, *, reused: bool) -> Point:
        """The record of ``row`` (as stored, without ``reused``), stored under ``key``: ``reused`` is
        part of it from the start. Its id is the row's ``point_id``, else ``key`` (a DBA job's run,
        whose row names it ``run_id``)."""
        return cls(spec, str(row.get("point_id", key)), reused, MappingProxyType({**row, "reused": reused}))

    @property
    def key(self) -> tuple[str, str, int, float | None]:
        """What the repeats of this point share (:attr:`PointSpec.key`; the row's rate step, for
        an engine whose curve steps come from one spec)."""
        pct = self.row.get("curve_pct")
        return (self.spec.phase, str(self.row["workload"]), int(self.row["threads"]),
                None if pct is None else float(pct))

    def as_row(self) -> dict[str, Any]:
        """The row as a plain dict (for tables and the phases' summaries)."""
        return dict(self.row)


@dataclass(frozen=True)
class Measured:
    """What an engine's ``run_points`` yields for one stored unit: the rows of the point ``key``
    (one row), or of the group ``key`` (an engine that stores an invocation's points together),
    and the raw files stored with them. ``counted``: the engine advanced the progress bar itself."""

    key: str
    rows: tuple[dict[str, Any], ...]
    raw: Mapping[str, str | bytes]
    counted: bool = False
