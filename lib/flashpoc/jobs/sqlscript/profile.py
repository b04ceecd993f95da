"""The AWR Load Profile, the buffer waits by class and the I/O per file of a DBA's job (pure:
snapshot rows in, numbers out).

What the AWR report prints at its top, per second and per transaction, for the counters that show
what a write-heavy job did to the database: redo size, block changes, physical writes, executes
and transactions. They are the deltas of ``DBA_HIST_SYSSTAT`` (``STATS$SYSSTAT``) counters
between the run's two snapshots (:func:`flashpoc.oracle.db.awr_rows`' ``sysstat`` rows), over
the snapshot interval, as awrrpt.sql computes them: a transaction is a ``user commits`` or a
``user rollbacks``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flashpoc.core.damage import Loss, note_losses
from flashpoc.oracle.metrics import elapsed_seconds

LOAD_PROFILE: dict[str, tuple[str, tuple[str, ...]]] = {
    "redo_bytes": ("Redo size (bytes)", ("redo size",)),
    "block_changes": ("Block changes", ("db block changes",)),
    "physical_write_blocks": ("Physical write (blocks)", ("physical writes",)),
    "executes": ("Executes (SQL)", ("execute count",)),
    "transactions": ("Transactions", ("user commits", "user rollbacks")),
}
"""Row key prefix -> (the Load Profile's label, the sysstat counters summed)."""


def load_profile(rows: Mapping[str, Sequence[Mapping[str, Any]]], begin_snap: int, end_snap: int,
                 source: str = "awr_rows.json") -> dict[str, Any]:
    """The Load Profile of the interval: ``<key>_per_s`` and ``<key>_per_txn`` for each key of
    :data:`LOAD_PROFILE` (``transactions_per_s`` only); ``_per_txn`` None when there was no
    transaction. A counter missing from a snapshot's rows, or that went down (an instance restart),
    loses its figures, named in the ``damaged`` column (:mod:`flashpoc.core.damage`; ``source``: the
    rows' file in the stored run)."""
    elapsed = elapsed_seconds(rows.get("snapshot", []), int(begin_snap), int(end_snap))
    values: dict[tuple[str, int], float] = {}
    for row in rows.get("sysstat", []):
        values[(row["stat_name"], int(row["snap_id"]))] = float(row["value"])
    losses: list[Loss] = []

    def delta(key: str, stats: tuple[str, ...]) -> float | None:
        total = 0.0
        lost = (f"{key}_per_s",) + ((f"{key}_per_txn",) if key != "transactions" else ())
        for stat in stats:
            begin, end = values.get((stat, int(begin_snap))), values.get((stat, int(end_snap)))
            if begin is None or end is None:
                if stat == "user rollbacks":  # a site reading only commits: transactions are its commits
                    continue
                snap = begin_snap if begin is None else end_snap
                losses.append(Loss(source, f"no {stat!r} row of snapshot {snap}", lost))
                return None
            if end < begin:
                losses.append(Loss(source, f"{stat!r} went down from snapshot {begin_snap} to {end_snap} "
                                           "(an instance restart?)", lost))
                return None
            total += end - begin
        return total

    deltas = {key: delta(key, stats) for key, (_, stats) in LOAD_PROFILE.items()}
    transactions = deltas["transactions"]
    out: dict[str, Any] = {}
    for key, value in deltas.items():
        out[f"{key}_per_s"] = None if value is None else value / elapsed
        if key != "transactions":
            out[f"{key}_per_txn"] = None if value is None or not transactions else value / transactions
    if transactions is None:  # no transaction count: no figure per transaction, said
        losses.append(Loss(source, "no transaction count", tuple(k for k in out if k.endswith("_per_txn"))))
    return note_losses(out, losses) if losses else out


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


FILE_COUNTERS: tuple[str, ...] = ("phyrds", "phywrts", "readtim", "phyblkrd", "wait_count", "time")
"""The ``DBA_HIST_FILESTATXS``/``DBA_HIST_TEMPSTATXS`` (``STATS$``) counters a file's row is made of."""


def file_io(rows: Mapping[str, Sequence[Mapping[str, Any]]], begin_snap: int, end_snap: int) -> list[dict[str, Any]]:
    """The AWR report's "File IO Stats" of the interval, data files (``filestatxs``) and temp files
    (``tempstatxs``): per file with I/O or buffer waits, its ``tablespace``, ``filename``, ``temp``
    (a temp file),
    ``reads``, ``reads_per_s``, ``avg_read_ms`` (``readtim`` in centiseconds over the reads),
    ``blocks_per_read``, ``writes``, ``writes_per_s``, ``buffer_waits`` (``wait_count``) and
    ``avg_buffer_wait_ms`` (``time`` in centiseconds over them); the read averages are None
    without reads, the buffer wait average 0 without waits (as awrrpt.sql prints them).
    Hottest first: by reads + writes (the order of the report's Tablespace IO Stats), then
    buffer waits, descending. As in awrrpt.sql a file without a begin row (added during the run)
    counts from zero; a file whose counters went down (an instance restart) is left out."""
    elapsed = elapsed_seconds(rows.get("snapshot", []), int(begin_snap), int(end_snap))
    values: dict[tuple[str, str, str], dict[int, dict[str, float]]] = {}
    for table in ("filestatxs", "tempstatxs"):
        for row in rows.get(table, []):
            counters = {c: float(row[c] or 0) for c in FILE_COUNTERS}
            values.setdefault((table, row["tsname"], row["filename"]), {})[int(row["snap_id"])] = counters
    out = []
    for (table, tablespace, filename), snaps in values.items():
        end = snaps.get(int(end_snap))
        begin = snaps.get(int(begin_snap), dict.fromkeys(FILE_COUNTERS, 0.0))
        if end is None or any(end[c] < begin[c] for c in FILE_COUNTERS):
            continue
        d = {c: end[c] - begin[c] for c in FILE_COUNTERS}
        if d["phyrds"] + d["phywrts"] + d["wait_count"] == 0:
            continue
        out.append({"tablespace": tablespace, "filename": filename, "temp": table == "tempstatxs",
                    "reads": int(d["phyrds"]), "reads_per_s": d["phyrds"] / elapsed,
                    "avg_read_ms": d["readtim"] * 10 / d["phyrds"] if d["phyrds"] else None,
                    "blocks_per_read": d["phyblkrd"] / d["phyrds"] if d["phyrds"] else None,
                    "writes": int(d["phywrts"]), "writes_per_s": d["phywrts"] / elapsed,
                    "buffer_waits": int(d["wait_count"]),
                    "avg_buffer_wait_ms": d["time"] * 10 / d["wait_count"] if d["wait_count"] else 0.0})
    return sorted(out, key=lambda r: (-(r["reads"] + r["writes"]), -r["buffer_waits"], r["filename"]))
