"""The precondition: every target filled once with the campaign's data before anything is measured.

An all-flash array answers reads of blocks never written (thin) from its metadata, without
touching flash: a read test on an unfilled LUN reports fantasy IOPS. So before the probe (its
first action, and again before the sweep) every target the campaign may write (``create`` or
``allow_write``) is written once from start to end of its working set, sequentially in large
blocks, by the campaign's engine with the data its settings describe (fio's
``buffer_compress_percentage``/``dedupe_percentage``, vdbench's ``compratio``/``dedupratio``:
:meth:`flashpoc.engines.base.Engine.fill_targets`), after the safety gate. Each fill is recorded
per host and target in ``targets/<host>/<target>.json`` (written atomically): the bytes the engine
says it wrote, the data and its reducibility, the date, the checksum of a sample read back (and
how well it compresses), and the target's identity (a LUN's WWID, a file's device, inode and birth time).
The next run skips a target whose record still matches (path, working set, engine, data,
identity); a LUN several hosts see (the same WWID) is filled once, from the first host. A read workload on a target that is not filled (and not named in
``precondition.filled_elsewhere``) is refused before any I/O, or, with ``precondition.unfilled:
warn``, warned about and recorded in ``precondition.json``.

Write workloads then get SNIA PTS-style workload-dependent preconditioning when
``precondition.write_rounds`` asks for it: rounds of each write workload (``round_s`` seconds at
``threads``), each stored as a point of the phase ``precondition`` (a rerun reuses them), until
its IOPS are steady by SNIA's rule over the last 5 rounds (:func:`snia_window`), at most
``write_rounds``; the rounds and the window's verdict go into ``precondition.json`` and are
charted (:func:`flashpoc.chart.precondition_rounds`).
"""

from __future__ import annotations

import json
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from . import analysis
from .engines import get_engine
from .errors import CheckFailed, RemoteError
from .progress import threads_text
from .store import StoreError
from .run.targets import make_scratch_files, read_back, target_identities, target_sizes  # noqa: F401 (callers' names)

if TYPE_CHECKING:
    from .params import HostParams, TargetParams
    from .session import Workbench

#: the records' folder in the campaign's results (one JSON per host and target), as vdbench's fills
RECORD_DIR = "targets"
#: the campaign-level status of the fills: what was filled, reused, or left unfilled
STATUS_FILE = "precondition.json"
#: the sample read back after a fill: this many bytes at the start, middle and end of the working set
SAMPLE_BYTES = 1024 * 1024
_SAMPLE_BLOCK = 64 * 1024
#: SNIA PTS steady state: over the last WINDOW rounds, max - min within MAX_EXCURSION of the window's
#: mean, and the least-squares line's rise across the window within MAX_SLOPE_EXCURSION of it
WINDOW = 5
MAX_EXCURSION = 0.20
MAX_SLOPE_EXCURSION = 0.10


#: the slowest fill rate a host's command timeout is stretched for (bytes/s): a 10 TiB LUN takes hours
FILL_MIN_RATE = 20 * 1024 * 1024


def fill_timeout_s(host_params: HostParams, total_bytes: int) -> float:
    """Seconds a fill of ``total_bytes`` may take on one host: the host's ``command_timeout_s``, or
    longer for a working set that needs it at :data:`FILL_MIN_RATE`."""
    return max(host_params.command_timeout_s, total_bytes / FILL_MIN_RATE + 600)


def record_path(host: str, target: str) -> str:
    """Where the record of ``target``'s fill on ``host`` lives, relative to the campaign's folder."""
    return f"{RECORD_DIR}/{host}/{target}.json"


class UnfilledTargetWarning(UserWarning):
    """A read workload runs on a target never filled (``precondition.unfilled: warn``)."""


def create_scratch(wb: Workbench, host_params: HostParams, scratch: list, short: list) -> list[dict[str, Any]]:
    """With ``precondition.fill`` the scratch files are only made (sparse, :func:`make_scratch_files`):
    the fill writes them once, recorded (:func:`fill_targets`); the record of a file made anew is dropped."""
    make_scratch_files(wb.host(host_params), short)
    for target in short:  # made anew (a file system may give it the inode of the one it replaces): fill it again
        (wb.store.root / record_path(host_params.name, target.name)).unlink(missing_ok=True)
    return [{"host": host_params.name, "target": t.name, "action": "created" if t in short else "reused"}
            for t in scratch]


