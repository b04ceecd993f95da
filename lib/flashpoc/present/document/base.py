"""The report document's parts: a section, and what the campaign recorded besides its points."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd


@dataclass
class DocSection:
    """One section: ``key`` (what :meth:`flashpoc.phases.Report.show` takes), ``heading`` and
    ``items`` (str as Markdown, :class:`flashpoc.core.tables.Table`, Altair charts)."""

    key: str
    heading: str
    items: list[Any] = field(default_factory=list)


@dataclass
class Context:
    """What the campaign recorded besides its points: ``manifest`` (manifest.json), ``check``
    (check.csv), ``probe`` (probe.json of the current settings, or None), ``root`` (the
    campaign's folder), ``pdf_note`` (why there is no PDF, or "")."""

    manifest: Mapping[str, Any] = field(default_factory=dict)
    check: pd.DataFrame = field(default_factory=pd.DataFrame)
    probe: Mapping[str, Any] | None = None
    root: Path | None = None
    pdf_note: str = ""
