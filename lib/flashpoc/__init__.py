"""flashpoc: storage proof-of-concept workbook for Oracle databases on all-flash arrays.

Stages: :mod:`flashpoc.params` (validated campaign parameters), :mod:`flashpoc.plan`
(pure job planning), :mod:`flashpoc.run` (the only modules that touch hosts),
:mod:`flashpoc.parse` (pure output parsing), :mod:`flashpoc.store` (results on disk),
:mod:`flashpoc.analysis` (saturation, knee, SLO), :mod:`flashpoc.chart` and
:mod:`flashpoc.report` (charts and offline reports), :mod:`flashpoc.session`,
:mod:`flashpoc.probe`, :mod:`flashpoc.sweep`, :mod:`flashpoc.results` and
:mod:`flashpoc.reporting` (the four phases), gathered in :mod:`flashpoc.phases` for the notebooks.
"""

__version__ = "0.1.0"

__all__ = ["Campaign", "campaign_from_dict", "campaign_from_parameters", "load_campaign", "__version__"]


def __getattr__(name: str):
    """``flashpoc.Campaign`` etc. come from :mod:`flashpoc.params`, imported on first use: it
    loads pydantic, which a command such as ``flashpoc parse`` does not need (start-up)."""
    if name in __all__:
        from . import params

        return getattr(params, name)
    raise AttributeError(f"module 'flashpoc' has no attribute {name!r}")
