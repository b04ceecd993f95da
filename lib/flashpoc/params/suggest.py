""""Did you mean": the key a misspelled one most likely stands for, among the keys its place allows."""

from __future__ import annotations

import difflib
import typing
from typing import Any

from pydantic import BaseModel

from flashpoc.params.campaign import Campaign


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The parameter model an annotation holds (itself, or inside a list, an Optional, a union)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for m in map(_model_in, typing.get_args(annotation)) if m is not None), None)


def _keys(model: type[BaseModel]) -> list[str]:
    return [name for name, field in model.model_fields.items() if not field.exclude]


def known_keys(loc: tuple[Any, ...]) -> list[str]:
    """The keys allowed where the last key of ``loc`` (a pydantic error's location: keys and list indexes,
    ``("hosts", 0, "wrokdir")``) stands: the campaign's, an engine block's (``engine.fio``, or the earlier
    top-level ``fio:``), or a nested model's; [] where it cannot tell."""
    from flashpoc.core.registry import engine_names, engine_settings

    parts = [p for p in loc[:-1] if not isinstance(p, int)]
    model: type[BaseModel] | None = Campaign
    if parts[:1] == ["engine"] and len(parts) >= 2 and parts[1] in engine_names():
        model, parts = engine_settings(parts[1]), parts[2:]
    elif parts[:1] and parts[0] in engine_names():
        model, parts = engine_settings(parts[0]), parts[1:]
    for part in parts:
        field = model.model_fields.get(part) if model is not None else None
        model = _model_in(field.annotation) if field is not None else None
    if model is None:
        return []
    return _keys(model) + (list(engine_names()) if model is Campaign else [])


def did_you_mean(loc: tuple[Any, ...]) -> str | None:
    """The allowed key nearest the misspelled last key of ``loc`` (:func:`known_keys`, difflib's ratio of
    at least 0.6), or None."""
    if not loc or not isinstance(loc[-1], str):
        return None
    found = difflib.get_close_matches(loc[-1], known_keys(loc), n=1, cutoff=0.6)
    return found[0] if found else None
