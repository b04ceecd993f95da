"""Where a probe or a sweep is while it runs, in the notebook and in ``flashpoc run``'s terminal.

One :class:`Progress` follows one loop of points (the probe, its plateau on fewer hosts, the
sweep). It shows itself in two places:

- in the notebook (JupyterLab, or the kernel of a batch run): one display updated in place,
  text and HTML, not a widget, so that an executed notebook opened later still shows the final
  state;
- in the terminal of ``flashpoc run``: when ``$FLASHPOC_PROGRESS`` names a file, every event is
  appended to it as one JSON line, which :mod:`flashpoc.cli` follows while papermill runs the
  notebook and prints with :func:`point_line`, :func:`status_line` and :func:`end_line`.

With a live view enabled (:func:`flashpoc.present.live.enable`, notebooks 02 and 03), the notebook shows
instead the curve growing point by point, the running point's intervals as the engine hands them
over (:meth:`Progress.interval`), the probe's answer so far (:meth:`Progress.answer`) and a stop
button: a stop ends the loop before its next point begins (:class:`flashpoc.core.errors.Stopped`).

It says what is known: points done of the total, or of at most N when only a bound is known (the
adaptive probe stops as soon as IOPS stop rising), the time elapsed, and the time left from the
mean time of the points measured so far: none before a point was measured, and an upper bound,
not an estimate, when only the number of points is bounded. Stored points that are reused count
as done, not in the time per point.
"""

from __future__ import annotations

import html
import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from flashpoc.core.errors import Stopped

# Every name keeps its old path (flashpoc.present.progress.X): the package re-exports its modules' names.
from flashpoc.present.progress.closing import SUMMARY_COLUMNS, steadiness_line, summary_lines
from flashpoc.present.progress.texts import (LARGE_IO_BYTES, _latency_word, _rate_parts, count_text, duration_text, end_line, engine_words,
                    number, numbers_text, point_legend, point_line, point_numbers, read_events, reused_line,
                    status_line, summary_text, threads_text, time_text)

#: the environment variable naming the file the events are appended to (set by ``flashpoc run``)
EVENTS_ENV = "FLASHPOC_PROGRESS"
#: the environment variable set while ``flashpoc run`` executes the notebooks (no one watches them live)
BATCH_ENV = "FLASHPOC_BATCH"
#: seconds between two redraws of the notebook display for a status change (points always redraw)
REDRAW_S = 1.0
#: what draws a loop in a notebook instead of its text (:func:`flashpoc.present.live.enable` sets it): called
#: with the :class:`Progress`, it returns the view (``update(progress)`` and the events' methods) or None
LIVE_VIEW: Callable[[Progress], Any] | None = None


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
        colors: the campaign's workloads in the order of its parameters: the live view draws the
            curve in the report's colours (a loop without them, the plateau on fewer hosts, none).

    Call :meth:`begin` before a point runs, :meth:`point` with its row when it is done (or
    reused), :meth:`advance` when an engine reports points done before their rows exist (vdbench
    runs a whole thread list in one invocation), :meth:`status` for what the engine says in the
    meantime, :meth:`interval` with each interval the engine prints while a point runs,
    :meth:`answer` with the probe's answer so far, :meth:`close` at the end (or use it as a
    context manager).
    """

    def __init__(self, phase: str, title: str, *, total: int | None = None, bound: int | None = None,
                 detail: Iterable[str] = (), enabled: bool = True, engine: Any = None,
                 colors: Sequence[str] = ()) -> None:
        self.phase, self.title = phase, title
        self.unit = engine.threads_word if engine is not None else "threads"
        self.colors = list(colors)
        self.total, self.bound = total, bound
        self.done = self.reused = 0
        self.started = self._mark = time.monotonic()
        self._durations: list[float] = []
        self.last: dict[str, Any] | None = None  # the last point's workload, threads and numbers
        self.now = ""  # what runs now
        self.closed = False
        self._events = os.environ.get(EVENTS_ENV)
        self._batch = bool(os.environ.get(BATCH_ENV))
        self._view = LIVE_VIEW(self) if enabled and LIVE_VIEW is not None else None
        self._handle = self._view or (_notebook_display(self) if enabled else None)
        self._drawn = 0.0
        self._emit("start", detail=list(detail))

    # -- what the phases call ------------------------------------------------------------
    def begin(self, workload: str, threads: int | str) -> None:
        """A point starts: ``workload`` at ``threads``.

        Raises:
            Stopped: the live view's stop button was pressed: no point begins after it.
        """
        if self._view is not None:
            self._view.begin(self, workload, threads)
            if self._view.stop_requested:
                self.now = "stopped"
                self._redraw(force=True)
                raise Stopped(f"{self.title}: stopped with the stop button after {self.done} points; the completed "
                              "points are stored and reused by the next run")
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
        if self._view is not None:
            self._view.point(self, row)
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

    def interval(self, values: dict[str, Any], *, second: float | None = None, run: str = "",
                 warmup: bool = False) -> None:
        """One interval of the running point as the engine prints it, before the point ends:
        ``values`` by the columns of its time series (``iops``, ``lat_mean_ms``, ``tpm``...);
        ``second``: its end since the point began (default: now); ``run``: the engine's name
        for what runs when one invocation measures several points (a new name starts a new
        series); ``warmup``: an interval its result leaves out. Only a live view shows them."""
        if self._view is not None:
            elapsed = time.monotonic() - self._mark
            self._view.interval(self, values, elapsed if second is None else second, run, warmup)

    def answer(self, text: Callable[[], str]) -> None:
        """The probe's answer so far: ``text`` is called only when a live view shows it."""
        if self._view is not None:
            self._view.answer(self, text())

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
        if self._view is not None:
            self._view.close(self)

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
                "total": self.total, "bound": self.bound, "elapsed_s": elapsed,
                "left_s": left, "left_is_bound": is_bound,
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


def in_kernel() -> bool:
    """Whether this runs in a Jupyter kernel (a notebook, papermill), not a script or a test."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _notebook_display(progress: Progress):
    """A display handle in a running IPython kernel, else None (a script, a test)."""
    if not in_kernel():
        return None
    from IPython.display import display

    return display(progress, display_id=True)
