"""What a report must be as a document a manager reads (issue 30, items 10 and 11), checked the same
way on every engine's report: the executive summary (:func:`summary_problems`) and the PDF
(:func:`pdf_problems`, with pypdf; :func:`chart_text_pt_in_print`, in chromium).

Each returns the problems found, so that a test asserts ``== []`` and a failure names them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

#: The most words of the executive summary's text (its tables apart).
SUMMARY_WORDS = 150
#: A parameter's name (probe.runtime_s, sweep.extend_pct): it belongs in the Method, not the summary.
PARAMETER_NAME = re.compile(r"\w+\.\w+_\w+")
#: What a probe's answer says more than once when it is not one answer: a second count or the sweep.
PROBE_SECOND_ANSWERS = ("were measured at", "The sweep runs up to", "Follow-up sweep", "Fit:")


def summary_text(items: Iterable[Any]) -> str:
    """The executive summary's text items as read: Markdown marks (``>``, ``- ``, ``**``, backticks) left out."""
    text = "\n".join(item for item in items if isinstance(item, str))
    text = re.sub(r"^\s*>\s?|^\s*- ", "", text, flags=re.MULTILINE)
    return text.replace("**", "").replace("`", "").replace("###", "")


def summary_problems(items: Iterable[Any]) -> list[str]:
    """The executive summary's faults: more than :data:`SUMMARY_WORDS` words, a parameter's name, a
    probe answered more than once."""
    text = summary_text(items)
    words = len(text.split())
    problems = [f"{words} words (at most {SUMMARY_WORDS})"] if words > SUMMARY_WORDS else []
    problems += [f"parameter name {name!r}" for name in PARAMETER_NAME.findall(text)]
    if text.count("Saturation probe") > 1:
        problems.append("the saturation probe answered more than once")
    problems += [f"a second probe answer: {said!r}" for said in PROBE_SECOND_ANSWERS if said in text]
    return problems


def pdf_pages(pdf: Path) -> list[str]:
    """The text of each page of ``pdf`` (pypdf)."""
    from pypdf import PdfReader

    return [page.extract_text() or "" for page in PdfReader(str(pdf)).pages]


def pdf_problems(pdf: Path, headings: Sequence[str]) -> list[str]:
    """The PDF's faults: a page without its number ("Page N of M"), a page whose last line is one of
    ``headings`` (a heading orphaned at the page's foot), a first page with little text."""
    pages = pdf_pages(pdf)
    problems = []
    for n, text in enumerate(pages, 1):
        if f"Page {n} of {len(pages)}" not in text:
            problems.append(f"page {n}: no page number")
        lines = [line.strip() for line in text.splitlines()
                 if line.strip() and not re.fullmatch(r"Page \d+ of \d+", line.strip())]
        if lines and lines[-1] in headings:
            problems.append(f"page {n} ends with the heading {lines[-1]!r}")
    if pages and len(pages[0].split()) < 200:
        problems.append(f"page 1 holds {len(pages[0].split())} words: much of it empty")
    return problems


#: chromium: the page as printed (A4, 12 mm side margins: 186 mm of text, 703 CSS px), each chart's
#: width as drawn against its own, and the smallest text in it, in points.
CHART_TEXT_JS = """() => [...document.querySelectorAll('figure.chart svg')].map(s => {
    const own = parseFloat(s.getAttribute('width')), drawn = s.getBoundingClientRect().width;
    const fonts = [...s.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize));
    return fonts.length ? Math.min(...fonts) * 0.75 * drawn / own : 99; })"""


def chart_text_pt_in_print(page) -> list[float]:
    """The smallest text of each chart of a playwright ``page`` laid out as printed, in points."""
    page.emulate_media(media="print")
    page.set_viewport_size({"width": 703, "height": 1000})
    return page.evaluate(CHART_TEXT_JS)


def html_chart_text_pt(html: str) -> list[float]:
    """The smallest text of each chart of report.html, in points, as printed on the page
    (:func:`flashpoc.present.chart.pages.svg_text_pt`: its own width and height against the page's)."""
    from flashpoc.present.chart.pages import svg_text_pt

    return [svg_text_pt(svg) for svg in re.findall(r"<svg\b.*?</svg>", html, flags=re.DOTALL)]
