"""The instance's and the cluster's metrics: the header, IO rates, database time and cache, host CPU."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.core.numbers import tidy
from flashpoc.oracle.metrics import MIB
from flashpoc.oracle.awr_metrics.events import _event_metrics


_SYSSTAT_RATES: dict[str, tuple[str, float]] = {
    "read_iops": ("physical read IO requests", 1.0),
    "write_iops": ("physical write IO requests", 1.0),
    "read_mibps": ("physical read bytes", 1.0 / MIB),
    "write_mibps": ("physical write bytes", 1.0 / MIB),
    "redo_mibps": ("redo size", 1.0 / MIB),
}
"""Cluster metric -> (``System Statistics (Global)`` statistic, scale of its per Second)."""


_LOAD_PROFILE_RATES: dict[str, tuple[str, float]] = {
    "read_iops": ("Read IO requests", 1.0),
    "write_iops": ("Write IO requests", 1.0),
    "read_mibps": ("Read IO (MB)", 1.0),
    "write_mibps": ("Write IO (MB)", 1.0),
    "redo_mibps": ("Redo size (bytes)", 1.0 / MIB),
    "transactions_per_s": ("Transactions", 1.0),
    "db_time_s_per_s": ("DB Time(s)", 1.0),
    "db_cpu_s_per_s": ("DB CPU(s)", 1.0),
    "background_cpu_s_per_s": ("Background CPU(s)", 1.0),
}
"""Instance metric -> (Load Profile statistic, scale of its per Second)."""


# --------------------------------------------------------------------------- scopes


def _check_pair(report: Mapping[str, Any], rac_global: Mapping[str, Any]) -> None:
    if rac_global.get("kind") != "rac_global":
        raise ParseError(
            f"AWR metrics: rac_global must be a RAC global report (kind 'rac_global'), "
            f"got kind {rac_global.get('kind')!r}"
        )
    if report.get("kind") != "instance":
        raise ParseError(f"AWR metrics: report must be an instance report, got kind {report.get('kind')!r}")
    inst, glob = report.get("header") or {}, rac_global.get("header") or {}
    for key in ("db_id", "begin_snap", "end_snap"):
        if inst.get(key) != glob.get(key):
            raise ParseError(
                f"AWR metrics: the instance and RAC global reports do not cover the same run: "
                f"{key} {inst.get(key)!r} in the instance report, {glob.get(key)!r} in the global one"
            )


def _header_metrics(header: Mapping[str, Any]) -> dict[str, Any]:
    elapsed_min = header.get("elapsed_min")
    return {
        "db_name": header.get("db_name"),
        "version": header.get("version"),
        "begin_snap": header.get("begin_snap"),
        "end_snap": header.get("end_snap"),
        "elapsed_s": None if elapsed_min is None else tidy(elapsed_min * 60.0),
        "rac": header.get("rac"),
    }


def _instance_metrics(report: Mapping[str, Any]) -> dict[str, Any]:
    profile = {row["statistic"]: row["per_second"] for row in report.get("load_profile") or ()}
    out: dict[str, Any] = {"scope": "instance", **_header_metrics(report.get("header") or {}), "instances": 1}
    for metric, (stat, scale) in _LOAD_PROFILE_RATES.items():
        value = profile.get(stat)
        out[metric] = None if value is None else tidy(value * scale)
    missing = [name for name in ("Read IO requests", "Write IO requests") if profile.get(name) is None]
    if missing:  # 11.2.0.3: the Load Profile's rows are these statistics (11.2.0.4's print both, equal)
        stats = {row["statistic"]: row["per_second"] for row in report.get("instance_activity") or ()}
        if any(stats.get(s) is None for s in ("physical read IO requests", "physical write IO requests")):
            raise ParseError(
                f"AWR metrics: the instance report's Load Profile has no {' / '.join(repr(m) for m in missing)} "
                f"row and its Instance Activity Stats no 'physical read IO requests' / 'physical write IO "
                f"requests' (kind {report.get('kind')!r}; a report older than 11.2, or not an AWR instance report?)")
        # the Load Profile's Transactions only: where it is lost it is not replaced by user commits
        out.update({k: v for k, v in _sysstat_rates(stats).items() if k != "transactions_per_s" and out.get(k) is None})
    out.update(_io_sums(out))
    out["buffer_hit_pct"] = (report.get("instance_efficiency") or {}).get("buffer_hit_pct")
    printed = [e.get("pct_db_time") for e in report.get("top_events") or () if e.get("event") == "DB CPU"]
    lost = printed or any(d.get("section", "").startswith("Top ")
                          for d in (report.get("sections") or {}).get("not_understood", ()))
    # computed only where the report prints no share: a printed one lost is not replaced by another figure
    out["db_cpu_pct_of_db_time"] = printed[0] if printed else None if lost else _cpu_share(out)
    out.update(_event_metrics(report))
    out.update(_host_cpu_instance(report.get("host_cpu")))
    return _ordered(out)


def _cluster_metrics(rac: Mapping[str, Any]) -> dict[str, Any]:
    stats = {row["statistic"]: row["per_second"] for row in rac.get("system_statistics_global") or ()}
    missing = [s for s in ("physical read IO requests", "physical write IO requests") if stats.get(s) is None]
    if missing:
        raise ParseError(
            f"AWR metrics: the RAC global report has no System Statistics (Global) "
            f"{' / '.join(repr(m) for m in missing)} (a report without that section, or parsed "
            f"by an older flashpoc.oracle.awr?)"
        )
    header = rac.get("header") or {}
    count = header.get("instance_count") or len(header.get("instances") or ()) or None
    out: dict[str, Any] = {"scope": "cluster", **_header_metrics(header), "instances": count, **_sysstat_rates(stats)}
    elapsed_s = out["elapsed_s"]
    db_time_min = header.get("db_time_min")
    out["db_time_s_per_s"] = (
        tidy(db_time_min * 60.0 / elapsed_s) if db_time_min is not None and elapsed_s else None
    )
    time_model = rac.get("time_model_by_instance") or ()
    for metric, column in (("db_cpu_s_per_s", "DB CPU (s)"), ("background_cpu_s_per_s", "bg CPU (s)")):
        values = [row.get(column) for row in time_model]
        usable = bool(values) and all(v is not None for v in values) and bool(elapsed_s)
        out[metric] = tidy(sum(values) / elapsed_s) if usable else None
    out.update(_io_sums(out))
    logical, cache = stats.get("session logical reads"), stats.get("physical reads cache")
    out["buffer_hit_pct"] = 100.0 * (1.0 - cache / logical) if logical and cache is not None else None
    out["db_cpu_pct_of_db_time"] = _cpu_share(out)
    out.update(_event_metrics(rac))
    out.update(_host_cpu_cluster(rac.get("host_cpu_by_instance")))
    return _ordered(out)


def _sysstat_rates(stats: Mapping[str, float | None]) -> dict[str, Any]:
    """IO rates (:data:`_SYSSTAT_RATES`) and ``transactions_per_s`` (``user commits`` + ``user
    rollbacks``, a statistic not listed counting as 0) from statistics' per Second values."""
    out: dict[str, Any] = {}
    for metric, (stat, scale) in _SYSSTAT_RATES.items():
        value = stats.get(stat)
        out[metric] = None if value is None else tidy(value * scale)
    commits = stats.get("user commits")
    out["transactions_per_s"] = None if commits is None else tidy(commits + (stats.get("user rollbacks") or 0.0))
    return out


