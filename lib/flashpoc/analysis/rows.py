"""The tidy row of a run point, as every engine writes it, and the analysis points of rows."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

import pandas as pd

from flashpoc.analysis.curve import littles_law
from flashpoc.analysis.point import Point
from flashpoc.analysis.steady import interval_steadiness, snia_steady_state

from flashpoc.params import Campaign, Workload, parse_size


def base_row(cfg: Campaign, *, phase: str, point_id: str, engine: str, workload: Workload, iodepth: int,
             threads: int, outstanding: int, hosts: list[str], runtime_s: int, ramp_s: int, repeat: int,
             wall_s: float, overhead_s: float | None = None) -> dict[str, Any]:
    """The fields that say what a point was: campaign, workload, threads and outstanding I/Os,
    hosts and targets, timing (s), and the hashes that keep points of other settings apart."""
    row: dict[str, Any] = {
        "campaign": cfg.campaign,
        "phase": phase,
        "point_id": point_id,
        "engine": engine,
        "workload": workload.name,
        "rw": workload.rw,
        "bs": workload.bs,
        "rwmixread": workload.rwmixread,
        "iodepth": iodepth,
        "threads": threads,
        "outstanding_ios": outstanding,
        "hosts": ",".join(hosts),
        "n_hosts": len(hosts),
        "targets": ",".join(t.name for t in cfg.targets),
        "working_set_bytes": sum(t.size_bytes or 0 for t in cfg.targets),
        "runtime_s": runtime_s,
        "ramp_s": ramp_s,
        "repeat": repeat,
        "wall_s": wall_s,
    }
    if overhead_s is not None:
        row["overhead_s"] = overhead_s
    row.update({
        "completed_utc": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        "params_hash": cfg.params_hash(),
        "measurement_hash": cfg.measurement_hash(),
    })
    return row


def point_id(workload: Workload, threads: int, definition: dict[str, Any]) -> str:
    """Directory name of a point: readable part (workload, threads) plus the hash of its definition."""
    digest = hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:10]
    return f"{workload.name}_t{threads:05d}_{digest}"


def add_littles_law(row: dict[str, Any]) -> None:
    """Add ``littles_law_ratio`` and ``littles_law_ok`` (outstanding I/Os ~ IOPS x latency)
    when the row has IOPS and a mean latency (ms)."""
    if row.get("iops") and row.get("lat_mean_ms") is not None:
        law = littles_law(to_points([row])[0])
        row["littles_law_ratio"] = law["ratio"]
        row["littles_law_ok"] = bool(law["ok"])


#: Intervals a steady-state verdict needs (:func:`flashpoc.analysis.interval_steadiness`).
MIN_VERDICT_INTERVALS = 3


def interval_verdict(intervals: list[dict[str, Any]]) -> dict[str, Any]:
    """Steadiness of a point's measured intervals (warm-up left out): ``intervals`` (count),
    ``interval_iops_cv_pct``, ``interval_iops_drift_pct`` (%) and ``interval_steady`` (None
    with fewer than 3 intervals); see :func:`flashpoc.analysis.interval_steadiness`; and the SNIA
    PTS rule's determination (:func:`snia_verdict`)."""
    measured = [r["iops"] for r in intervals if not r.get("warmup")]
    steady = interval_steadiness(measured)
    return {"intervals": len(measured), "interval_iops_cv_pct": steady["cv_pct"],
            "interval_iops_drift_pct": steady["drift_pct"], "interval_steady": steady["steady"],
            **snia_verdict(measured)}


#: The row columns of the SNIA PTS verdict (:func:`snia_verdict`), each ``snia_`` + a key of
#: :func:`flashpoc.analysis.snia_steady_state`.
SNIA_COLUMNS = tuple(f"snia_{key}" for key in (
    "round_intervals", "mean_iops", "data_excursion_iops", "data_excursion_pct", "data_allowed_iops",
    "slope_excursion_iops", "slope_excursion_pct", "slope_allowed_iops", "fit_slope_iops", "fit_intercept_iops",
    "steady"))


def snia_verdict(measured: list[float]) -> dict[str, Any]:
    """The SNIA PTS steady-state determination of a point's measured interval IOPS, as row
    columns (:data:`SNIA_COLUMNS`; None with fewer than 5 intervals)."""
    snia = snia_steady_state(measured)
    return {column: snia[column.removeprefix("snia_")] for column in SNIA_COLUMNS}


def to_points(rows: Iterable[Mapping[str, Any]], rate: str = "iops", latency: str = "lat_mean_ms"
              ) -> list[Point]:
    """(threads, IOPS, mean latency ms, outstanding I/Os) of each row, in the rows' order; ``rate``
    and ``latency`` name the row's columns that stand for IOPS and latency (the engine's
    :attr:`~flashpoc.engines.base.Engine.rate_column`, e.g. HammerDB's NOPM)."""
    return [Point(int(r["threads"]), float(r[rate]), float(r[latency]), int(r["outstanding_ios"]))
            for r in rows]


def curve_points(frame: Any) -> list[Point]:
    """The (threads, IOPS, mean latency ms, outstanding I/Os) points of one curve (a DataFrame of
    rows), by threads."""
    return to_points(frame.sort_values("threads").to_dict("records"))


#: Block sizes up to this are small blocks (Oracle's largest ``db_block_size`` is 32 KiB).
SMALL_BLOCK_BYTES = 32 * 1024

#: Kinds of workload: small-block random I/O is measured in IOPS, the other kind in MiB/s.
KIND_RANDOM, KIND_THROUGHPUT = "random", "throughput"


#: The ``rw`` modes of sequential I/O (fio's, which vdbench workloads use too).
SEQUENTIAL_RW = frozenset({"read", "write", "rw", "readwrite", "trim", "trimwrite"})


#: A SLOB workload whose operations are at least this share (%) of full scans reads mostly by
#: multiblock reads (``direct path read``): its measure is MiB/s.
SLOB_SCAN_PCT = 50


def io_kind(rw: Any, bs: Any, scan_pct: Any = None) -> str:
    """:data:`KIND_THROUGHPUT` for sequential I/O (:data:`SEQUENTIAL_RW`), blocks over
    :data:`SMALL_BLOCK_BYTES` or a SLOB workload of at least :data:`SLOB_SCAN_PCT` % scans, whose
    measure is MiB/s; else :data:`KIND_RANDOM`, whose measure is IOPS (SLOB's sessions,
    single-block reads and updates of 8 KiB blocks, too)."""
    if rw in SEQUENTIAL_RW:
        return KIND_THROUGHPUT
    scans = pd.to_numeric(pd.Series([scan_pct]), errors="coerce").iloc[0]
    if not pd.isna(scans) and scans >= SLOB_SCAN_PCT:  # only a SLOB workload has a share of scans
        return KIND_THROUGHPUT
    try:
        size = parse_size(str(bs).strip().lower()) if isinstance(bs, (str, int)) and str(bs).strip() else 0
    except ValueError:
        size = 0
    return KIND_THROUGHPUT if size > SMALL_BLOCK_BYTES else KIND_RANDOM


def workload_kinds(df: pd.DataFrame) -> dict[str, str]:
    """Each workload's :func:`io_kind`, from its first row's ``rw``, ``bs`` and (SLOB) ``scan_pct``."""
    if "workload" not in df.columns:
        return {}
    firsts = df.drop_duplicates("workload")
    return {str(r["workload"]): io_kind(r.get("rw"), r.get("bs"), r.get("scan_pct")) for r in firsts.to_dict("records")}
