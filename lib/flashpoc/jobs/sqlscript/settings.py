"""The ``engine: {sqlscript: ...}`` settings block: none (:class:`SqlScriptSettings`); the job is
``sql_workload`` and the database ``oracle``, both top-level keys."""

from __future__ import annotations

from flashpoc.params import EngineSettings


class SqlScriptSettings(EngineSettings):
    """A campaign that runs only a DBA's job has no engine settings of its own (an unknown key is
    refused, naming it)."""


SETTINGS = SqlScriptSettings
#: the campaign's top-level key that makes a campaign of another engine run this job too (its report
#: then has the job's section: :attr:`flashpoc.params.Campaign.job_objects`)
CAMPAIGN_KEY = "sql_workload"
