"""Report: chart files and a standalone HTML report (printed to PDF).

Everything written here opens without a network: charts are SVG rendered locally by
vl-convert, CSS is inline, and nothing loads a script, stylesheet or image from a URL. Every
file is written atomically (:func:`flashpoc.core.store.write_atomic`).

- :func:`save_chart` writes NAME.svg, NAME.png and NAME.vl.json for one chart (:func:`save_charts`: for several).
- :func:`write_html_report` writes one HTML page from (heading, items) sections.
- :func:`find_external_resources` lists what a page would fetch from the network (none may).

An executed notebook's offline HTML is :mod:`flashpoc.present.notebook_html`'s (nbconvert is
imported there only: a notebook kernel that writes the report never loads it).
"""

from __future__ import annotations

import html
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import altair as alt
import pandas as pd
import vl_convert

import flashpoc
from flashpoc.present.chart import render_svg, themed_spec
from flashpoc.present.chart.pages import print_parts
from flashpoc.core.errors import OfflineExportError, ParameterError, ReportError
from flashpoc.core.store import write_atomic
from flashpoc.core.tables import Table

#: Scale factor of PNG files (2 = print quality at the chart's nominal size).
PNG_SCALE = 2

_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


# --- chart files --------------------------------------------------------------------------


def save_chart(chart: alt.TopLevelMixin, directory: str | Path, name: str) -> dict[str, Path]:
    """Write ``NAME.svg``, ``NAME.png`` and ``NAME.vl.json`` into ``directory``.

    Returns ``{"svg": path, "png": path, "json": path}``. The directory is created if needed;
    ``name`` is a plain file stem (letters, digits, ``._-``).
    """
    if not _NAME_RE.fullmatch(name):
        raise ParameterError(f"name: {name!r} is not a plain file stem ([A-Za-z0-9._-])")
    directory = Path(directory)
    spec = themed_spec(chart)
    paths = {
        "svg": directory / f"{name}.svg",
        "png": directory / f"{name}.png",
        "json": directory / f"{name}.vl.json",
    }
    svg = render_svg(chart)  # the chart's one SVG, which report.html embeds too
    write_atomic(paths["svg"], svg)
    write_atomic(paths["png"], vl_convert.svg_to_png(svg, scale=PNG_SCALE))  # the same pixels as from the spec
    write_atomic(paths["json"], json.dumps(spec, indent=2, sort_keys=True) + "\n")
    return paths


def save_charts(charts: dict[str, alt.TopLevelMixin], directory: str | Path) -> dict[str, Path]:
    """:func:`save_chart` of each of ``charts`` (name -> chart): the path of every file written,
    by ``NAME.svg``, ``NAME.png`` and ``NAME.json``."""
    return {f"{name}.{kind}": path for name, chart in charts.items()
            for kind, path in save_chart(chart, directory, name).items()}


# --- standalone HTML report ---------------------------------------------------------------

_REPORT_CSS = """
:root { color-scheme: light; }
body { font-family: Helvetica, Arial, 'DejaVu Sans', sans-serif; color: #222; background: #fff;
       margin: 0; line-height: 1.45; }
main { max-width: 62rem; margin: 0 auto; padding: 2rem 1.5rem 4rem; }
header.title { border-bottom: 3px solid #0072B2; margin-bottom: 1.2rem; padding-bottom: 0.6rem; }
h1 { font-size: 1.8rem; margin: 0 0 0.3rem; }
header.title p { margin: 0.1rem 0; color: #444; }
h2 { font-size: 1.35rem; margin: 2.4rem 0 0.8rem; padding-bottom: 0.2rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.1rem; margin: 1.6rem 0 0.5rem; }
nav ol { padding-left: 1.4rem; columns: 2; }
nav a { color: #0072B2; text-decoration: none; }
p, ul { margin: 0.6rem 0; }
li { margin: 0.15rem 0; }
blockquote { margin: 0.8rem 0; padding: 0.6rem 0.9rem; background: #eef5fb; border-left: 4px solid #0072B2; }
blockquote p { margin: 0.3rem 0; }
code { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 0.92em;
       background: #f3f3f3; padding: 0 0.2em; }
figure.chart { margin: 1rem 0 1.5rem; }
figure.chart svg { max-width: 100%; height: auto; }
figure.flashpoc-table { margin: 0.8rem 0 1.3rem; }
figure.flashpoc-table figcaption { font-weight: 600; margin-bottom: 0.3rem; }
table { border-collapse: collapse; font-size: 0.88rem; width: 100%; }
th, td { padding: 0.28rem 0.5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
th { background: #f3f3f3; border-bottom: 2px solid #999; font-weight: 600; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.text { text-align: left; }
td.text:first-child { font-weight: 600; }
p.table-note { font-size: 0.82rem; color: #555; margin: 0.3rem 0 0; }
footer { margin-top: 3rem; font-size: 0.8rem; color: #666; }
@page { size: A4; margin: 14mm 12mm 16mm;
        @bottom-right { content: "Page " counter(page) " of " counter(pages); font: 9pt Helvetica, Arial, sans-serif;
                        color: #555; } }
@media print {
  main { max-width: none; padding: 0; }
  nav { display: none; }
  h2, h3, figcaption { break-after: avoid; }
  h2.new-page { break-before: page; }
  .keep { break-inside: avoid; }
  figure.chart, blockquote, div.with-chart { break-inside: avoid; }
  figure.chart svg { max-height: 205mm; width: auto; }
  tr { break-inside: avoid; }
  table { font-size: 0.8rem; }
}
"""

