"""The engine registry: each engine's name and the module that holds its engine object
(``ENGINE``), below the parameters so that they can name engines and validate an engine's
settings block without importing any engine (modules are imported when first asked for).

The engines are found, not listed: every folder of the engine packages (:data:`PACKAGES`) that
holds an ``engine.py`` and a ``settings.py`` is the engine of its folder's name, found on disk
without importing it. Adding an engine is one folder under ``engines/`` (or :func:`register`).
The engine of a campaign whose parameters name none says so itself: ``DEFAULT_ENGINE = True`` in
its settings module (:func:`default_engine`).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
from typing import Any

PACKAGES = ("flashpoc.engines", "flashpoc.jobs")
"""The packages whose folders are engines (the load generators; the DBA's SQL script, a job)."""


def _discover() -> dict[str, Any]:
    """Each engine folder's name and the module of its engine object, the packages in the order of
    :data:`PACKAGES` and each one's folders in alphabetical order; the folders are looked at, not
    imported."""
    found: dict[str, Any] = {}
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        for info in pkgutil.iter_modules(spec.submodule_search_locations):
            folder = getattr(info.module_finder, "path", None)
            if info.ispkg and folder and all(os.path.isfile(os.path.join(folder, info.name, f"{m}.py"))
                                             for m in ("engine", "settings")):
                found[info.name] = f"{package}.{info.name}.engine"
    return found


_FOUND: dict[str, str] = _discover()
_REGISTRY: dict[str, Any] = dict(_FOUND)


def register(name: str, engine: Any) -> None:
    """Register ``engine`` (an :class:`~flashpoc.engines.base.Engine`, or the name of a module
    holding one as ``ENGINE``) as ``name``."""
    _REGISTRY[name] = engine


def default_engine() -> str:
    """The engine of a campaign whose parameters name none: the one whose settings module says
    ``DEFAULT_ENGINE = True``.

    Raises:
        LookupError: no registered engine says so.
    """
    for name, module in _FOUND.items():
        if getattr(_settings_module(module), "DEFAULT_ENGINE", False):
            return name
    raise LookupError("no engine is the default: none has DEFAULT_ENGINE = True in its settings module")


def engine_names() -> list[str]:
    """The registered engines' names, the default engine first."""
    names = list(_REGISTRY)
    default = default_engine()
    return [default, *(n for n in names if n != default)]


def campaign_keys() -> dict[str, str]:
    """The engines a campaign of another engine runs too when its parameters set a top-level key (a
    job: the DBA's SQL script for ``sql_workload``), by name: the key, as the engine folder's settings
    module says it (``CAMPAIGN_KEY``)."""
    found = {name: getattr(_settings_module(module), "CAMPAIGN_KEY", None) for name, module in _FOUND.items()}
    return {name: key for name, key in found.items() if key}


def host_keys() -> dict[str, dict[str, Any]]:
    """The keys each engine adds to a load host (``hosts[].<key>``, e.g. the path of its executable
    there), by key: ``HOST_KEYS`` of the engine folder's ``hostkeys.py``, plain data (``kind``: one of
    the host keys' kinds the parameters know, ``default``, ``description``, ``limits``), read from its
    file without importing the engine's package, so that the parameters can build the host model
    from them while they are being imported.

    Raises:
        ValueError: two engines define the same key.
    """
    keys: dict[str, dict[str, Any]] = {}
    owners: dict[str, str] = {}
    for name, module in _FOUND.items():
        spec = importlib.util.find_spec(module.rsplit(".", 2)[0])
        folder = os.path.join(spec.submodule_search_locations[0], name) if spec else ""
        path = os.path.join(folder, "hostkeys.py")
        if not os.path.isfile(path):
            continue
        loader = importlib.util.spec_from_file_location(f"_flashpoc_hostkeys_{name}", path)
        data = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(data)
        for key, value in data.HOST_KEYS.items():
            if key in keys:
                raise ValueError(f"hosts[].{key}: defined by two engines ({owners[key]} and {name})")
            keys[key], owners[key] = value, name
    return keys


def _settings_module(module: str) -> Any:
    """The settings module of the engine folder whose engine module is ``module``."""
    return importlib.import_module(module.rsplit(".", 1)[0] + ".settings")


def engine_settings(name: str) -> type:
    """The settings model of engine ``name`` (its ``engine: {name: ...}`` block), without importing
    the engine itself: ``SETTINGS`` of the engine folder's ``settings`` module, or the registered
    engine object's ``settings_model``.

    Raises:
        KeyError: no engine is registered as ``name``.
    """
    entry = _REGISTRY[name]
    if isinstance(entry, str):
        return _settings_module(entry).SETTINGS
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
