"""The write workloads' preconditioning rounds until SNIA PTS steady state, and the fills they followed."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from flashpoc import analysis
from flashpoc.core.store import StoreError
from flashpoc.campaign.precondition.fills import STATUS_FILE, fill_record

if TYPE_CHECKING:
    from flashpoc.hosts.workbench import Workbench


#: SNIA PTS steady state: over the last WINDOW rounds, max - min within MAX_EXCURSION of the window's
#: mean, and the least-squares line's rise across the window within MAX_SLOPE_EXCURSION of it
WINDOW = 5
MAX_EXCURSION = 0.20
MAX_SLOPE_EXCURSION = 0.10


def snia_window(iops: list[float]) -> dict[str, Any] | None:
    """SNIA's steady-state determination over the last :data:`WINDOW` rounds of ``iops`` (None
    before there are that many), by the rule every point is judged by
    (:func:`flashpoc.analysis.snia_steady_state`, each round one value): the window's rounds
    (1-based) and mean, the data excursion (max - min) and the slope excursion (the
    least-squares line's rise across the window), each in % of the mean next to what SNIA
    allows, and whether both are within it."""
    if len(iops) < WINDOW:
        return None
    verdict = analysis.snia_steady_state(iops[-WINDOW:], rounds=WINDOW, max_data_pct=100 * MAX_EXCURSION,
                                         max_slope_pct=100 * MAX_SLOPE_EXCURSION)
    return {"rounds": [len(iops) - WINDOW + 1, len(iops)], "mean_iops": verdict["mean_iops"],
            "slope_iops_per_round": verdict["fit_slope_iops"], "excursion_pct": verdict["data_excursion_pct"],
            "allowed_excursion_pct": 100 * MAX_EXCURSION, "slope_excursion_pct": verdict["slope_excursion_pct"],
            "allowed_slope_excursion_pct": 100 * MAX_SLOPE_EXCURSION,
            "steady": bool(verdict["steady"])}  # no I/O at all (no positive mean): not steady


#: the rounds' folder (the points of the phase ``precondition``) and, in it, the fills they followed
ROUNDS_DIR = "points/precondition"
ROUNDS_FILL_FILE = "fill.json"
#: where the rounds of an earlier fill are kept when the targets are filled again
SUPERSEDED_DIR = "points/precondition-superseded"


def fill_stamp(wb: Workbench) -> dict[str, Any]:
    """The fills the write rounds follow: per ``host/target`` its record's completion time, bytes
    written and sample checksum, or None when it has no record (laid out, filled elsewhere)."""
    stamp: dict[str, Any] = {}
    for host_params in wb.cfg.hosts:
        for target in wb.cfg.targets_of(host_params):
            record = fill_record(wb, host_params, target)
            stamp[f"{host_params.name}/{target.name}"] = None if record is None else {
                "completed_utc": record.get("completed_utc"), "written_bytes": record.get("written_bytes"),
                "sha256": (record.get("sample") or {}).get("sha256")}
    return stamp


def supersede_rounds(wb: Workbench, stamp: dict[str, Any]) -> str | None:
    """Keep the stored rounds only when they followed the fills of ``stamp`` (:func:`fill_stamp`):
    rounds of an earlier fill (or of unknown fills: stored before the stamp was) measured the
    targets as they were then, so they move, whole, to ``points/precondition-superseded/<when>``
    (nothing is lost) and every round is measured again. Records ``stamp`` with the rounds; the
    folder the earlier rounds went to (relative to the campaign's), or None."""
    root = wb.store.root
    folder = root / ROUNDS_DIR
    moved = None
    try:
        earlier = json.loads((folder / ROUNDS_FILL_FILE).read_text())
    except (OSError, ValueError):
        earlier = None
    if earlier != stamp and folder.is_dir() and any(p.name != ROUNDS_FILL_FILE for p in folder.iterdir()):
        when = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
        (root / SUPERSEDED_DIR).mkdir(parents=True, exist_ok=True)
        folder.rename(root / SUPERSEDED_DIR / when)  # one rename: the rounds move whole or not at all
        moved = f"{SUPERSEDED_DIR}/{when}"
    if earlier != stamp or moved:
        wb.store.write_json(f"{ROUNDS_DIR}/{ROUNDS_FILL_FILE}", stamp)
    return moved


def run_write_rounds(wb: Workbench) -> dict[str, Any]:
    """The write workloads' preconditioning (``precondition.write_rounds``): rounds of each write
    workload until steady by SNIA's rule (:func:`snia_window`) or the bound; per workload its
    threads, round length, rounds (IOPS, mean latency, point id) and the last window's verdict,
    also written to ``precondition.json`` (``write_rounds``). Nothing when ``write_rounds`` is 0.
    Stored rounds are reused only when they followed the targets' current fills
    (:func:`supersede_rounds`): after a target is filled again, they are measured again."""
    cfg = wb.cfg
    settings = cfg.precondition
    engine = cfg.engine_object
    if not settings.write_rounds or engine.data_elsewhere(cfg) is not None:
        return {}
    writers = [w for w in cfg.engine_workloads if getattr(w, "writes", False)]
    superseded = supersede_rounds(wb, fill_stamp(wb)) if writers else None
    round_s = settings.round_s or engine.point_runtime_s(cfg)
    out: dict[str, Any] = {}
    for workload in writers:
        rounds: list[dict[str, Any]] = []
        verdict = None
        for number in range(settings.write_rounds):
            row = engine.measure_round(wb, workload, settings.threads, round_s, number)
            rounds.append({"round": number + 1, "point_id": row["point_id"], "iops": row.get("iops"),
                           "lat_mean_ms": row.get("lat_mean_ms"), "reused": bool(row.get("reused"))})
            verdict = snia_window([r["iops"] or 0.0 for r in rounds])
            if verdict is not None and verdict["steady"]:
                break
        out[workload.name] = {"threads": settings.threads, "round_s": round_s, "rounds": rounds,
                              "steady": bool(verdict and verdict["steady"]), "window": verdict,
                              **({"superseded": superseded} if superseded else {})}
    try:
        status = wb.store.read_json(STATUS_FILE)
    except StoreError:
        status = {}
    wb.store.write_json(STATUS_FILE, {**status, "write_rounds": out})
    return out
