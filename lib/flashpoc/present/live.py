"""The live view of a probe or a sweep in a notebook: the curve grows point by point.

Notebooks 02 and 03 call :func:`enable` once; from then on every :class:`flashpoc.present.progress.Progress`
of the kernel draws itself as a :class:`LiveView`:

- in JupyterLab, an ipywidgets box: the progress (points done, elapsed, ETA, what runs now, the
  last point), the probe's answer so far, the hockey stick and the load against threads of every
  point stored so far (in the report's colours), the running point's intervals as the engine
  hands them over, and a stop button. The charts are redrawn once per point or interval, never per
  I/O, as Vega-Lite that JupyterLab draws, by a thread of their own (the loop that measures only
  notes what changed and never waits for a chart), and each at most once per
  :data:`INTERVAL_REDRAW_S` or :data:`REDRAW_SHARE` times the seconds its last redraw took,
  whichever is longer: the view takes at most about 1/REDRAW_SHARE of a CPU, however short the points;
- in batch (``flashpoc run``) and wherever no one watches, nothing per point.

When the loop ends the box makes way for static outputs, the same in both: the progress as text,
then the finished curve as SVG (vl-convert) with its Vega-Lite, so an executed notebook shows it
offline. The stop button ends the loop before its next point begins, as Ctrl-C ends a run: the
running point is measured to its end and stored, and :class:`flashpoc.core.errors.Stopped` (a
``KeyboardInterrupt``) is raised; the completed points are reused by the next run.

While a point runs the kernel's main thread is busy measuring: the button's clicks are handled by a
subshell of the kernel (ipykernel 7: a thread of its own, to which ipykernel routes the messages of a
comm that last spoke from it), made for the view and removed when it closes. A kernel without
subshells shows no stop button (its stop is the kernel's interrupt, Ctrl-C's).
"""

from __future__ import annotations

import contextlib
import html
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from flashpoc.core.numbers import tidy
from flashpoc.present import chart, progress as progress_mod
from flashpoc.present.chart.live import INTERVAL_TITLES, curve_frame, live_curves, live_intervals, series_color
from flashpoc.present.progress import BATCH_ENV, Progress, engine_words, numbers_text, summary_text, threads_text

#: the fewest seconds between two redraws of a chart
INTERVAL_REDRAW_S = 1.0
#: a chart is redrawn no sooner than this many times the seconds its last redraw took
REDRAW_SHARE = 20
#: how much nicer than the kernel the drawing thread runs (Linux gives each thread its own nice
#: value): on a busy controller the engine's processes and the measuring loop get the CPU first
DRAWING_NICE = 10


def enable() -> None:
    """Draw every probe and sweep of this kernel as a :class:`LiveView` from now on (a script or a
    test without a kernel keeps the plain progress)."""
    progress_mod.LIVE_VIEW = view_of


def disable() -> None:
    """Back to the plain progress."""
    progress_mod.LIVE_VIEW = None


def view_of(progress: Progress) -> LiveView | None:
    """The live view of ``progress`` in a running kernel (widgets unless in batch), else None."""
    if not progress_mod.in_kernel():
        return None
    return LiveView(progress, widgets=not os.environ.get(BATCH_ENV))


