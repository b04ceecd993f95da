"""The DBA's own job as a campaign's engine (``engine: sqlscript``): no probe, no sweep, no load
host's I/O; the campaign runs the check, the job (``sql_workload``, notebook 03) and the report
of its runs (:mod:`.report`)."""

from __future__ import annotations

from typing import Any

from flashpoc.engines.base import Engine, database_versions
from flashpoc.jobs.sqlscript.settings import SqlScriptSettings


class SqlScriptEngine(Engine):
    name = "sqlscript"
    settings_model = SqlScriptSettings
    default_hosts = ({"name": "local", "address": "localhost"},)  # the machine running the sessions
    manifest_exclude = frozenset({"workloads"})  # the job is sql_workload
    method_note = ("A DBA's own job: the script runs in N concurrent sessions between two AWR (or Statspack) "
                   "snapshots; its time is from their common start to the last session's commit.")

    def data_elsewhere(self, cfg) -> str:
        """The job writes the database, through its own sessions."""
        return "its data is the database's"

    def database_metrics(self, cfg) -> str:
        """Its runs are AWR's (or Statspack's) snapshots."""
        return "AWR"

    def check_params(self, cfg, host_names: set[str]) -> None:
        """The job and the database are what this campaign runs."""
        if cfg.sql_workload is None:
            raise ValueError("sql_workload: required for engine sqlscript (script, sessions, label): the DBA's job "
                             "is all this campaign runs")
        if "workloads" in cfg.model_fields_set:
            raise ValueError("workloads: engine sqlscript runs the DBA's script (sql_workload), not I/O workloads")
        if cfg.targets:
            raise ValueError("targets: engine sqlscript writes no target (the DBA's job writes the database)")

    def check_campaign(self, campaign, facts_by_host, connect) -> list:
        """The database and its storage path: the job has no target, no working set on the array."""
        from flashpoc.engines.checks import check_database
        from flashpoc.hosts.dbstorage import oracle_storage_rows

        database = check_database(campaign)
        return database + oracle_storage_rows(campaign, database, connect)

    def workloads(self, cfg) -> list:
        """None: the job is ``sql_workload``."""
        return []

    def describe(self, cfg, version: str, points: Any) -> str:
        return f"a DBA's SQL*Plus script in {cfg.sql_workload.sessions} sessions (Oracle {version})"

    def check_versions(self, check) -> dict[str, str]:
        """The job's numbers are the database's: its version (the check's "database" row)."""
        return database_versions(check)

    def skipped_text(self, cfg, phase: str) -> str | None:
        return (f"**Skipped**: this campaign runs only a DBA's own job (`engine: sqlscript`): no {phase} of the "
                "hosts' I/O is measured. The job runs in notebook 03 and the report compares its runs.")

    # -- the job on the measure loop: a run is the point of phase ``sql`` at N sessions ------
    def storage_keys(self, wb, specs) -> list[str]:
        """The runs' ids (:func:`.measure.run_id`: ``<label>_s<sessions>_<hash>``, as stored runs are named)."""
        from flashpoc.jobs.sqlscript.measure import run_id

        return [run_id(wb.cfg, spec) for spec in specs]

    def run_points(self, wb, specs, keys, bar=None):
        """Each run of the job in turn (:func:`.measure.run_job`)."""
        from flashpoc.engines import loop
        from flashpoc.jobs.sqlscript.measure import run_job

        return loop.each(specs, keys, bar, lambda spec, pid: run_job(wb.cfg, spec, pid))

    def report_view(self, cfg, points):
        """The report of the job's runs as data (:func:`.report.report_view`): the campaign's whole report
        (no sweep: ``points`` is None), or the section it adds to a sweep's report."""
        from flashpoc.jobs.sqlscript.report import report_view

        return report_view(cfg)

    def first_host(self, wb) -> None:
        """None: no plateau again on fewer hosts (no probe)."""
        return None


ENGINE = SqlScriptEngine()
