"""SLOB's engine object: a point is one runit.sh run at N threads per schema (:mod:`.measure`)."""

from __future__ import annotations

from typing import Any

from flashpoc.engines.base import Engine, LazyModule, database_versions
from flashpoc.engines.slob.settings import SlobSettings

measure = LazyModule(f"{__package__}.measure")


class SlobEngine(Engine):
    name = "slob"
    settings_model = SlobSettings
    parse_table_columns = [("metric", "Metric"), ("value", "Value")]
    manifest_exclude = frozenset({"workloads"})  # SLOB's are slob.workloads; the schema refuses both
    warm_up_note = "SLOB: the intervals before the AWR begin snapshot"

    def data_elsewhere(self, cfg) -> str:
        """Its data lives in the database (setup.sh loads it)."""
        return "its data is the database's"

    def database_metrics(self, cfg) -> str:
        """Its rows are AWR's."""
        return "AWR"

    def hashed_database(self, cfg) -> dict[str, Any]:
        """``database.datafiles`` picks each point's time series (and ``nfs_mounts`` the NFS mounts')."""
        return {**cfg.database.model_dump(mode="json", exclude={"host"}), "datafiles": cfg.database.datafiles or "local"}

    def interval_note(self, points) -> str:
        """What the SLOB points' series count (``intervals_source``: iostat's disks, the NFS mounts or the
        database's counters), each with its ``intervals_scope`` where it has one (dNFS: the cluster's or
        one instance's)."""
        sources = []
        if "intervals_source" in points:
            scopes = points["intervals_scope"] if "intervals_scope" in points else [None] * len(points)
            sources = sorted({f"{source} (series scope: {scope})" if isinstance(scope, str) else source
                              for source, scope in zip(points["intervals_source"], scopes) if isinstance(source, str)})
        return "SLOB: " + ("; ".join(sources) if sources else
                           "the disk I/O iostat saw on the host that ran runit.sh (on RAC one node's share)") + "."

    def workload_text(self, row) -> str:
        """'SLOB, 10 % update, 20 % scan': its mix (no scan share when it scans nothing)."""
        update, scan = _int_or_none(row.get("update_pct")), _int_or_none(row.get("scan_pct"))
        return "SLOB" + (f", {update} % update" if update is not None else "") + (f", {scan} % scan" if scan else "")

    def path_hosts(self, cfg) -> list:
        """SLOB's home and environment file are the DB host's."""
        return [cfg.db_host]

    def database_host(self, campaign):
        """SLOB runs on the database's host."""
        return campaign.db_host

    def check_campaign(self, campaign, facts_by_host, connect) -> list:
        """SLOB on the database host and the database (not the load hosts' targets: SLOB has none)."""
        from flashpoc.engines.slob.check import check_slob

        return check_slob(campaign, connect=connect, facts_by_host=facts_by_host)

    def check_database_facts(self, campaign, dbfacts) -> list:
        """The database against SLOB's schemas and SCALE."""
        from flashpoc.engines.slob.check import evaluate_slob_database
        from flashpoc.params import slob_size_bytes

        slob = campaign.settings
        scan = [w.scan_table_sz for w in slob.workloads if w.scan_table_sz]
        return evaluate_slob_database(dbfacts, host="database", schemas=slob.schemas, scale_bytes=slob.scale_bytes,
                                      statistics_type=slob.database_statistics_type,
                                      scan_table_bytes=max((slob_size_bytes(x) for x in scan), default=None))

    method_note = ("SLOB: a point's IOPS are Oracle's physical read and write I/O requests per second and its "
                   "latency the `db file sequential read` average wait, from the AWR report of the run (on RAC the "
                   "cluster's); threads are per schema, and every schema runs at every point.")

    def check_versions(self, check) -> dict[str, str]:
        """SLOB's numbers are the database's: its version (the check's "database" row)."""
        return database_versions(check)

    def check_params(self, cfg, host_names: set[str]) -> None:
        """SLOB's own settings: its database host, schemas, SCALE and workloads."""
        from flashpoc.core.errors import ParameterError
        from flashpoc.params import check_unique

        if "workloads" in cfg.model_fields_set:
            raise ValueError("workloads: with engine slob the workloads go under slob.workloads "
                             "(update_pct, scan_pct, ...)")
        slob = cfg.settings
        if slob.db_host is not None and slob.db_host not in host_names:
            raise ValueError(f"slob.db_host: no host named {slob.db_host!r} (hosts: {sorted(host_names)})")
        if slob.schemas is None:
            raise ValueError("slob.schemas: required for engine slob (the number of schemas setup.sh loaded)")
        if slob.scale is None:
            raise ValueError("slob.scale: required for engine slob (SCALE per schema, e.g. '8G')")
        check_unique(slob.workloads, "name", "slob.workloads")
        for i, workload in enumerate(slob.workloads):
            try:
                slob.conf(workload, 1)
            except ParameterError as error:
                raise ValueError(f"slob.workloads[{i}] ({workload.name}): {error}") from None

    def workloads(self, cfg) -> list:
        return cfg.settings.workloads

    def read_output(self, path) -> tuple[Any, list[dict[str, Any]]]:
        """A SLOB run directory: its metrics, and one (metric, value) row each."""
        from flashpoc.core.errors import ParameterError
        from flashpoc.engines.slob.parse import RUN_FILES, slob_point_metrics

        expected = f"expected the files SLOB's runit.sh leaves: {', '.join(RUN_FILES)}"
        if not path.is_dir():
            raise ParameterError(f"{path} is not a SLOB run directory ({expected})")
        files = {f.name: f for f in path.iterdir() if f.is_file()}
        if not set(files) & set(RUN_FILES):
            found = ", ".join(sorted(files)[:8]) + (", ..." if len(files) > 8 else "") if files else "no files"
            raise ParameterError(f"{path} is not a SLOB run directory: {expected}; it holds {found}")
        metrics = slob_point_metrics({name: f.read_bytes() for name, f in files.items()})
        return metrics, [{"metric": k, "value": v} for k, v in metrics.items()]

    def wait_histogram(self, point_dir, event: str) -> list[dict[str, Any]]:
        """``event``'s AWR histogram per bucket from the reports stored with the point (the RAC
        global report's when there is one, as the point's metrics)."""
        from flashpoc.engines.slob.parse import INSTANCE_REPORTS, RAC_REPORTS, point_wait_histogram

        files = {name: (point_dir / name).read_bytes() for name in (*INSTANCE_REPORTS, *RAC_REPORTS)
                 if (point_dir / name).is_file()}
        return point_wait_histogram(files, event)

    def describe(self, cfg, version: str, points) -> str:
        """SLOB and the Oracle release of its rows ('SLOB on Oracle 19.0.0.0.0 (RAC)')."""
        import pandas as pd

        oracle = sorted({str(v) for v in points.get("version", pd.Series(dtype=object)).dropna()})
        rac = " (RAC)" if "rac" in points and points["rac"].fillna(False).astype(bool).any() else ""
        return "SLOB" + (f" on Oracle {', '.join(oracle)}{rac}" if oracle else "")

    def point_length_text(self, cfg, runtime: str) -> str:
        return (f"one SLOB run of `RUN_TIME` {cfg.settings.run_time_s} s per point, measured between two AWR "
                "snapshots.")

    def interval_text(self, cfg, min_intervals: int) -> str:
        return "iostat's reports of the DB host's disks during each SLOB run (`iostat.out`)."

    def own_data_text(self, cfg) -> str:
        return f"{cfg.settings.schemas} schemas of SCALE {cfg.settings.scale}" if cfg.settings.schemas else "the SLOB schemas"

    def own_data_bytes(self, cfg) -> int | None:
        """schemas x SCALE, as the check counts it."""
        return cfg.settings.schemas * cfg.settings.scale_bytes if cfg.settings.schemas and cfg.settings.scale_bytes else None

    def point_runtime_s(self, cfg) -> int:
        return cfg.settings.run_time_s

    def outstanding_per_thread(self, cfg) -> int:
        """Sessions per thread: the schemas."""
        return cfg.settings.schemas or 1

    def point_definition(self, wb, spec) -> dict[str, Any]:
        return measure.point_definition(wb.cfg, spec.workload, spec.threads, spec.runtime_s)

    def run_points(self, wb, specs, keys, bar=None):
        """One runit.sh run per point (:func:`.measure.run_point`)."""
        return measure.run_points(wb, specs, keys, bar)

    def first_host(self, wb) -> None:
        """None: no plateau again on fewer hosts (one database host)."""
        return None


ENGINE = SlobEngine()


def _int_or_none(value: Any) -> int | None:
    """``value`` as an int, or None when it is missing or not a number (NaN, None, text)."""
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return None
