"""What the precondition did, read back: its status, the fill and rounds tables, the report's items and text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
import pandas as pd

from flashpoc.core.tables import threads_text
from flashpoc.campaign.precondition.fills import RECORD_DIR, STATUS_FILE, record_path
from flashpoc.campaign.precondition.rounds import MAX_EXCURSION, MAX_SLOPE_EXCURSION, WINDOW


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


def written_text(record: dict[str, Any]) -> str:
    """The bytes a fill record says were written: '256 MiB', or, where the engine counted several
    targets together (``written_with``), '512 MiB to sd1, sd2 together'."""
    from flashpoc.core import tables

    together = [t for t in record.get("written_with") or [] if t]
    said = tables.size(record.get("written_bytes"))
    return f"{said} to {', '.join(together)} together" if len(together) > 1 else said


def fill_table(root: Path | None, status: dict[str, Any]):
    """The fill per host and target (a :class:`flashpoc.core.tables.Table`): what was done
    (:data:`FILL_STATUS`), the bytes the engine wrote, the data and its reducibility, the engine,
    when, and the sample read back: its checksum and its size after ``gzip -1``."""
    from flashpoc.core import tables

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
                     "Written": written_text(record or {}),
                     "Data (reducibility)": tables.text((record or {}).get("data")),
                     "Engine": tables.text((record or {}).get("engine")),
                     "Filled (UTC)": tables.utc((record or {}).get("completed_utc")),
                     "Sample SHA-256": tables.text(sample["sha256"][:16] + "...") if sample.get("sha256") else tables.MISSING,
                     "Sample after gzip -1 (%)": tables.pct(100 * sample["gzip_bytes"] / sample["bytes"])
                     if sample.get("gzip_bytes") and sample.get("bytes") else tables.MISSING})
    return tables.table(rows, caption="Fill of each target before measuring", text_columns=[
        "Host", "Target", "Fill", "Data (reducibility)", "Engine", "Filled (UTC)", "Sample SHA-256"], notes=[
        "Written: the bytes the engine's own output says it wrote to the target (vdbench: its SD report). Sample: "
        "1 MiB read back at the start, middle and end of the working set; its SHA-256 (first 16 of 64 hex digits, all of it in "
        f"{RECORD_DIR}/<host>/<target>.json) and its size after gzip -1 in % of its own: about 100 % is "
        "incompressible data, 50 % compresses 2:1."])


def rounds_display(status: dict[str, Any]):
    """SNIA's steady-state determination of the write rounds, one row per write workload (a
    :class:`flashpoc.core.tables.Table`): its rounds, the window, its mean, the data and slope
    excursions measured against those allowed, the least-squares line and the verdict."""
    from flashpoc.core import tables

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
        "stop once steady, at most precondition.write_rounds."])


def status_text(root: Path | None, status: dict[str, Any]) -> str:
    """The precondition in words for the report and notebook 02: per host and target what the
    fill did (with its record under ``root``: the engine, the data, the bytes written, when, and
    how well the sample compresses), then each write workload's rounds and SNIA's verdict."""
    from flashpoc.core import tables

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
            parts.append(f"{where}: {written_text(record)} written by {record.get('engine')} "
                         f"({record.get('data')}) on {tables.utc(record.get('completed_utc'))} UTC{ratio}")
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
