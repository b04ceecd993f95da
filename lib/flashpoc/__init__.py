"""flashpoc: storage proof-of-concept workbook for Oracle databases on all-flash arrays.

The package is cut into layers, each importing only from those below it (docs/architecture.md):
:mod:`flashpoc.core`, :mod:`flashpoc.params`, :mod:`flashpoc.hosts`, :mod:`flashpoc.oracle`,
:mod:`flashpoc.analysis`, :mod:`flashpoc.engines`, :mod:`flashpoc.jobs`, :mod:`flashpoc.campaign`
(the phases' actions), :mod:`flashpoc.present` (tables, charts, the report) and the faces,
:mod:`flashpoc.cli` and :mod:`flashpoc.phases` (the names the notebooks import).
"""

import sys as _sys
import types as _types

__version__ = "0.1.0"

__all__ = ["Campaign", "campaign_from_dict", "campaign_from_parameters", "load_campaign", "__version__"]


def __getattr__(name: str):
    """``flashpoc.Campaign`` etc. come from :mod:`flashpoc.params`, imported on first use: it
    loads pydantic, which a command such as ``flashpoc parse`` does not need (start-up)."""
    if name in __all__:
        from flashpoc import params

        return getattr(params, name)
    raise AttributeError(f"module 'flashpoc' has no attribute {name!r}")


class _DeferredRfc3987Syntax(_types.ModuleType):
    """A stand-in for ``rfc3987_syntax`` until it is used: the real module compiles its IRI grammar
    (lark, Earley) when imported, 2-3 CPU seconds, and jsonschema imports it with its format checks
    (through altair in every notebook kernel, nbformat in ``flashpoc run``) though no schema flashpoc
    validates has an ``iri`` field. ``is_valid_syntax`` (what jsonschema takes) and every other name
    load the real module on first use, which then replaces the stand-in: the checks are the same."""

    def __getattr__(self, name: str):
        if name.startswith("__"):  # what the import system asks a module (__path__, ...): a plain module's answer
            raise AttributeError(name)
        return getattr(self._real(), name)

    def is_valid_syntax(self, term: str, value: str) -> bool:
        return self._real().is_valid_syntax(term, value)

    def _real(self):
        import importlib

        if _sys.modules.get(self.__name__) is self:
            del _sys.modules[self.__name__]
        return importlib.import_module(self.__name__)


def _defer_rfc3987_syntax() -> None:
    import importlib.util

    if "rfc3987_syntax" in _sys.modules or "jsonschema" in _sys.modules:
        return
    if importlib.util.find_spec("rfc3987_syntax") is not None:
        deferred = _DeferredRfc3987Syntax("rfc3987_syntax")
        deferred.is_valid_syntax = deferred.is_valid_syntax  # bound here: `from ... import` finds it
        _sys.modules["rfc3987_syntax"] = deferred


_defer_rfc3987_syntax()
