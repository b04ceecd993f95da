"""Moved to :mod:`flashpoc.engines.fio.parse`; this name stays importable for older imports
(the same module object, so attributes and patches are shared)."""
import sys

from ..engines.fio import parse as _moved

sys.modules[__name__] = _moved
