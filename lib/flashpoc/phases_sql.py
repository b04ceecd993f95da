"""Moved to :mod:`flashpoc.engines.sqlscript.measure`; this name stays importable for older imports
(the same module object, so attributes and patches are shared)."""
import sys

from .engines.sqlscript import measure as _moved

sys.modules[__name__] = _moved
