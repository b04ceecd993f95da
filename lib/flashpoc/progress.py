"""Where a probe or a sweep is while it runs, in the notebook and in ``flashpoc run``'s terminal.

One :class:`Progress` follows one loop of points (the probe, its plateau on fewer hosts, the
sweep). It shows itself in two places:

- in the notebook (JupyterLab, or the kernel of a batch run): one display updated in place,
  text and HTML, not a widget, so that an executed notebook opened later still shows the final
  state;
- in the terminal of ``flashpoc run``: when ``$FLASHPOC_PROGRESS`` names a file, every event is
  appended to it as one JSON line, which :mod:`flashpoc.cli` follows while papermill runs the
  notebook and prints with :func:`point_line`, :func:`status_line` and :func:`end_line`.

It says what is known: points done of the total, or of at most N when only a bound is known (the
adaptive probe stops as soon as IOPS stop rising), the time elapsed, and the time left from the
mean time of the points measured so far: none before a point was measured, and an upper bound,
not an estimate, when only the number of points is bounded. Stored points that are reused count
as done, not in the time per point.
"""

from __future__ import annotations

import numbers

import html
import json
import os
import textwrap
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .tables import number

#: the environment variable naming the file the events are appended to (set by ``flashpoc run``)
EVENTS_ENV = "FLASHPOC_PROGRESS"
#: seconds between two redraws of the notebook display for a status change (points always redraw)
REDRAW_S = 1.0


