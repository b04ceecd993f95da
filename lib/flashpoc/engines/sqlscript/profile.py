"""The AWR Load Profile and the buffer waits by class of a DBA's job (pure: snapshot rows in,
numbers out).

What the AWR report prints at its top, per second and per transaction, for the counters that show
what a write-heavy job did to the database: redo size, block changes, physical writes, executes
and transactions. They are the deltas of ``DBA_HIST_SYSSTAT`` (``STATS$SYSSTAT``) counters
between the run's two snapshots (:func:`flashpoc.run.oracle.awr_rows`' ``sysstat`` rows), over
the snapshot interval, as awrrpt.sql computes them: a transaction is a ``user commits`` or a
``user rollbacks``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...oracle_metrics import elapsed_seconds

LOAD_PROFILE: dict[str, tuple[str, tuple[str, ...]]] = {
    "redo_bytes": ("Redo size (bytes)", ("redo size",)),
    "block_changes": ("Block changes", ("db block changes",)),
    "physical_write_blocks": ("Physical write (blocks)", ("physical writes",)),
    "executes": ("Executes (SQL)", ("execute count",)),
    "transactions": ("Transactions", ("user commits", "user rollbacks")),
}
"""Row key prefix -> (the Load Profile's label, the sysstat counters summed)."""


def load_profile(rows: Mapping[str, Sequence[Mapping[str, Any]]], begin_snap: int, end_snap: int) -> dict[str, Any]:
    """The Load Profile of the interval: ``<key>_per_s`` and ``<key>_per_txn`` for each key of
    :data:`LOAD_PROFILE` (``transactions_per_s`` only), None where a counter is missing or went
    down (an instance restart) or there was no transaction."""
    elapsed = elapsed_seconds(rows.get("snapshot", []), int(begin_snap), int(end_snap))
    values: dict[tuple[str, int], float] = {}
    for row in rows.get("sysstat", []):
        values[(row["stat_name"], int(row["snap_id"]))] = float(row["value"])

    def delta(stats: tuple[str, ...]) -> float | None:
        total = 0.0
        for stat in stats:
            begin, end = values.get((stat, int(begin_snap))), values.get((stat, int(end_snap)))
            if begin is None or end is None:
                if stat == "user rollbacks":  # a site reading only commits: transactions are its commits
                    continue
                return None
            if end < begin:
                return None
            total += end - begin
        return total

    deltas = {key: delta(stats) for key, (_, stats) in LOAD_PROFILE.items()}
    transactions = deltas["transactions"]
    out: dict[str, Any] = {}
    for key, value in deltas.items():
        out[f"{key}_per_s"] = None if value is None else value / elapsed
        if key != "transactions":
            out[f"{key}_per_txn"] = None if value is None or not transactions else value / transactions
    return out


def buffer_waits(rows: Mapping[str, Sequence[Mapping[str, Any]]], begin_snap: int, end_snap: int) -> list[dict[str, Any]]:
    """The AWR report's "Buffer Wait Statistics" of the interval: per block class with waits, its
    ``waits``, ``time_s`` and ``avg_ms`` (``DBA_HIST_WAITSTAT``/``STATS$WAITSTAT`` deltas; time in
    centiseconds), by time then waits, descending, as awrrpt.sql orders them. ``undo header`` and
    ``undo block`` at the top is how the seed found UNDO to be the hot spot. A class whose counters
    went down (an instance restart) is left out."""
    values: dict[tuple[str, int], tuple[float, float]] = {}
    for row in rows.get("waitstat", []):
        values[(row["class"], int(row["snap_id"]))] = (float(row["wait_count"]), float(row["time"]))
    out = []
    for cls in sorted({c for c, _ in values}):
        begin, end = values.get((cls, int(begin_snap))), values.get((cls, int(end_snap)))
        if begin is None or end is None or end[0] < begin[0] or end[1] < begin[1]:
            continue
        waits, centiseconds = end[0] - begin[0], end[1] - begin[1]
        if waits > 0:
            out.append({"class": cls, "waits": int(waits), "time_s": centiseconds / 100,
                        "avg_ms": centiseconds * 10 / waits})
    return sorted(out, key=lambda r: (-r["time_s"], -r["waits"]))
