"""Engines: each one lives in its own folder here (``engines/<name>/``), with its settings, its plan
(pure), its run (host I/O through :mod:`flashpoc.hosts.host`), its parse (pure), its check and its
engine object (``engine.py``, a :class:`~flashpoc.engines.base.Engine`).

The registry (:mod:`flashpoc.core.registry`, below the parameters) maps an engine's name to the module
that holds its engine object (``ENGINE``); modules are imported when first asked for, so that the
parameters can name engines without importing them. Adding an engine is one folder and one line
there. Its functions are this package's too: the phases ask ``engines.get_engine(name)``.
"""

from __future__ import annotations

from flashpoc.core.registry import engine_names, engine_settings, get_engine, register
from flashpoc.engines.base import Engine

__all__ = ["Engine", "engine_names", "engine_settings", "get_engine", "register"]