class Progress:
    """The progress of one loop of points.

    Args:
        phase: ``"probe"`` or ``"sweep"`` (the terminal's prefix).
        title: what the loop measures, e.g. ``"probe randread-4k (adaptive)"``.
        total: the points it measures, when known.
        bound: the most points it may measure, when only that is known.
        detail: lines that say what the loop will do (shown once, at its start).
        enabled: show it in the notebook (the terminal's events are written whatever this says).
        engine: the campaign's engine (:class:`flashpoc.engines.base.Engine`): its word for what
            ``threads`` count (HammerDB's virtual users); threads when not given.

    Call :meth:`begin` before a point runs, :meth:`point` with its row when it is done (or
    reused), :meth:`advance` when an engine reports points done before their rows exist (vdbench
    runs a whole thread list in one invocation), :meth:`status` for what the engine says in the
    meantime, :meth:`close` at the end (or use it as a context manager).
    """

    def __init__(self, phase: str, title: str, *, total: int | None = None, bound: int | None = None,
                 detail: Iterable[str] = (), enabled: bool = True, engine: Any = None) -> None:
        self.phase, self.title = phase, title
        self.unit = engine.threads_word if engine is not None else "threads"
        self.total, self.bound = total, bound
        self.done = self.reused = 0
        self.started = self._mark = time.monotonic()
        self._durations: list[float] = []
        self.last: dict[str, Any] | None = None  # the last point's workload, threads and numbers
        self.now = ""  # what runs now
        self.closed = False
        self._events = os.environ.get(EVENTS_ENV)
        self._batch = bool(os.environ.get("FLASHPOC_BATCH"))
        self._handle = _notebook_display(self) if enabled else None
        self._drawn = 0.0
        self._emit("start", detail=list(detail))

    # -- what the phases call ------------------------------------------------------------
    def begin(self, workload: str, threads: int | str) -> None:
        """A point starts: ``workload`` at ``threads``."""
        self._mark = time.monotonic()
        self.now = f"measuring {workload} at {threads_text(threads, self.unit)}"
        self._emit("begin", workload=workload, threads=threads, unit=self.unit)
        self._redraw(force=not self._batch)

    def point(self, row: dict[str, Any], *, counted: bool = False) -> None:
        """A point is done (measured, or reused when ``row["reused"]``); ``counted``: already
        counted by :meth:`advance`."""
        reused = bool(row.get("reused"))
        now = time.monotonic()
        if not counted:
            self.done += 1
            if not reused:
                self._durations.append(now - self._mark)
        if reused:
            self.reused += 1
        self._mark = now
        self.last = point_numbers(row)
        self.now = ""
        self._emit("point", point=self.last)
        self._redraw(force=True)

    def advance(self, count: int = 1, text: str = "") -> None:
        """``count`` points are done whose rows come later (:meth:`point` with ``counted=True``)."""
        now = time.monotonic()
        self.done += count
        self._durations += [(now - self._mark) / count] * count
        self._mark = now
        self.now = text
        self._emit("advance", text=text, count=count)
        self._redraw(force=True)

    def status(self, text: str) -> None:
        """What the engine says while a point runs (e.g. vdbench's current run and interval)."""
        self.now = text
        self._emit("status", text=text)
        self._redraw()

    def grow(self, count: int) -> None:
        """``count`` more points than planned (e.g. a round of refine points)."""
        if self.total is not None:
            self.total += count

    def close(self) -> None:
        """The loop ended: the final state stays in the notebook (text), and the terminal is told."""
        if self.closed:
            return
        self.closed = True
        self.now = ""
        self._emit("end")
        self._redraw(force=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- state -----------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Done, reused, total, bound, elapsed seconds and seconds left (None when not known;
        ``left_is_bound``: an upper bound from ``bound``, not an estimate)."""
        elapsed = time.monotonic() - self.started
        left, is_bound = None, False
        if self._durations and not self.closed:
            per_point = sum(self._durations) / len(self._durations)
            if self.total is not None:
                left = max(0, self.total - self.done) * per_point
            elif self.bound is not None:
                left, is_bound = max(0, self.bound - self.done) * per_point, True
        return {"phase": self.phase, "title": self.title, "done": self.done, "reused": self.reused,
                "total": self.total, "bound": self.bound, "elapsed_s": round(elapsed, 1),
                "left_s": None if left is None else round(left, 1), "left_is_bound": is_bound,
                "closed": self.closed}

    def text(self) -> str:
        """The progress as text: the counts and times, then the last point or what runs now."""
        state = self.state()
        lines = [f"{self.title}: {summary_text(state)}"]
        if self.now:
            lines.append(f"now: {self.now}")
        if self.last:
            lines.append(f"last: {numbers_text(self.last)}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        state = self.state()
        limit = state["total"] if state["total"] is not None else state["bound"]
        if state["closed"]:
            bar = f'<progress value="1" max="1"></progress>'
        elif limit:
            bar = f'<progress value="{state["done"]}" max="{limit}"></progress>'
        else:
            bar = "<progress></progress>"
        rest = "".join(f"<br><span>{html.escape(line)}</span>" for line in self.text().splitlines()[1:])
        return (f'<div class="flashpoc-progress">{bar} <b>{html.escape(self.title)}</b>: '
                f"{html.escape(summary_text(state))}{rest}</div>")

    def __repr__(self) -> str:
        return self.text()

    def _emit(self, event: str, **fields: Any) -> None:
        if not self._events:
            return
        record = {"event": event, "time": time.time(), **self.state(), **fields}
        line = (json.dumps(record, default=str) + "\n").encode()
        try:  # one write of one whole line: the reader never sees half an event
            fd = os.open(self._events, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError:  # the terminal's view must never stop a measurement
            self._events = None

    def _redraw(self, force: bool = False) -> None:
        now = time.monotonic()
        if self._handle is None or (not force and now - self._drawn < REDRAW_S):
            return
        self._drawn = now
        self._handle.update(self)


def _notebook_display(progress: Progress):
    """A display handle in a running IPython kernel, else None (a script, a test)."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return None
    return display(progress, display_id=True)


# -- texts (pure): shared by the notebook display and the terminal --------------------------
def threads_text(threads: int | str, unit: str = "threads") -> str:
    """``1 thread``, ``8 threads`` (``unit``: the engine's word, e.g. ``4 virtual users``); a text
    (a thread list) as it is."""
    if isinstance(threads, float) and threads.is_integer():
        threads = int(threads)
    if not isinstance(threads, numbers.Integral):
        return str(threads)
    return f"{int(threads)} {unit.removesuffix('s') if threads == 1 else unit}"


def engine_words(name: Any) -> dict[str, str]:
    """What the points of the engine ``name`` count and measure, in words (:class:`~flashpoc.engines.base.Engine`):
    ``unit`` (threads, virtual users), ``rate`` and ``rate_word`` (the row's column and its name:
    ``iops``/IOPS, ``nopm``/NOPM), ``latency`` and ``latency_word`` (the row's latency column and
    its name: ``neword_p95_ms``/NEWORD p95); fio's words for an engine not registered (or not named)."""
    from .engines import get_engine

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


# -- what flashpoc run says after a phase and at the end (read from the stored results) ---------
HOST_VERDICTS = {"hosts": "the load hosts are the limit, not the array", "array": "the array is the limit",
                 "unclear": "not clear"}


def check_lines(cfg) -> list[str]:
    """The environment check's verdict, its counts and each warning or failure (check.csv)."""
    import pandas as pd

    from . import check

    table = pd.read_csv(cfg.resolved().results_path() / "check.csv", dtype=str, keep_default_na=False)
    counts = table["status"].value_counts()
    verdict = {"pass": "pass", "warn": "pass with warnings", "fail": "FAIL"}[check.verdict(table)]
    lines = [f"verdict: {verdict} ({', '.join(f'{counts.get(s, 0)} {s}' for s in ('pass', 'warn', 'fail'))})"]
    lines += [f"  {r.status}: {r.host} / {r.check}: {r.detail}" for r in table.itertuples(index=False)
              if r.status in ("warn", "fail")]
    return lines


def probe_lines(cfg) -> list[str]:
    """The probe's answer (:func:`flashpoc.phases.probe_answer_text`, as notebook 02 and the report
    state it) and its verdict on hosts or array (probe.json of the current settings)."""
    from .store import CampaignStore

    probe = CampaignStore(cfg.resolved().results_path()).current_probe(cfg.resolved().measurement_hash())
    if probe is None:
        return []
    from .probe import probe_answer_text

    answer = probe.get("answer") or probe_answer_text(probe)  # the same words as notebook 02 and the report
    lines = textwrap.wrap(f"probe: {answer}", width=90, subsequent_indent="  ")
    limit = probe.get("host_limit")
    if limit:
        lines.append(f"hosts or array: {HOST_VERDICTS.get(limit.get('verdict'), 'not clear')}")
        lines += [f"  - {sign}" for sign in limit.get("signs", [])]
        if limit.get("suggestion"):
            lines.append(f"  {limit['suggestion']}")
    return lines


SUMMARY_COLUMNS = [("workload", "Workload"), ("max_iops", "Max IOPS", ",.0f"), ("max_bw_mibps", "MiB/s", ",.1f"),
                   ("max_iops_threads", "at threads"), ("max_iops_lat_mean_ms", "latency (ms)", ".3f"),
                   ("at_slo", "IOPS at SLO"), ("knee_threads", "knee at", ".0f"), ("knee_iops", "knee IOPS", ",.0f")]


def closing_summary(cfg, width: int = 100, *, reported: bool = True) -> list[str]:
    """What a batch run ends with: each workload's max IOPS, IOPS at the SLO and knee, the probe's
    answer and verdict, the points that were not steady, and where the report is (``reported``:
    written by this run, else said to be older). Empty without sweep points."""
    from . import summary
    from .texttable import text_table
    from .results import load_results

    cfg = cfg.resolved()
    points = load_results(cfg, "sweep")
    if points.empty:
        return []
    lines = [f"Summary of {cfg.campaign}:"]
    if "iops" in points:  # an engine whose points are not I/O (HammerDB's NOPM): its probe and report say it
        rows = []
        for r in summary.summary_table(points, cfg.slo_ms).to_dict("records"):
            at_slo, status = r.get(f"iops_at_{cfg.slo_ms:g}ms"), r.get("slo_status")
            rows.append({**r, "at_slo": "none" if status == "above_all" else
                         f">= {at_slo:,.0f}" if status == "below_all" else f"{at_slo:,.0f}"})
        lines = [f"Summary of {cfg.campaign} (SLO: mean latency {cfg.slo_ms:g} ms):", ""]
        lines += ["  " + line for line in text_table(rows, SUMMARY_COLUMNS, width - 2).splitlines()]
        notes = {"below_all": f">= : every point was within the SLO: the array gives at least that at "
                              f"{cfg.slo_ms:g} ms",
                 "above_all": f"none: no point was within {cfg.slo_ms:g} ms"}
        lines += [f"  {notes[s]}" for s in notes if s in {r.get("slo_status") for r in rows}]
    lines += ["", *probe_lines(cfg), steadiness_line(points)]
    report = cfg.results_path() / "report" / "report.html"
    if report.exists():
        lines.append(f"report: {report}" if reported else
                     f"report (of an earlier run: `flashpoc run --phases report` brings it up to date): {report}")
    return lines


def steadiness_line(points) -> str:
    """One line: how many of the sweep's ``points`` were steady, and each one that was not."""
    import pandas as pd

    from .summary import judged_points, steadiness_table

    table = steadiness_table(points)
    unit = engine_words(points["engine"].iloc[0] if "engine" in points and len(points) else None)["unit"]
    if "intervals" not in points:
        return "steady state: no verdict: the engine kept no time series of these points"
    judged = table[table["interval_steady"].notna()] if not table.empty else table
    if judged.empty:
        return "steady state: no verdict: no point kept the 3 intervals a verdict needs (a longer runtime gives them)"
    unsteady = judged[~judged["interval_steady"].astype(bool)]
    line = f"steady state: {len(judged) - len(unsteady)} of {len(judged)} points steady"
    if len(judged) < len(table):
        line += f" ({len(table) - len(judged)} too short for a verdict)"
    if not unsteady.empty:
        line += "; not steady: " + "; ".join(
            f"{r['config'] + ', ' if r.get('config') else ''}{r['workload']} at "
            f"{threads_text(int(r['threads']), unit)}"
            + (f" (scatter {r['interval_iops_cv_pct']:.1f} %, drift {r['interval_iops_drift_pct']:+.1f} %)"
               if pd.notna(r.get("interval_iops_cv_pct")) else "")  # HammerDB's verdict is of TPM, not IOPS
            for r in unsteady.to_dict("records"))
    snia, missed = judged_points(table, "snia_steady")
    if not snia.empty:
        line += f"; by the SNIA PTS rule {len(snia) - len(missed)} of {len(snia)} steady" + (
            "" if missed.empty else " (not: " + "; ".join(
                f"{r['config'] + ', ' if r.get('config') else ''}{r['workload']} at "
                f"{threads_text(int(r['threads']), unit)}"
                for r in missed.to_dict("records")) + ")")
    return line