class LiveView:
    """What a notebook shows of one :class:`~flashpoc.present.progress.Progress`: see the module.

    Attributes:
        rows: the rows of the points stored (or reused) so far.
        series: the intervals of the running (or last) point, ``{second, warmup, <column>: value}``.
        stop_requested: the stop button was pressed.
        drawing_s: the seconds the drawing thread spent drawing the charts (on its own thread: the
            loop waits for none of them).
    """

    def __init__(self, progress: Progress, *, widgets: bool = True) -> None:
        from IPython.display import display

        self.rows: list[dict[str, Any]] = []
        self.series: list[dict[str, Any]] = []
        self.series_title = ""
        self.answer_text = ""
        self.stop_requested = False
        self.redraws = {"curves": 0, "intervals": 0}
        self.drawing_s = 0.0  # seconds the drawing thread spent drawing the charts
        self._run = ""
        self._last = {"curves": 0.0, "intervals": 0.0}  # when each chart was last drawn (monotonic)
        self._cost = {"curves": 0.0, "intervals": 0.0}  # and how many seconds that took
        self._stale = {"curves": False, "intervals": False, "status": False}  # changed since drawn
        self._lock = threading.Lock()
        self._subshell = _Subshell.make() if widgets else None
        self._box = _Widgets(self, self._subshell) if widgets else None
        self._handle = display(self._box.box if self._box else progress, display_id=True)
        self._drawer = _Drawer(self, progress) if self._box is not None else None

    # -- the loop's events (:class:`flashpoc.present.progress.Progress` calls these) ------------------
    # They only note what changed: the drawing thread (:class:`_Drawer`) redraws it, so that the loop
    # that measures never waits for a chart.
    def update(self, progress: Progress) -> None:
        """The progress changed (a point, a status): its text redrawn."""
        if self._drawer is None:
            if self._handle is not None:  # None outside a kernel (a script, a test)
                self._handle.update(progress)
            return
        self._changed("status")

    def begin(self, progress: Progress, workload: str, threads: int | str) -> None:
        """A point begins: a new series of intervals."""
        with self._lock:
            self.series, self._run = [], ""
            self.series_title = f"{workload} at {threads_text(threads, progress.unit)}: each interval as it ends"
        self._changed("status")

    def point(self, progress: Progress, row: dict[str, Any]) -> None:
        """A point is stored (or reused): the curves redrawn with it when due (:meth:`_due`: stored
        points reused one after the other are drawn together)."""
        with self._lock:
            self.rows.append(dict(row))
        self._changed("curves", "intervals", "status")

    def interval(self, progress: Progress, values: dict[str, Any], second: float, run: str, warmup: bool) -> None:
        """An interval of the running point (a new ``run`` name starts a new series)."""
        with self._lock:
            if run != self._run:
                self.series, self._run = [], run
                if run:
                    self.series_title = f"{run}: each interval as it ends"
            second = tidy(float(second))
            if self.series and self.series[-1]["second"] == second:
                self.series.pop()  # the same interval printed again (fio's last second): the later one
            self.series.append({"second": second, "warmup": bool(warmup), **values})
        self._changed("intervals", "status")

    def answer(self, progress: Progress, text: str) -> None:
        """The probe's answer so far."""
        self.answer_text = text
        self.update(progress)

    def settle(self, timeout_s: float = 30.0) -> None:
        """Wait until the drawing thread has drawn every change that is due (what a test waits for)."""
        if self._drawer is not None:
            self._drawer.settle(timeout_s)

    def close(self, progress: Progress) -> None:
        """The loop ended: the box makes way for the progress as text and the finished curve as SVG."""
        from IPython.display import display

        if self._drawer is not None:
            self._drawer.stop()
        if self._subshell is not None:
            self._subshell.remove()
        if self._box is not None and self._handle is not None:
            self._handle.update(progress)
        figure = self.curves(progress)
        if figure is not None:
            bundle, metadata = chart.offline_renderer(chart.themed_spec(figure))
            display(bundle, raw=True, metadata=metadata)
        if self._drawer is not None and self._drawer.failure is not None:
            raise self._drawer.failure

    def _changed(self, *what: str) -> None:
        with self._lock:
            for name in what:
                self._stale[name] = True
        if self._drawer is not None:
            self._drawer.poke()

    # -- what it shows -----------------------------------------------------------------------
    def curves(self, progress: Progress) -> Any:
        """The chart of the points so far (:func:`flashpoc.present.chart.live.live_curves`), None before the
        first, or for a loop that gives no colours (the plateau on fewer hosts: one thread count)."""
        with self._lock:
            rows = list(self.rows)
        if not rows or not progress.colors:
            return None
        words = engine_words(rows[0].get("engine"))
        title = f"{progress.title}: {summary_text(progress.state())}"
        return live_curves(curve_frame(rows, words), words, title=title, color_domain=self._domain(progress, rows))

    def intervals(self, progress: Progress) -> Any:
        """The chart of the running point's intervals, None before its first."""
        with self._lock:
            series, title = list(self.series), self.series_title
        if not series:
            return None
        workload = title.split(" at ")[0] if " at " in title else ""
        with self._lock:
            rows = list(self.rows)
        return live_intervals(series, title=title, color=series_color(workload, self._domain(progress, rows)))

    def status_html(self, progress: Progress) -> str:
        """The progress, the latest interval, the probe's answer so far and the stop, as HTML."""
        state = progress.state()
        limit = state["total"] if state["total"] is not None else state["bound"]
        bar = f'<progress value="{state["done"]}" max="{limit}"></progress>' if limit else "<progress></progress>"
        lines = [f"{bar} <b>{html.escape(progress.title)}</b>: {html.escape(summary_text(state))}"]
        if progress.now:
            lines.append(f"now: {html.escape(progress.now)}")
        latest = self._latest_interval()
        if latest:
            lines.append(f"latest interval: {html.escape(latest)}")
        if progress.last:
            lines.append(f"last point: {html.escape(numbers_text(progress.last))}")
        if self.answer_text:
            lines.append(f"answer so far: {html.escape(self.answer_text)}")
        if self.stop_requested:
            lines.append("<b>stop requested</b>: the running point is measured to its end and stored; no point "
                         "begins after it")
        return '<div class="flashpoc-live-status">' + "<br>".join(lines) + "</div>"

    def _latest_interval(self) -> str:
        with self._lock:
            last = dict(self.series[-1]) if self.series else None
        if last is None:
            return ""
        parts = [f"{INTERVAL_TITLES.get(k, k)} {v:,.3f}" if k.endswith("_ms") else
                 f"{INTERVAL_TITLES.get(k, k)} {v:,.0f}"
                 for k, v in last.items() if k not in ("second", "warmup") and isinstance(v, (int, float))]
        return f"{last['second']:.0f} s: " + ", ".join(parts) + (" (warm-up)" if last["warmup"] else "")

    @staticmethod
    def _domain(progress: Progress, rows: list[dict[str, Any]]) -> list[str]:
        seen = [str(r.get("workload")) for r in rows]
        return list(dict.fromkeys([*progress.colors, *seen]))

    def _due(self, chart_name: str) -> float:
        """Seconds until ``chart_name`` ("curves", "intervals") may be redrawn (0 or less: now):
        :data:`INTERVAL_REDRAW_S` and :data:`REDRAW_SHARE` times its last redraw's seconds after it."""
        wait = max(INTERVAL_REDRAW_S, REDRAW_SHARE * self._cost[chart_name])
        return self._last[chart_name] + wait - time.monotonic()

    def _draw(self, chart_name: str, out: Any, make: Callable[[], Any]) -> None:
        """``make()``'s figure shown in ``out``; when and how long it took kept for :meth:`_due`."""
        start = time.monotonic()
        figure = make()
        if figure is not None:
            self._box.show(out, figure)
            self.redraws[chart_name] += 1
        self._last[chart_name] = now = time.monotonic()
        self._cost[chart_name] = now - start
        self.drawing_s += now - start

    def _catch_up(self, progress: Progress) -> float | None:
        """Draw what changed and is due (on the drawing thread); the seconds until the next change
        that waits is due, None if none waits."""
        waits = []
        for name, out, make in (("curves", self._box.curves, lambda: self.curves(progress)),
                                ("intervals", self._box.series, lambda: self.intervals(progress))):
            if not self._stale[name]:
                continue
            wait = self._due(name)
            if wait > 0:
                waits.append(wait)
                continue
            with self._lock:
                self._stale[name] = False
            self._draw(name, out, make)
        if self._stale["status"]:
            with self._lock:
                self._stale["status"] = False
            self._box.status.value = self.status_html(progress)
        return min(waits) if waits else None

    # -- the stop button -------------------------------------------------------------------
    def stop(self) -> None:
        """The stop button: no point begins after the running one."""
        self.stop_requested = True
        if self._box is not None:
            self._box.button.disabled = True
            self._box.button.description = "Stopping after this point"
            self._changed("status")


