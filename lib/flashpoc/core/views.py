"""An engine's report as data (:meth:`flashpoc.engines.base.Engine.report_view`), which the present
layer renders (:func:`flashpoc.present.reporting.build_report`): its words, its tables (rows with
human headers and units, :class:`flashpoc.core.tables.Table` or DataFrames), the series of its
charts and the charts' names; no drawing and no file written here.

A section's items are Markdown strings, tables, :class:`ChartView` (a chart to draw: its series and
its titles, in the engine's words), :class:`ConditionLines` (the environment's conditions, which
the check recorded) and :class:`FilesTable` (the files the report wrote), the last two filled in by
the present layer when it writes the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd


@dataclass(frozen=True)
class Axis:
    """A chart's axis: the series' column ``field``, its ``title`` with its unit, its tick ``format``
    (d3's, e.g. ``,.0f``; "" for the default) and whether it counts threads (whole ticks at the
    counts measured)."""

    field: str
    title: str
    format: str = ""
    threads: bool = False


@dataclass(frozen=True)
class Tip:
    """One tooltip line: the series' column ``field``, its ``title``, its ``format`` ("" for none) and
    its type (``Q`` a number, ``N`` a name)."""

    field: str
    title: str
    format: str = ""
    type: str = "Q"


@dataclass(frozen=True)
class ChartView:
    """A chart as data: ``name`` (its files' name), ``kind`` (the drawing: ``lines``, one line per
    series of ``y`` against ``x``, or a chart of the present layer's by its function's name, which
    draws ``data`` as it is), ``data`` (the tidy series), its ``title`` and ``subtitle`` lines, its
    axes and tooltip, ``dash`` (a column told apart by dash, with its legend title, instead of the
    configurations), ``rule`` (an x value and its label, e.g. a knee) and ``flag`` (a column whose
    positive values ring their points in red, and the subtitle line saying so)."""

    name: str
    kind: str
    data: pd.DataFrame
    title: str = ""
    subtitle: tuple[str, ...] = ()
    x: Axis | None = None
    y: Axis | None = None
    tooltip: tuple[Tip, ...] = ()
    dash: tuple[str, str] | None = None
    rule: tuple[Any, str] | None = None
    flag: tuple[str, str] | None = None


@dataclass(frozen=True)
class ConditionLines:
    """Where the environment's condition lines go (the storage path and database the check recorded,
    what differed between the configurations compared): after ``lead`` on lines of their own, or,
    without a lead, as one item of their own (none when there is no line)."""

    lead: str = ""


@dataclass(frozen=True)
class FilesTable:
    """A table of the files the report wrote (File, What): ``notes`` gives what a file is, by the start
    of its name (the first that fits), ``default`` for any other."""

    caption: str
    notes: tuple[tuple[str, str], ...] = ()
    default: str = ""

    def what(self, name: str) -> str:
        return next((note for start, note in self.notes if name.startswith(start)), self.default)


@dataclass(frozen=True)
class SectionView:
    """One section: ``key`` (what :meth:`flashpoc.present.reporting.Report.show` takes), ``heading``
    and ``items`` (see the module's docstring)."""

    key: str
    heading: str
    items: tuple[Any, ...] = ()


@dataclass(frozen=True)
class ReportView:
    """An engine's report as data.

    Attributes:
        title: report.html's title.
        headline: Markdown: the campaign and its key results.
        sections: the whole report, in reading order, when it is the campaign's report.
        within: the sections it adds to another engine's report (a DBA's job run by a sweep's campaign).
        charts: the charts written as files (SVG, PNG, Vega-Lite JSON), by name.
        tables: the CSV files written under report/: (file name, table).
        summary: the report's table of results (:attr:`flashpoc.present.reporting.Report.summary`).
        points: the points it shows (every one, with ``config`` when campaigns are compared).
        comparison: the configurations compared (empty for one campaign).
        domain: the workloads in the parameters' order that the charts' colours follow (with several
            configurations: none, the configurations are the colours); None: no colour domain.
        missing: why there is no report (nothing stored), or "".
    """

    title: str = ""
    headline: str = ""
    sections: tuple[SectionView, ...] = ()
    within: tuple[SectionView, ...] = ()
    charts: tuple[ChartView, ...] = ()
    tables: tuple[tuple[str, pd.DataFrame], ...] = ()
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)
    points: pd.DataFrame = field(default_factory=pd.DataFrame)
    comparison: pd.DataFrame = field(default_factory=pd.DataFrame)
    domain: tuple[str, ...] | None = None
    missing: str = ""