Section = tuple[str, Sequence[Any]]

#: Headings of sections that start on a new page when printed (the PDF): the first of the
#: results and the appendix.
NEW_PAGE_SECTIONS = ("Results: latency against load", "Appendix A")


def write_html_report(path: str | Path, title: str, sections: Iterable[Section], *, subtitle: Sequence[str] = ()
                      ) -> Path:
    """Write a standalone, offline HTML report and return its path.

    ``sections``: ``(heading, items)`` pairs; an item is an Altair chart (any top-level chart:
    Chart, LayerChart, VConcatChart, ...) drawn as inline SVG, a :class:`flashpoc.core.tables.Table`,
    a pandas DataFrame (or Styler) drawn as a table, or a str drawn as paragraphs. Text is
    "markdown-ish": blank lines split paragraphs, lines starting with ``- `` make a list,
    ``### `` a sub-heading, ``> `` a highlighted block, and ``**bold**``, ``*italic*`` and
    ```code``` work; ``[text](url)`` prints the URL as text, never as a link. ``subtitle``:
    lines under the title. Sections whose heading starts with one of
    :data:`NEW_PAGE_SECTIONS` start a new page in print.
    """
    path = Path(path)
    sections = list(sections)
    body: list[str] = ['<header class="title">', f"<h1>{_esc(title)}</h1>",
                       *[f"<p>{_inline(line)}</p>" for line in subtitle], "</header>"]
    if len(sections) > 1:
        body.append("<nav><ol>")
        body += [f'<li><a href="#section-{i}">{_esc(h)}</a></li>' for i, (h, _) in enumerate(sections, 1)]
        body.append("</ol></nav>")
    for i, (heading, items) in enumerate(sections, 1):
        body.append(f'<section id="section-{i}">')
        page = ' class="new-page"' if heading.startswith(NEW_PAGE_SECTIONS) else ""
        body.append(f"<h2{page}>{_esc(heading)}</h2>")
        items = list(items)
        for j, item in enumerate(items):
            html_item = _render_item(item, f"sections[{i - 1}].items[{j}]", prefix=f"s{i}-{j}-")
            if isinstance(item, alt.TopLevelMixin) and j and isinstance(items[j - 1], str):
                # a chart's lead text stays on its page in print
                lead, (first, _, rest) = body.pop(), html_item.partition("</figure>")
                html_item = f'<div class="with-chart">\n{lead}\n{first}</figure>\n</div>{rest}'
            body.append(html_item)
        body.append("</section>")
    body.append(f"<footer>Generated by flashpoc {_esc(flashpoc.__version__)}.</footer>")
    page = "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{_esc(title)}</title>",
            f"<style>{_REPORT_CSS}</style>",
            "</head>",
            "<body>",
            "<main>",
            *body,
            "</main>",
            "</body>",
            "</html>",
            "",
        ]
    )
    urls = find_external_resources(page)
    if urls:
        raise OfflineExportError(f"{path}: report would load from the network: {', '.join(urls[:5])}")
    return write_atomic(path, page)


