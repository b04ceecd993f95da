"""The texts of the progress (pure): shared by the notebook display and the terminal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flashpoc.core.registry import get_engine
from flashpoc.core.tables import number, threads_text


def engine_words(name: Any) -> dict[str, str]:
    """What the points of the engine ``name`` count and measure, in words (:class:`~flashpoc.engines.base.Engine`):
    ``unit`` (threads, virtual users), ``rate`` and ``rate_word`` (the row's column and its name:
    ``iops``/IOPS, ``nopm``/NOPM), ``latency`` and ``latency_word`` (the row's latency column and
    its name: ``neword_p95_ms``/NEWORD p95); fio's words for an engine not registered (or not named)."""
    try:
        engine = get_engine(str(name))
    except KeyError:
        return {"unit": "threads", "rate": "iops", "rate_word": "IOPS", "latency": "lat_mean_ms",
                "latency_word": "mean latency"}
    return {"unit": engine.threads_word, "rate": engine.rate_column, "rate_word": engine.rate_word,
            "latency": engine.latency_column, "latency_word": _latency_word(engine.latency_column)
            if engine.latency_column != "lat_mean_ms" else "mean latency"}


def point_legend(name: Any) -> str:
    """What each point line of the engine ``name`` says (:func:`point_line`), for the terminal's first lines."""
    words = engine_words(name)
    if words["rate"] == "iops":
        return "each point: done/total, workload, threads, IOPS (MiB/s for large I/Os), mean latency | elapsed, ETA"
    return (f"each point: done/total, workload, {words['unit']}, {words['rate_word']}, {words['latency_word']} "
            "| elapsed, ETA")


def duration_text(seconds: float) -> str:
    """``4:05`` (minutes and seconds), ``1:04:05`` from an hour up."""
    seconds = int(round(seconds))
    if seconds < 3600:
        return f"{seconds // 60}:{seconds % 60:02d}"
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def count_text(state: dict[str, Any]) -> str:
    """``3/6``, ``3/<=7`` (at most 7), or ``3`` (no bound known)."""
    if state.get("total") is not None:
        return f"{state['done']}/{state['total']}"
    if state.get("bound") is not None:
        return f"{state['done']}/<={state['bound']}"
    return str(state["done"])


def time_text(state: dict[str, Any], *, short: bool = False) -> str:
    """``0:04 elapsed, 0:05 left`` (``up to 0:07 left`` for a bound; nothing left once closed);
    ``short`` (a terminal's line): ``0:04, ETA 0:05`` (``ETA <=0:07``)."""
    elapsed, left = duration_text(state["elapsed_s"]), state.get("left_s")
    bound = state.get("left_is_bound")
    if short:
        return elapsed + ("" if left is None else f", ETA {'<=' if bound else ''}{duration_text(left)}")
    return f"{elapsed} elapsed" + ("" if left is None else f", {'up to ' if bound else ''}{duration_text(left)} left")


def summary_text(state: dict[str, Any]) -> str:
    """The counts and times in words: ``3 of 6 points (1 stored, reused), 0:04 elapsed, 0:05 left``."""
    done, reused = state["done"], state.get("reused") or 0
    if state.get("closed"):
        return (f"{done} point{'' if done == 1 else 's'}"
                + (f" ({reused} stored, reused)" if reused else "") + f" in {duration_text(state['elapsed_s'])}")
    if state.get("total") is not None:
        text = f"{done} of {state['total']} points"
    elif state.get("bound") is not None:
        text = f"{done} point{'' if done == 1 else 's'} so far, at most {state['bound']}"
    else:
        text = f"{done} point{'' if done == 1 else 's'} so far"
    if reused:
        text += f" ({reused} stored, reused)"
    return f"{text}, {time_text(state)}"


def point_numbers(row: dict[str, Any]) -> dict[str, Any]:
    """What a progress line says of a point's row: workload, threads, IOPS, MiB/s, mean latency
    (ms), reused, re-measured, and whether its intervals were steady; for an engine whose rate is
    not IOPS (HammerDB), its unit, rate and latency instead (:func:`engine_words`)."""
    words = engine_words(row.get("engine"))
    numbers = {"workload": row.get("workload"), "threads": row.get("threads"), "iops": number(row.get("iops")),
               "bw_mibps": number(row.get("bw_mibps")), "lat_mean_ms": number(row.get("lat_mean_ms")),
               "reused": bool(row.get("reused")), "repeat": int(row.get("repeat") or 0),
               "steady": row.get("interval_steady")}
    if words["rate"] != "iops":
        numbers.update(unit=words["unit"], rate=number(row.get(words["rate"])), rate_word=words["rate_word"],
                       latency=number(row.get(words["latency"])), latency_word=words["latency_word"])
    return numbers


def _latency_word(column: str) -> str:
    """``neword_p95_ms`` -> ``NEWORD p95`` (the latency column's name in words)."""
    parts = column.removesuffix("_ms").split("_")
    return " ".join([parts[0].upper(), *parts[1:]])


