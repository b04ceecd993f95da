"""Moved to :mod:`flashpoc.engines.slob.parse`; this name stays importable for older imports
(the same module object, so attributes and patches are shared)."""
import sys

from ..engines.slob import parse as _moved

sys.modules[__name__] = _moved
