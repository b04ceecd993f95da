"""An engine's report sections rendered from its data (:class:`flashpoc.core.views.SectionView`): its
charts drawn (:func:`flashpoc.present.chart.views.draw`), the environment's condition lines and the
table of the report's files filled in; and the sections a campaign's jobs add to its report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from flashpoc.campaign import environment
from flashpoc.core import tables
from flashpoc.core.views import ChartView, ConditionLines, FilesTable, SectionView
from flashpoc.present.chart.views import draw
from flashpoc.present.document.back import CHART_FILES_NOTE, FILE_PURPOSES
from flashpoc.present.document.base import Context, DocSection

#: the report's own files, written after its table of files
_DOCUMENTS = ("report.html", "report.pdf")


def render_items(cfg: Any, items: Sequence[Any], context: Context, *, charts: Mapping[str, Any] | None = None,
                 files: Mapping[str, Path] | None = None) -> list[Any]:
    """``items`` as the report prints them: each :class:`~flashpoc.core.views.ChartView` drawn (the chart
    of ``charts`` of its name when there is one), the condition lines read from ``context``'s manifest
    (:func:`flashpoc.campaign.environment.condition_lines`) and the table of ``files`` (paths under
    ``context.root``); an item of condition lines without a lead and without a line is left out."""
    out: list[Any] = []
    for item in items:
        if isinstance(item, ChartView):
            drawn = (charts or {}).get(item.name)
            out.append(draw(item) if drawn is None else drawn)
        elif isinstance(item, ConditionLines):
            lines = environment.condition_lines(cfg, context.manifest)
            if item.lead:
                out.append(item.lead + "".join("\n" + line for line in lines))
            elif lines:
                out.append("\n".join(lines))
        elif isinstance(item, FilesTable):
            out.append(tables.table(_file_rows(item, files or {}, context), caption=item.caption,
                                    text_columns=["File", "What"],
                                    notes=[CHART_FILES_NOTE] if any(p.name.endswith(".vl.json")
                                                                    for p in (files or {}).values()) else []))
        else:
            out.append(item)
    return out


def _file_rows(item: FilesTable, files: Mapping[str, Path], context: Context) -> list[dict[str, str]]:
    """The rows of a table of ``files``: a chart's SVG, PNG and Vega-Lite JSON in one row, then the
    report's own files (:func:`_document_rows`)."""
    names = {path.name for path in files.values()}
    rows = []
    for name, path in files.items():
        stem = _chart_stem(path.name)
        charted = {f"{stem}.svg", f"{stem}.png", f"{stem}.vl.json"} <= names
        if name in _DOCUMENTS or (charted and not path.name.endswith(".svg")):
            continue
        shown = str(path.relative_to(context.root)) + (", .png, .vl.json" if charted else "")
        rows.append({"File": shown, "What": item.what(name)})
    return rows + _document_rows(files, context)


def _chart_stem(name: str) -> str:
    """``nopm_vs_users`` of a chart's file name (.svg, .png, .vl.json)."""
    return name.removesuffix(".vl.json").removesuffix(".png").removesuffix(".svg")


def _document_rows(files: Mapping[str, Path], context: Context) -> list[dict[str, str]]:
    """The report's own files, as the I/O report's table of files says them: report.html, and
    report.pdf or why it was not written (``context.pdf_note``)."""
    rows = []
    for name in _DOCUMENTS:
        if name in files:
            rows.append({"File": f"report/{name}", "What": FILE_PURPOSES[f"report/{name}"]})
        elif name == "report.pdf" and context.pdf_note:
            rows.append({"File": f"report/{name}", "What": f"Not written: {context.pdf_note}."})
    return rows


def render_sections(cfg: Any, sections: Sequence[SectionView], context: Context, **drawn: Any) -> list[DocSection]:
    """``sections`` as the report's (:class:`DocSection`), their items rendered (:func:`render_items`)."""
    return [DocSection(s.key, s.heading, render_items(cfg, s.items, context, **drawn)) for s in sections]


def job_sections(cfg: Any, context: Context) -> list[DocSection]:
    """The sections the campaign's jobs (:attr:`flashpoc.params.Campaign.job_objects`: a DBA's job run by a
    sweep's campaign) add to its report, from each one's report view; none when they stored nothing."""
    sections: list[DocSection] = []
    for job in cfg.job_objects if cfg is not None else []:
        view = job.report_view(cfg, None)
        if view is not None and not view.missing:
            sections += render_sections(cfg, view.within, context)
    return sections