def _rate_parts(point: dict[str, Any]) -> list[str] | None:
    """``12,345 NOPM``, ``NEWORD p95 3.210 ms`` of an engine whose rate is not IOPS, else None."""
    if not point.get("rate_word"):
        return None
    parts = [] if point.get("rate") is None else [f"{point['rate']:,.0f} {point['rate_word']}"]
    if point.get("latency") is not None:
        parts.append(f"{point['latency_word']} {point['latency']:.3f} ms")
    return parts


def numbers_text(point: dict[str, Any]) -> str:
    """``randread-4k, 2 threads: 23,592 IOPS, 92.2 MiB/s, 0.084 ms`` (and what qualifies them)."""
    threads, unit = point.get("threads"), point.get("unit", "threads")
    threads = threads_text(int(threads), unit) if isinstance(threads, (int, float)) else str(threads)
    text = f"{point.get('workload')}, {threads}: "
    parts = _rate_parts(point) or []
    if point.get("iops") is not None:
        parts.append(f"{point['iops']:,.0f} IOPS")
    if point.get("bw_mibps") is not None:
        parts.append(f"{point['bw_mibps']:,.1f} MiB/s")
    if point.get("lat_mean_ms") is not None:
        parts.append(f"{point['lat_mean_ms']:.3f} ms")
    text += ", ".join(parts) or "no numbers"
    notes = [note for note, on in (("stored, reused", point.get("reused")), ("re-measured", point.get("repeat")),
                                   ("not steady", point.get("steady") is False)) if on]
    return text + (f" ({', '.join(notes)})" if notes else "")


LARGE_IO_BYTES = 64 * 1024
"""I/Os of at least this size are shown in MiB/s too: sequential workloads are read in MB/s."""


def point_line(event: dict[str, Any]) -> str:
    """The terminal's line of a point event: phase, count, workload, threads, IOPS (and MiB/s
    for large I/Os), mean latency, times."""
    point = event["point"]
    threads = point.get("threads")
    unit = point.get("unit", "threads")
    threads = threads_text(int(threads), unit) if isinstance(threads, (int, float)) else str(threads)
    iops, mibps, lat = point.get("iops"), point.get("bw_mibps"), point.get("lat_mean_ms")
    numbers = _rate_parts(point)
    if numbers is not None:  # the engine's own rate and latency: 12,345 NOPM, NEWORD p95 3.210 ms
        numbers = [", ".join(numbers)]
    else:
        numbers = [f"{iops:>9,.0f} IOPS" if iops is not None else f"{'':>14}"]
        if iops and mibps is not None and mibps * 1024**2 / iops >= LARGE_IO_BYTES:
            numbers.append(f"{mibps:,.0f} MiB/s" if mibps >= 100 else f"{mibps:,.1f} MiB/s")
        numbers.append(f"{lat:>6.3f} ms" if lat is not None else f"{'':>9}")
    notes = [note for note, on in (("re-measured", point.get("repeat")), ("not steady", point.get("steady") is False))
             if on]
    return (f"[{event['phase']}] {count_text(event):>6} {point.get('workload')!s:<13} {threads:>10} "
            f"{' '.join(numbers)}{' (' + ', '.join(notes) + ')' if notes else ''} | {time_text(event, short=True)}")


def reused_line(event: dict[str, Any], count: int) -> str:
    """The terminal's line for ``count`` stored points reused one after the other."""
    return (f"[{event['phase']}] {count_text(event):>6} {count} stored point{'' if count == 1 else 's'} reused"
            f" | {time_text(event, short=True)}")


def status_line(event: dict[str, Any], elapsed_s: float | None = None) -> str:
    """The live line of a terminal: a bar, the count, the times and what runs now."""
    state = dict(event, elapsed_s=event["elapsed_s"] if elapsed_s is None else elapsed_s)
    limit = state.get("total") if state.get("total") is not None else state.get("bound")
    width = 20
    filled = min(width, round(width * state["done"] / limit)) if limit else 0
    bar = "#" * filled + ("." if limit else "?") * (width - filled)
    now = event.get("text") or (f"measuring {event['workload']} at "
                                f"{threads_text(event['threads'], event.get('unit', 'threads'))}"
                                if event.get("event") == "begin" else "")
    line = f"[{state['phase']}] [{bar}] {count_text(state)} elapsed {time_text(state, short=True)}"
    return f"{line} | {now}" if now else line


def end_line(event: dict[str, Any]) -> str:
    """The terminal's line at the end of a loop: ``[sweep] sweep: 6 points (2 stored, reused) in 0:00:09``."""
    return f"[{event['phase']}] {event['title']}: {summary_text(dict(event, closed=True))}"


def read_events(path: Path, offset: int) -> tuple[list[dict[str, Any]], int]:
    """The whole events appended to ``path`` from byte ``offset``, and the offset after them (a
    line still being written is left for the next call)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except FileNotFoundError:
        return [], offset
    end = data.rfind(b"\n") + 1
    events = []
    for line in data[:end].splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events, offset + end
