"""Moved to :mod:`flashpoc.engines.fio.plan`; this name stays importable for older imports
(the same module object, so attributes and patches are shared)."""
import sys

from ..engines.fio import plan as _moved

sys.modules[__name__] = _moved