def _statspack_metrics(report: Mapping[str, Any]) -> dict[str, Any]:
    """A Statspack report's metrics: the IO rates of its Instance Activity Stats (as the cluster's
    of System Statistics (Global)), DB time, DB CPU and background CPU from its Time Model
    (seconds over the elapsed seconds) and DB CPU's ``% DB time`` as printed there."""
    stats = {row["statistic"]: row["per_second"] for row in report.get("instance_activity") or ()}
    missing = [s for s in ("physical read IO requests", "physical write IO requests") if stats.get(s) is None]
    if missing:
        raise ParseError(f"AWR metrics: the Statspack report's Instance Activity Stats have no "
                         f"{' / '.join(repr(m) for m in missing)}")
    out: dict[str, Any] = {"scope": "instance (Statspack report)", **_header_metrics(report.get("header") or {}),
                           "instances": 1, **_sysstat_rates(stats)}
    model = {row["statistic"]: row for row in report.get("time_model") or ()}
    elapsed_s = out["elapsed_s"]
    for metric, stat in (("db_time_s_per_s", "DB time"), ("db_cpu_s_per_s", "DB CPU"),
                         ("background_cpu_s_per_s", "background cpu time")):
        seconds = (model.get(stat) or {}).get("time_s")
        out[metric] = tidy(seconds / elapsed_s) if seconds is not None and elapsed_s else None
    out.update(_io_sums(out))
    out["buffer_hit_pct"] = (report.get("instance_efficiency") or {}).get("buffer_hit_pct")
    printed = (model.get("DB CPU") or {}).get("pct_db_time")
    out["db_cpu_pct_of_db_time"] = printed if printed is not None else _cpu_share(out)
    out.update(_event_metrics(report))
    out.update(_host_cpu_instance(report.get("host_cpu")))
    return _ordered(out)