def _render_item(item: Any, where: str, *, prefix: str) -> str:
    if isinstance(item, alt.TopLevelMixin):  # in parts where its text would print under 8 pt whole
        svgs = [namespace_svg_ids(strip_xml_prolog(svg), f"{prefix}{n}-")
                for n, svg in enumerate(print_parts(themed_spec(item)))]
        return "\n".join(f'<figure class="chart" data-chart="{prefix}">\n{svg}\n</figure>' for svg in svgs)
    if isinstance(item, Table):
        return item.to_html()
    if isinstance(item, pd.DataFrame):
        table = item.to_html(index=False, border=0, na_rep="", float_format=_format_number, escape=True)
        return f'<div class="table">\n{table}\n</div>'
    if _is_styler(item):
        return f'<div class="table">\n{item.to_html()}\n</div>'
    if isinstance(item, str):
        return _markdownish(item)
    raise ParameterError(f"{where}: cannot render a {type(item).__name__} (chart, Table, DataFrame or str)")


def _is_styler(item: Any) -> bool:
    return type(item).__name__ == "Styler" and hasattr(item, "to_html")


def _format_number(value: float) -> str:
    if pd.isna(value):
        return ""
    if float(value).is_integer() or abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:,.2f}"
    return f"{value:.3g}"


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


_INLINE_RULES = (
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"), r"<em>\1</em>"),
    (re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)"), r"\1 (\2)"),
)


def _inline(text: str) -> str:
    out = _esc(text)
    for pattern, replacement in _INLINE_RULES:
        out = pattern.sub(replacement, out)
    return out


def _markdownish(text: str) -> str:
    blocks = [b for b in re.split(r"\n\s*\n", text.strip()) if b.strip()]
    parts = []
    for block in blocks:
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        while lines and lines[0].startswith("### "):
            parts.append(f"<h3>{_inline(lines.pop(0)[4:])}</h3>")
        if lines and all(line.startswith(">") for line in lines):
            parts.append("<blockquote>" + _markdownish("\n".join(line[1:].strip() for line in lines)) + "</blockquote>")
            continue
        # runs of lines: a paragraph, a list ("- ") or a numbered list ("1. ")
        for kind, run in itertools.groupby(lines, _line_kind):
            run = list(run)
            if kind == "ul":
                parts.append("<ul>" + "".join(f"<li>{_inline(line[2:])}</li>" for line in run) + "</ul>")
            elif kind == "ol":
                parts.append("<ol>" + "".join(f"<li>{_inline(_NUMBERED.sub('', line, 1))}</li>" for line in run)
                             + "</ol>")
            else:
                parts.append(f"<p>{_inline(' '.join(run))}</p>")
    return "\n".join(parts)


_NUMBERED = re.compile(r"^\d+\.\s+")


def _line_kind(line: str) -> str:
    if line.startswith(("- ", "* ")):
        return "ul"
    return "ol" if _NUMBERED.match(line) else "p"


# --- PDF --------------------------------------------------------------------------------

#: Browsers that print the PDF, in the order they are looked for (``$FLASHPOC_CHROMIUM`` first).
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    """The Chromium that prints the PDF: ``$FLASHPOC_CHROMIUM``, else the first of
    :data:`BROWSERS` on the PATH; None when there is none."""
    own = os.environ.get("FLASHPOC_CHROMIUM")
    if own:
        return shutil.which(own) or (own if Path(own).is_file() else None)
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def print_pdf(html_path: str | Path, pdf_path: str | Path, *, browser: str | None = None,
              timeout_s: float = 180.0) -> Path:
    """Print an offline HTML page to PDF with headless Chromium (A4, the page's print style:
    charts and table rows kept whole, no browser header or footer); return ``pdf_path``.

    Chromium runs with a profile of its own in a temporary directory, no network service it can
    do without (background networking, component updates, sync) and ``--no-sandbox`` (it may
    run as root; the page is the workbook's own, with no script). The PDF is written atomically.

    Raises:
        ReportError: no Chromium (saying what to install), or Chromium failed or printed nothing,
            with the end of what it said.
    """
    html_path, pdf_path = Path(html_path).resolve(), Path(pdf_path)
    browser = browser or find_browser()
    if browser is None:
        raise ReportError("no PDF: no Chromium found to print it (apt-get install chromium, or set "
                          "FLASHPOC_CHROMIUM to a Chromium or Chrome executable)")
    with tempfile.TemporaryDirectory(prefix="flashpoc-pdf-") as work:
        out = Path(work) / "report.pdf"
        argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
                f"--user-data-dir={Path(work) / 'profile'}", "--no-pdf-header-footer",
                f"--print-to-pdf={out}", html_path.as_uri()]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s,
                                  env={**os.environ, "HOME": work}, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ReportError(f"no PDF: {browser} did not print {html_path.name} within {timeout_s:g} s") from None
        except OSError as error:
            raise ReportError(f"no PDF: {browser} could not be started: {error}") from None
        data = out.read_bytes() if out.is_file() else b""
        if done.returncode != 0 or not data.startswith(b"%PDF"):
            said = " ".join((done.stderr or done.stdout or "").split())[-300:]
            raise ReportError(f"no PDF: {browser} exited with {done.returncode} and printed no PDF"
                              + (f": {said}" if said else ""))
        return write_atomic(pdf_path, data)


