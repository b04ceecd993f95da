"""Engines: each one lives in its own folder here (``engines/<name>/``), with its settings, its plan
(pure), its run (host I/O through :mod:`flashpoc.run.hosts`), its parse (pure), its check and its
engine object (``engine.py``, a :class:`~flashpoc.engines.base.Engine`).

The registry maps an engine's name to the module that holds its engine object (``ENGINE``);
modules are imported when first asked for, so that the parameters can name engines without
importing them. Adding an engine is one folder and one line here.
"""

from __future__ import annotations

import importlib

from .base import Engine

_REGISTRY: dict[str, str | Engine] = {
    "fio": "flashpoc.engines.fio.engine",
    "vdbench": "flashpoc.engines.vdbench.engine",
    "slob": "flashpoc.engines.slob.engine",
    "sqlscript": "flashpoc.engines.sqlscript.engine",
    "hammerdb": "flashpoc.engines.hammerdb.engine",
}


def register(name: str, engine: str | Engine) -> None:
    """Register ``engine`` (an :class:`Engine`, or the name of a module holding one as ``ENGINE``) as ``name``."""
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


def get_engine(name: str) -> Engine:
    """The engine registered as ``name``.

    Raises:
        KeyError: no engine is registered as ``name``.
    """
    entry = _REGISTRY[name]
    if isinstance(entry, str):
        entry = _REGISTRY[name] = importlib.import_module(entry).ENGINE
    return entry