class _Drawer:
    """The thread that draws a :class:`LiveView`'s widgets: woken by each event, it draws what
    changed once it is due (:meth:`LiveView._due`), so a point that ends while a chart is drawn
    waits for nothing and the charts take a bounded share of the CPU whatever the points' length."""

    def __init__(self, view: LiveView, progress: Progress) -> None:
        self.view, self.progress = view, progress
        self.failure: BaseException | None = None
        self._cond = threading.Condition()
        self._poked = self._handled = 0
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="flashpoc-live-view", daemon=True)
        self._thread.start()

    def poke(self) -> None:
        with self._cond:
            self._poked += 1
            self._cond.notify_all()

    def settle(self, timeout_s: float) -> None:
        """Wait until every event so far has been looked at (what is not due yet stays for later)."""
        with self._cond:
            target = self._poked
            self._cond.wait_for(lambda: self._handled >= target or not self._thread.is_alive(), timeout_s)

    def stop(self) -> None:
        """End the thread once its drawing, if any, is done (the loop has ended: the box makes way
        for the static outputs)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join()

    def _run(self) -> None:
        _nicer(DRAWING_NICE)
        wait: float | None = None
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._poked > self._handled or self._stopping, wait)
                seen, stopping = self._poked, self._stopping
            try:
                if stopping:
                    return
                wait = self.view._catch_up(self.progress)
            except Exception as error:  # noqa: BLE001 - kept and raised by LiveView.close, not lost in a thread
                self.failure = error
                return
            finally:
                with self._cond:
                    self._handled = max(self._handled, seen)
                    self._cond.notify_all()


def _nicer(by: int) -> None:
    """Lower the calling thread's priority by ``by`` nice steps (Linux: each thread has its own);
    nothing where the system cannot."""
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + by))
    except (AttributeError, OSError):  # no per-thread priority here
        pass


class _Widgets:
    """The ipywidgets of a :class:`LiveView`: status, stop button, curves, intervals."""

    def __init__(self, view: LiveView, subshell: _Subshell | None) -> None:
        import ipywidgets as widgets

        self.status = widgets.HTML("")
        self.button = widgets.Button(description="Stop after this point", icon="stop", button_style="warning",
                                     tooltip="End the run before its next point, as Ctrl-C does: the running point "
                                             "is measured to its end and stored", layout=widgets.Layout(width="max-content"))
        self.button.on_click(lambda _: view.stop())
        if subshell is not None:
            subshell.route(self.button)
        self.curves, self.series = widgets.Output(), widgets.Output()
        self.box = widgets.VBox([self.status, *([self.button] if subshell else []), self.curves, self.series])
        self.box.add_class("flashpoc-live")

    @staticmethod
    def show(out: Any, figure: Any) -> None:
        """``figure`` in the output area ``out``, as Vega-Lite alone: JupyterLab draws it, and no
        SVG is rendered in the kernel per redraw."""
        data = {chart.VEGALITE_MIME_TYPE: chart.themed_spec(figure, validate=False), "text/plain": "<Chart: live view>"}
        out.outputs = ({"output_type": "display_data", "data": data, "metadata": {}},)


class _Subshell:
    """A subshell of the running ipykernel (7 or later) that handles the stop button's clicks while
    the main thread measures: ipykernel routes a comm's messages to the subshell it last spoke from
    (``_reply_subshell_id``). Made and removed on the kernel's shell channel thread, as a frontend's
    request would."""

    def __init__(self, kernel: Any, subshell_id: str) -> None:
        self.kernel, self.id = kernel, subshell_id

    @classmethod
    def make(cls) -> _Subshell | None:
        """A new subshell, or None where the kernel has none (then there is no stop button)."""
        try:
            from ipykernel.kernelbase import Kernel
        except ImportError:
            return None
        kernel = Kernel.instance() if Kernel.initialized() else None
        thread = getattr(kernel, "shell_channel_thread", None)
        if thread is None or not getattr(kernel, "_supports_kernel_subshells", False):
            return None
        made: list[str] = []
        done = threading.Event()

        def create() -> None:
            try:
                made.append(thread.manager._create_subshell())
            finally:
                done.set()
        thread.io_loop.add_callback(create)
        return cls(kernel, made[0]) if done.wait(10) and made else None

    def route(self, widget: Any) -> None:
        """The frontend's messages of ``widget`` (its clicks) go to this subshell."""
        widget.comm._reply_subshell_id = self.id

    def remove(self) -> None:
        """Stop the subshell (later, on the shell channel thread)."""
        thread, subshell_id = self.kernel.shell_channel_thread, self.id

        def delete() -> None:
            with contextlib.suppress(Exception):  # already gone with the kernel: nothing to stop
                thread.manager._delete_subshell(subshell_id)
        thread.io_loop.add_callback(delete)