# --- SVG helpers --------------------------------------------------------------------------


def strip_xml_prolog(svg: str) -> str:
    """Drop a leading ``<?xml ...?>`` and ``<!DOCTYPE ...>`` so the SVG can sit inside HTML."""
    return re.sub(r"^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?", "", svg, flags=re.IGNORECASE)


def namespace_svg_ids(svg: str, prefix: str) -> str:
    """Prefix every id of an SVG (and its ``url(#id)`` / ``href="#id"`` uses) with ``prefix``.

    vl-convert names clip paths ``clip1``, ``clip2``, ... in every SVG; two charts inline in one
    page would otherwise clip each other.
    """
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    if not ids:
        return svg

    def swap(match: re.Match[str]) -> str:
        head, name, tail = match.groups()
        return f"{head}{prefix}{name}{tail}" if name in ids else match.group(0)

    svg = re.sub(r'(\bid=")([^"]+)(")', swap, svg)
    svg = re.sub(r"(url\(\s*['\"]?#)([^)'\"]+)(['\"]?\s*\))", swap, svg)
    return re.sub(r'(\bhref="#)([^"]+)(")', swap, svg)


# --- offline check ------------------------------------------------------------------------

_RESOURCE_PATTERNS = (
    # src= on anything (script, img, iframe, source, audio, video, embed, input)
    re.compile(r"""\bsrc\s*=\s*["']?\s*((?:https?:)?//[^"'\s>]+)""", re.IGNORECASE),
    # href= on <link> (stylesheets, icons, preloads) and on SVG <image>/<use>
    re.compile(r"""<(?:link|image|use)\b[^>]*?\b(?:xlink:)?href\s*=\s*["']?\s*((?:https?:)?//[^"'\s>]+)""",
               re.IGNORECASE),
    # CSS url(...) and @import
    re.compile(r"""url\(\s*["']?\s*((?:https?:)?//[^"')\s]+)""", re.IGNORECASE),
    re.compile(r"""@import\s+["']\s*((?:https?:)?//[^"']+)""", re.IGNORECASE),
    # JavaScript module imports (e.g. mermaid from a CDN)
    re.compile(r"""\bimport\(\s*["']((?:https?:)?//[^"']+)""", re.IGNORECASE),
)


_INLINE_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
_URL_IN_SCRIPT = re.compile(r"""(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s"'`<>)]*""")


def find_external_resources(page: str) -> list[str]:
    """URLs an HTML page would fetch from the network: script/img/iframe ``src``, ``<link href>``,
    SVG ``<image>``/``<use>`` hrefs, CSS ``url()``/``@import``, JS ``import()``, and any URL
    inside an inline ``<script>`` (how altair's html renderer loads vega from a CDN).

    Plain hyperlinks (``<a href>``) are not resources and are not listed.
    """
    found: list[str] = []
    urls = [url for pattern in _RESOURCE_PATTERNS for url in pattern.findall(page)]
    for script in _INLINE_SCRIPT.findall(page):
        urls += _URL_IN_SCRIPT.findall(script)
    for url in urls:
        if url not in found:
            found.append(url)
    return found
