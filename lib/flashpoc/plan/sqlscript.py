"""Moved to :mod:`flashpoc.engines.sqlscript.plan`; this name stays importable for older imports
(the same module object, so attributes and patches are shared)."""
import sys

from ..engines.sqlscript import plan as _moved

sys.modules[__name__] = _moved
