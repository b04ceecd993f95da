"""Charts on a printed page: none drawn so small that its text is under :data:`MIN_TEXT_PT`.

A chart in the PDF is as wide as the page's text (:data:`PAGE_WIDTH_PX`) at most and as high as
:data:`PAGE_HEIGHT_PX` (the report's print style), scaled down to fit. :func:`print_parts` gives the
SVG of each part a chart prints as: the chart itself when its smallest text stays readable, else its
panels one by one (a vertical or horizontal concatenation) or its facets wrapped (a row of facets),
each judged again. (No title makes a chart wider than a page: :func:`flashpoc.present.chart.theme.wrap_titles`.)
"""

from __future__ import annotations

import re
from typing import Any

from flashpoc.present.chart.theme import render_svg

#: The smallest text a printed chart may have (points).
MIN_TEXT_PT = 8.0
#: The width and height a chart may take on an A4 page with the report's margins (CSS px, 96 per inch):
#: 186 mm of text width, 205 mm of height.
PAGE_WIDTH_PX = 186 / 25.4 * 96
PAGE_HEIGHT_PX = 205 / 25.4 * 96

_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)[^"]*"[^>]*?\bheight="([\d.]+)')
_FONT = re.compile(r'font-size(?:="|:\s*)([\d.]+)px')


def svg_text_pt(svg: str) -> float:
    """The size (points) the smallest text of ``svg`` prints at, once the chart is scaled to fit the
    page (CSS px are 0.75 pt); infinite for a chart without text."""
    size = _SIZE.search(svg)
    fonts = [float(f) for f in _FONT.findall(svg)]
    if not fonts:
        return float("inf")
    width, height = (float(size[1]), float(size[2])) if size else (0.0, 0.0)
    scale = min(1.0, PAGE_WIDTH_PX / width if width else 1.0, PAGE_HEIGHT_PX / height if height else 1.0)
    return min(fonts) * 0.75 * scale


def print_parts(spec: dict[str, Any]) -> list[str]:
    """The SVG of each part the Vega-Lite ``spec`` (themed) prints as: the whole chart when its text is
    at least :data:`MIN_TEXT_PT` on the page, else each of its parts (:func:`_split`) judged again; a
    part that cannot be split prints as it is."""
    svg = render_svg(spec)
    if svg_text_pt(svg) >= MIN_TEXT_PT:
        return [svg]
    parts = _split(spec)
    return [svg] if not parts else [each for part in parts for each in print_parts(part)]


def _split(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The parts of a chart: each panel of a concatenation on its own (the chart's title on the first),
    a row of facets wrapped in two columns, then in one; [] when it has no parts."""
    for key in ("vconcat", "hconcat", "concat"):
        panels = spec.get(key) or []
        rest = {k: v for k, v in spec.items() if k not in (key, "title", "columns")}
        if len(panels) == 1 and isinstance(panels[0], dict):  # a part of one panel: that panel's parts
            return _split({**rest, **({"title": spec["title"]} if "title" in spec else {}), **panels[0]})
        if len(panels) > 1:
            return [{**rest, "vconcat": [panel], **({"title": spec["title"]} if i == 0 and "title" in spec else {})}
                    for i, panel in enumerate(panels)]
    facet = spec.get("facet")
    if isinstance(facet, dict) and set(facet) == {"column"}:
        return [{**spec, "facet": facet["column"], "columns": 2}]
    if isinstance(facet, dict) and "field" in facet and spec.get("columns", 0) > 1:
        return [{**spec, "columns": 1}]
    return []