def _cpu_share(out: Mapping[str, Any]) -> float | None:
    """DB CPU as a percentage of DB time, to 0.1 (``None`` without both)."""
    cpu, time = out.get("db_cpu_s_per_s"), out.get("db_time_s_per_s")
    return 100.0 * cpu / time if cpu is not None and time else None


_ORDER: tuple[str, ...] = (
    "scope", "db_name", "version", "begin_snap", "end_snap", "elapsed_s", "rac", "instances",
    "read_iops", "write_iops", "iops", "read_mibps", "write_mibps", "bw_mibps", "redo_mibps",
    "transactions_per_s", "db_time_s_per_s", "db_cpu_s_per_s", "background_cpu_s_per_s", "db_cpu_pct_of_db_time",
    "buffer_hit_pct",
)


def _ordered(out: dict[str, Any]) -> dict[str, Any]:
    """The same dict with the header and rate keys first (stable column order in tables)."""
    return {**{k: out[k] for k in _ORDER if k in out}, **{k: v for k, v in out.items() if k not in _ORDER}}


def _io_sums(out: Mapping[str, Any]) -> dict[str, Any]:
    def add(a: float | None, b: float | None) -> float | None:
        return None if a is None or b is None else tidy(a + b)

    return {
        "iops": add(out.get("read_iops"), out.get("write_iops")),
        "bw_mibps": add(out.get("read_mibps"), out.get("write_mibps")),
    }


# --------------------------------------------------------------------------- host CPU


_CPU_KEYS: dict[str, str] = {
    "host_cpu_user_pct": "user_pct",
    "host_cpu_sys_pct": "system_pct",
    "host_cpu_iowait_pct": "wio_pct",
    "host_cpu_idle_pct": "idle_pct",
}


def _busy(out: dict[str, Any]) -> dict[str, Any]:
    idle = out.get("host_cpu_idle_pct")
    out["host_cpu_busy_pct"] = None if idle is None else tidy(100.0 - idle)
    return out


def _host_cpu_instance(cpu: Mapping[str, Any] | None) -> dict[str, Any]:
    cpu = cpu or {}
    out: dict[str, Any] = {metric: cpu.get(key) for metric, key in _CPU_KEYS.items()}
    _busy(out)
    out["cpus"] = cpu.get("cpus")
    return out


def _host_cpu_cluster(rows: Sequence[Mapping[str, Any]] | None) -> dict[str, Any]:
    rows = list(rows or ())
    out: dict[str, Any] = {}
    weights = [row.get("cpus") for row in rows]
    weighted = bool(rows) and all(w for w in weights)
    for metric, key in _CPU_KEYS.items():
        values = [row.get(key) for row in rows]
        if not values or any(v is None for v in values):
            out[metric] = None
        elif weighted:
            out[metric] = sum(v * w for v, w in zip(values, weights)) / sum(weights)
        else:
            out[metric] = sum(values) / len(values)
    _busy(out)
    out["cpus"] = sum(weights) if weighted else None
    return out
