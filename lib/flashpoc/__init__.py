"""flashpoc: storage proof-of-concept workbook for Oracle databases on all-flash arrays.

The package is cut into layers, each importing only from those below it (docs/architecture.md):
:mod:`flashpoc.core`, :mod:`flashpoc.params`, :mod:`flashpoc.hosts`, :mod:`flashpoc.oracle`,
:mod:`flashpoc.analysis`, :mod:`flashpoc.engines`, :mod:`flashpoc.jobs`, :mod:`flashpoc.campaign`
(the phases' actions), :mod:`flashpoc.present` (tables, charts, the report) and the faces,
:mod:`flashpoc.cli` and :mod:`flashpoc.phases` (the names the notebooks import).
"""

__version__ = "0.1.0"

__all__ = ["Campaign", "campaign_from_dict", "campaign_from_parameters", "load_campaign", "__version__"]


def __getattr__(name: str):
    """``flashpoc.Campaign`` etc. come from :mod:`flashpoc.params`, imported on first use: it
    loads pydantic, which a command such as ``flashpoc parse`` does not need (start-up)."""
    if name in __all__:
        from flashpoc import params

        return getattr(params, name)
    raise AttributeError(f"module 'flashpoc' has no attribute {name!r}")
