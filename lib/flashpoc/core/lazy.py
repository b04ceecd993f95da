"""A module imported when first used (:func:`lazy_import`): a third-party package that only some
runs need costs nothing to the others (every notebook kernel imports flashpoc)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_import(name: str) -> ModuleType:
    """The module ``name``, executed at its first attribute access (:class:`importlib.util.LazyLoader`);
    the module itself when already imported. Raises ImportError, as ``import`` does, when it is not
    installed."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"No module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