def sample_offsets(working_set: int) -> list[int]:
    """Byte offsets of the sample read back after a fill: the start, the middle and the last
    :data:`SAMPLE_BYTES` of the working set (fewer when they overlap), block-aligned."""
    last = max(0, working_set - SAMPLE_BYTES) // _SAMPLE_BLOCK * _SAMPLE_BLOCK
    middle = min(last, working_set // 2 // _SAMPLE_BLOCK * _SAMPLE_BLOCK)
    return sorted({0, middle, last})


def read_sample(host, target: TargetParams, working_set: int) -> dict[str, Any]:
    """The sample of ``target`` (:func:`sample_offsets`) read back on ``host``: its offsets, its
    length, its SHA-256 and its size compressed by ``gzip -1`` (None without gzip), so the record
    shows the data's reducibility as written, not only as asked (:func:`flashpoc.run.targets.read_back`)."""
    offsets = sample_offsets(working_set)
    count = min(SAMPLE_BYTES, working_set) // _SAMPLE_BLOCK
    return {"offsets_bytes": offsets, **read_back(host, target, offsets, block=_SAMPLE_BLOCK, count=count)}


def fill_record(wb: Workbench, host_params: HostParams, target: TargetParams, identity: str | None = None
                ) -> dict[str, Any] | None:
    """The stored record of ``target``'s fill on ``host_params``, or None when there is none that
    matches the campaign now (path, working set, engine, data and, when given, identity)."""
    engine = get_engine(wb.cfg.engine)
    try:
        record = json.loads((wb.store.root / record_path(host_params.name, target.name)).read_text())
    except (OSError, ValueError):
        return None
    wanted = {"path": target.path, "size_bytes": target.size_bytes, "engine": engine.name,
              "data": engine.fill_data(wb.cfg)}
    if identity is not None:
        wanted["identity"] = identity
    return record if all(record.get(key) == value for key, value in wanted.items()) else None


def _shareable(identity: str) -> bool:
    """True for a LUN known by its WWID: the same on every host that sees it, so filled once."""
    parts = identity.split(" ", 2)
    return parts[0] == "block" and len(parts) == 3 and parts[2] not in ("unknown", "")


def _reads(wb: Workbench) -> list[str]:
    """The campaign's workloads that read."""
    return [w.name for w in wb.cfg.engine_workloads if getattr(w, "read_pct", 0) > 0]


def fill_targets(wb: Workbench) -> list[dict[str, Any]]:
    """Fill every target the campaign may write that has no matching record (after the safety
    gate, which :func:`flashpoc.phases.prepare_targets` runs first) and record each fill; before
    anything is written, refuse (or warn about) reads of targets that would stay unfilled. What
    was done, one dict per host and target; ``precondition.json`` has the same.

    Raises:
        CheckFailed: a read workload would run on an unfilled target (``precondition.unfilled:
            refuse``, the default), naming each host and target and what to do, before any I/O.
        RemoteError: the engine failed or wrote less than a working set.
    """
    cfg = wb.cfg
    engine = get_engine(cfg.engine)
    if not engine.uses_targets:
        return []
    settings = cfg.precondition
    data = engine.fill_data(cfg)
    done: list[dict[str, Any]] = []
    shared: dict[str, dict[str, Any]] = {}  # a LUN's WWID -> its fill's record: one fill serves every host
    plans, copies = [], []  # (host, its targets to fill, their identities); (host, target, identity) filled elsewhere
    for host_params in cfg.hosts:
        targets = cfg.targets_of(host_params)
        if not targets:
            continue
        identities = target_identities(wb.host(host_params), targets)
        wanted = []
        for target in targets:
            status = {"host": host_params.name, "target": target.name}
            identity = identities[target.name]
            record = fill_record(wb, host_params, target, identity)
            if record is None and identity in shared and shared[identity]["path"] == target.path:
                copies.append((host_params, target, identity))
                done.append({**status, "action": "fill reused"})
            elif record is not None:
                done.append({**status, "action": "fill reused"})
                if _shareable(identity):
                    shared.setdefault(identity, record)
            elif settings.fill and target.writable and data is not None:
                wanted.append(target)
                if _shareable(identity):
                    shared.setdefault(identity, {"host": host_params.name, "path": target.path})  # filled below
            elif target.name in settings.filled_elsewhere:
                done.append({**status, "action": "filled elsewhere"})
            elif target.create and not settings.fill:
                done.append({**status, "action": "laid out"})  # the engine's layout wrote it with its data
            else:
                done.append({**status, "action": "unfilled"})
        if wanted:
            plans.append((host_params, wanted, identities))
    unfilled = [d for d in done if d["action"] == "unfilled"]
    reads = _reads(wb)
    if unfilled and reads:
        message = unfilled_message(unfilled, reads, settings.unfilled)
        if settings.unfilled == "refuse":
            wb.store.write_json(STATUS_FILE, {"engine": engine.name, "data": data, "targets": done,
                                              "unfilled_read_by": reads})
            raise CheckFailed(message)
        warnings.warn(message, UnfilledTargetWarning, stacklevel=2)
    for host_params, wanted, identities in plans:
        for record in _fill_host(wb, host_params, wanted, identities):
            done.append({"host": host_params.name, "target": record["target"], "action": "filled",
                         "written_bytes": record["written_bytes"], "seconds": record["seconds"]})
            if _shareable(record["identity"]):
                shared[record["identity"]] = record
    for host_params, target, identity in copies:
        record = {**shared[identity], "host": host_params.name, "filled_from": shared[identity]["host"]}
        wb.store.write_json(record_path(host_params.name, target.name), record)
    wb.store.write_json(STATUS_FILE, {"engine": engine.name, "data": data, "targets": done,
                                      "unfilled_read_by": reads if unfilled else []})
    return done


def _fill_host(wb: Workbench, host_params: HostParams, wanted: list[TargetParams], identities: dict[str, str]
               ) -> list[dict[str, Any]]:
    """Fill ``wanted`` on one host by the engine, read a sample of each back and record it; the records."""
    engine = get_engine(wb.cfg.engine)
    host = wb.host(host_params)
    sizes = target_sizes(host, wanted)
    working = {t.name: t.size_bytes or sizes[t.path] for t in wanted}
    for target in wanted:
        if not isinstance(working[target.name], int):
            raise RemoteError(f"{host_params.name}: the size of {target.name} ({target.path}) cannot be read "
                              f"({working[target.name]}): nothing was filled")
    results = engine.fill_targets(wb, host_params, wanted, working)
    completed = datetime.now(timezone.utc).isoformat(timespec="seconds")
    records = []
    for target in wanted:
        record = {"host": host_params.name, "target": target.name, "path": target.path,
                  "size_bytes": target.size_bytes, "working_set_bytes": working[target.name],
                  "identity": identities[target.name], "engine": engine.name, "data": engine.fill_data(wb.cfg),
                  **results[target.name], "completed_utc": completed,
                  "sample": read_sample(host, target, working[target.name])}
        wb.store.write_json(record_path(host_params.name, target.name), record)
        records.append(record)
    return records


def unfilled_message(unfilled: list[dict[str, Any]], reads: list[str], mode: str) -> str:
    """The refusal (or warning) of reads on targets never filled, naming each and what to do."""
    head = ("nothing was measured: " if mode == "refuse" else "WARNING: ") + (
        f"the workloads {', '.join(reads)} read targets never written by this campaign; an all-flash array answers "
        "reads of never-written blocks from its metadata, without touching flash (fantasy IOPS):")
    lines = [f"target {d['target']} on host {d['host']} is not filled" for d in unfilled]
    tail = ("fill it (allow_write: true; precondition.fill: true, the default), or name it in "
            "precondition.filled_elsewhere if it holds data written otherwise (a copy of the database)"
            + (", or set precondition.unfilled: warn" if mode == "refuse" else ""))
    return head + "\n- " + "\n- ".join(lines) + "\n" + tail


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
    engine = get_engine(cfg.engine)
    if not settings.write_rounds or not engine.uses_targets:
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


def precondition_targets(wb: Workbench) -> list[dict[str, Any]]:
    """The whole precondition: the fill (:func:`fill_targets`), then the write workloads' rounds
    (:func:`run_write_rounds`); what the fill did, one dict per host and target."""
    done = fill_targets(wb)
    run_write_rounds(wb)
    return done


def load_status(cfg) -> dict[str, Any]:
    """The campaign's ``precondition.json`` ({} before any precondition)."""
    return read_status(cfg.resolved().results_path())


def read_status(root: Path | None) -> dict[str, Any]:
    """``precondition.json`` of the campaign's folder ``root`` ({} when there is none, or it is broken)."""
    try:
        status = json.loads((root / STATUS_FILE).read_text()) if root is not None else {}
    except (OSError, ValueError):
        return {}
    return status if isinstance(status, dict) else {}


def rounds_table(status: dict[str, Any]) -> pd.DataFrame:
    """The write rounds of ``status`` (:func:`load_status`), one row per workload and round: the
    round, IOPS and mean latency, the last window's mean, first and last round (SNIA's window)
    and verdict, and for the rounds of the window the least-squares line through them
    (``fit_iops``: it passes through the window's mean at its middle round, rising by the window's
    slope per round); empty when there were none."""
    rows = []
    for workload, done in (status.get("write_rounds") or {}).items():
        window = done.get("window") or {}
        first, last = (window.get("rounds") or [None, None])
        for r in done["rounds"]:
            inside = first is not None and first <= r["round"] <= last
            rows.append({"workload": workload, "round": r["round"], "iops": r["iops"], "lat_mean_ms": r["lat_mean_ms"],
                         "window_mean_iops": window.get("mean_iops"), "window_first": first, "window_last": last,
                         "fit_iops": (window["mean_iops"] + window["slope_iops_per_round"] * (r["round"] - (first + last) / 2)
                                      if inside else None),
                         "steady": done["steady"]})
    return pd.DataFrame(rows)


def _record(root: Path | None, host: str, target: str) -> dict[str, Any] | None:
    """The fill record of ``target`` on ``host`` under the campaign's folder ``root``, or None."""
    try:
        return json.loads((root / record_path(host, target)).read_text())
    except (OSError, ValueError, TypeError):
        return None


#: the fill table's words for what the precondition did to a target
FILL_STATUS = {"filled": "filled by this campaign", "fill reused": "filled by this campaign (an earlier run)",
               "filled elsewhere": "filled elsewhere (declared)", "laid out": "laid out by the engine (not recorded)",
               "unfilled": "not filled: reads warned"}


def fill_table(root: Path | None, status: dict[str, Any]):
    """The fill per host and target (a :class:`flashpoc.tables.Table`): what was done
    (:data:`FILL_STATUS`), the bytes the engine wrote, the data and its reducibility, the engine,
    when, and the sample read back: its checksum and its size after ``gzip -1``."""
    from . import tables

    rows = []
    for done in status.get("targets", []):
        record = _record(root, done["host"], done["target"]) if done["action"] in ("filled", "fill reused") else None
        sample = (record or {}).get("sample") or {}
        said = FILL_STATUS.get(done["action"], done["action"])
        if done["action"] == "unfilled" and not status.get("unfilled_read_by"):
            said = "not filled (no workload reads it)"
        if record is None and done["action"] in ("filled", "fill reused"):
            said += " (its record cannot be read)"
        elif record and record.get("filled_from"):
            said += f" (from {record['filled_from']}: the same LUN)"
        rows.append({"Host": done["host"], "Target": done["target"], "Fill": said,
                     "Written": tables.size((record or {}).get("written_bytes")),
                     "Data (reducibility)": tables.text((record or {}).get("data")),
                     "Engine": tables.text((record or {}).get("engine")),
                     "Filled (UTC)": tables.text((record or {}).get("completed_utc")),
                     "Sample SHA-256": tables.text(sample["sha256"][:16] + "...") if sample.get("sha256") else tables.MISSING,
                     "Sample after gzip -1 (%)": tables.pct(100 * sample["gzip_bytes"] / sample["bytes"])
                     if sample.get("gzip_bytes") and sample.get("bytes") else tables.MISSING})
    return tables.table(rows, caption="Fill of each target before measuring", text_columns=[
        "Host", "Target", "Fill", "Data (reducibility)", "Engine", "Filled (UTC)", "Sample SHA-256"], notes=[
        "Written: the bytes the engine's own output says it wrote. Sample: 1 MiB read back at the start, middle "
        "and end of the working set; its SHA-256 (first 16 of 64 hex digits, all of it in "
        f"`{RECORD_DIR}/<host>/<target>.json`) and its size after gzip -1 in % of its own: about 100 % is "
        "incompressible data, 50 % compresses 2:1."])


def rounds_display(status: dict[str, Any]):
    """SNIA's steady-state determination of the write rounds, one row per write workload (a
    :class:`flashpoc.tables.Table`): its rounds, the window, its mean, the data and slope
    excursions measured against those allowed, the least-squares line and the verdict."""
    from . import tables

    rows = []
    for name, done in (status.get("write_rounds") or {}).items():
        window = done.get("window") or {}
        first, last = window.get("rounds") or [None, None]
        mean, slope = window.get("mean_iops"), window.get("slope_iops_per_round")
        rows.append({"Workload": name, "Rounds (s each)": f"{len(done['rounds'])} ({done['round_s']})",
                     "Threads": tables.count(done["threads"]),
                     "Window (rounds)": f"{first}-{last}" if first else tables.MISSING,
                     "Window mean (IOPS)": tables.count(mean),
                     "Data excursion, allowed / measured (%)": f"{window['allowed_excursion_pct']:g} / "
                     f"{window['excursion_pct']:.1f}" if window else tables.MISSING,
                     "Slope excursion, allowed / measured (%)": f"{window['allowed_slope_excursion_pct']:g} / "
                     f"{window['slope_excursion_pct']:.1f}" if window else tables.MISSING,
                     "Least-squares line (IOPS per round)": f"{slope:+,.1f}" if slope is not None else tables.MISSING,
                     "SNIA": ("steady" if done["steady"] else "NOT steady") if window else
                     f"no verdict (fewer than {WINDOW} rounds)"})
    return tables.table(rows, caption="Preconditioning rounds: SNIA's steady-state determination", text_columns=[
        "Workload", "Rounds (s each)", "Window (rounds)", "SNIA"], notes=[
        f"Steady when, over the last {WINDOW} rounds, max - min is within {100 * MAX_EXCURSION:g} % of their mean "
        f"and the least-squares line's rise across them within {100 * MAX_SLOPE_EXCURSION:g} % of it; the rounds "
        "stop once steady, at most `precondition.write_rounds`."])


def precondition_items(root: Path | None, status: dict[str, Any], *, color_domain=None, chart=None) -> list[Any]:
    """What notebook 02 and the report show of the precondition, in order: the fill table
    (:func:`fill_table`), then with write rounds their convergence chart
    (:func:`flashpoc.chart.precondition_rounds`, or ``chart`` when already drawn) and SNIA's
    determination (:func:`rounds_display`); [] before any precondition."""
    if not status:
        return []
    items: list[Any] = [fill_table(root, status)] if status.get("targets") else []
    rounds = rounds_table(status)
    if not rounds.empty:
        if chart is None:
            from .chart import precondition_rounds

            chart = precondition_rounds(rounds, color_domain=color_domain)
        items += [chart, rounds_display(status)]
    return items


def status_text(root: Path | None, status: dict[str, Any]) -> str:
    """The precondition in words for the report and notebook 02: per host and target what the
    fill did (with its record under ``root``: the engine, the data, the bytes written, when, and
    how well the sample compresses), then each write workload's rounds and SNIA's verdict."""
    from . import tables

    if not status:
        return "not recorded (measured before the precondition existed, or nothing measured yet)."
    parts = []
    for done in status.get("targets", []):
        where = f"{done['target']} on {done['host']}"
        if done["action"] in ("filled", "fill reused"):
            record = _record(root, done["host"], done["target"])
            if record is None:
                parts.append(f"{where}: filled (its record cannot be read)")
                continue
            sample = record.get("sample") or {}
            ratio = (f"; a {tables.size(sample['bytes'])} sample compresses to "
                     f"{100 * sample['gzip_bytes'] / sample['bytes']:.0f} % with gzip -1"
                     if sample.get("gzip_bytes") and sample.get("bytes") else "")
            parts.append(f"{where}: {tables.size(record.get('written_bytes'))} written by {record.get('engine')} "
                         f"({record.get('data')}) on {record.get('completed_utc')}{ratio}")
        elif done["action"] == "filled elsewhere":
            parts.append(f"{where}: holds data written outside flashpoc (`precondition.filled_elsewhere`)")
        elif done["action"] == "laid out":
            parts.append(f"{where}: laid out by the engine when created (`precondition.fill: false`), not recorded")
        else:
            parts.append(f"{where}: NOT filled: its reads may have been answered from the array's metadata, without "
                         "touching flash (`precondition.unfilled: warn`)")
    for name, done in (status.get("write_rounds") or {}).items():
        window = done.get("window")
        said = (f"steady by SNIA's rule over rounds {window['rounds'][0]}-{window['rounds'][1]} (excursion "
                f"{window['excursion_pct']:.1f} % of {window['allowed_excursion_pct']:g} % allowed, slope excursion "
                f"{window['slope_excursion_pct']:.1f} % of {window['allowed_slope_excursion_pct']:g} %)"
                if window and window["steady"] else "not steady by SNIA's rule within the bound"
                if window else "too few rounds for SNIA's 5-round window")
        again = (f" (measured again after the targets were filled again; the earlier fill's rounds are kept in "
                 f"`{done['superseded']}`)" if done.get("superseded") else "")
        parts.append(f"{name}: {len(done['rounds'])} preconditioning rounds of {done['round_s']} s at "
                     f"{threads_text(done['threads'])}{again}, {said}")
    return "; ".join(parts) + "." if parts else "nothing to fill."
