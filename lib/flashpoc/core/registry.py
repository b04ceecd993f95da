"""The engine registry: each engine's name and the module that holds its engine object
(``ENGINE``), below the parameters so that they can name engines and validate an engine's
settings block without importing any engine (modules are imported when first asked for).

Adding an engine is one folder under ``engines/`` and one line here (or :func:`register`).
"""

from __future__ import annotations

import importlib
from typing import Any

_REGISTRY: dict[str, Any] = {
    "fio": "flashpoc.engines.fio.engine",
    "vdbench": "flashpoc.engines.vdbench.engine",
    "slob": "flashpoc.engines.slob.engine",
    "sqlscript": "flashpoc.jobs.sqlscript.engine",
    "hammerdb": "flashpoc.engines.hammerdb.engine",
}


DEFAULT_ENGINE = "fio"
"""The engine of a campaign whose parameters name none: fio, embedded."""


def register(name: str, engine: Any) -> None:
    """Register ``engine`` (an :class:`~flashpoc.engines.base.Engine`, or the name of a module
    holding one as ``ENGINE``) as ``name``."""
    _REGISTRY[name] = engine


def engine_names() -> list[str]:
    """The registered engines' names."""
    return list(_REGISTRY)


def engine_settings(name: str) -> type:
    """The settings model of engine ``name`` (its ``engine: {name: ...}`` block), without importing
    the engine itself: ``SETTINGS`` of the engine folder's ``settings`` module, or the registered
    engine object's ``settings_model``.

    Raises:
        KeyError: no engine is registered as ``name``.
    """
    entry = _REGISTRY[name]
    if isinstance(entry, str):
        return importlib.import_module(entry.rsplit(".", 1)[0] + ".settings").SETTINGS
    return entry.settings_model


def get_engine(name: str) -> Any:
    """The engine registered as ``name`` (an :class:`~flashpoc.engines.base.Engine`).

    Raises:
        KeyError: no engine is registered as ``name``.
    """
    entry = _REGISTRY[name]
    if isinstance(entry, str):
        entry = _REGISTRY[name] = importlib.import_module(entry).ENGINE
    return entry
