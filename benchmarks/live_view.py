"""The live view's cost over a 200-point sweep, as a ratio measured in one run.

The same 200 points (2 workloads x COUNTS thread counts x REPEATS repeats of RUNTIME_S s each, real
fio on a scratch file) are measured with a :class:`flashpoc.present.live.LiveView` (its widgets and charts
made as in JupyterLab; outside a kernel their messages go nowhere, so the cost is the kernel's side:
the charts' Vega-Lite per point and per interval, fio's status reports read each second) and without
one, in one run on this machine. The sweep without the view is split in two halves, one before and
one after the sweep with it (each half one workload's 100 points, in a campaign of its own), so that
a load that rises or falls during the run weighs on both alike. It prints the two wall times and their
ratio, the seconds spent in the view's own methods (its cost whatever else loads the machine), its
redraws, and one redraw of the curves at 200 points.

    .venv/bin/python benchmarks/live_view.py [COUNTS] [REPEATS] [RUNTIME_S]

(defaults 10, 10, 1: 200 points; benchmarks/README.md has the last figures).
"""

from __future__ import annotations

import contextlib
import io
import sys
import time

from _common import campaign_values, load_average, scratch_root

from flashpoc.present import live, progress
from flashpoc import phases
from flashpoc.params import campaign_from_dict

WORKLOADS = [{"name": "randread-4k", "rw": "randread", "bs": "4k"},
             {"name": "randwrite-4k", "rw": "randwrite", "bs": "4k"}]


def sweep(root, name: str, plan: dict[str, list[int]], runtime_s: int, repeats: int, view: bool
          ) -> tuple[float, list[live.LiveView]]:
    """Seconds of the sweep ``plan`` of campaign ``name`` (with the live view or without), and its views."""
    views: list[live.LiveView] = []

    def view_of(bar):
        views.append(timed(live.LiveView(bar, widgets=True)))
        return views[-1]
    progress.LIVE_VIEW = view_of if view else None
    targets = [{"name": "scratch", "path": str(root / f"{name}.dat"), "size": "256m", "create": True}]
    cfg = campaign_from_dict(campaign_values(root, campaign=name, workloads=WORKLOADS, targets=targets,
                                             fio={"runtime_s": runtime_s, "ramp_s": 0},
                                             sweep={"repeats": repeats}))
    phases.run_check(cfg)
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel IPython's display prints what it shows
        phases.run_sweep(cfg, plan, progress=True)
    seconds = time.perf_counter() - start
    progress.LIVE_VIEW = None
    return seconds, views


def timed(view: live.LiveView) -> live.LiveView:
    """``view`` with the seconds spent in its event methods summed in ``view.spent`` (the
    sweep's own cost of the view, whatever else loads the machine)."""
    view.spent = 0.0
    for name in ("update", "begin", "point", "interval", "answer"):
        method = getattr(view, name)

        def wrapper(*args, _method=method, **kwargs):
            start = time.perf_counter()
            try:
                return _method(*args, **kwargs)
            finally:
                view.spent += time.perf_counter() - start
        setattr(view, name, wrapper)
    return view


def redraw_at(rows: list[dict], points: int) -> tuple[float, float, float]:
    """Seconds of one redraw of the curves at ``points`` points (copies of ``rows`` at more thread
    counts); and when those points come back to back (as stored points are reused), the seconds the
    loop spends handing them over and the seconds until the drawing thread has drawn what was due
    (most redraws wait: :meth:`flashpoc.present.live.LiveView._due`)."""
    bar = progress.Progress("sweep", "sweep", total=points, colors=[w["name"] for w in WORKLOADS], enabled=False)
    many = [dict(rows[i % len(rows)], threads=i // len(WORKLOADS) + 1) for i in range(points)]
    with contextlib.redirect_stdout(io.StringIO()):
        view = live.LiveView(bar, widgets=True)
    view.rows = list(many)
    start = time.perf_counter()
    view._draw("curves", view._box.curves, lambda: view.curves(bar))
    one = time.perf_counter() - start
    with contextlib.redirect_stdout(io.StringIO()):
        view = live.LiveView(bar, widgets=True)
    start = time.perf_counter()
    for row in many:
        view.point(bar, row)
    handed = time.perf_counter() - start
    view.settle()
    return one, handed, time.perf_counter() - start


def main() -> int:
    given = [int(a) for a in sys.argv[1:4]]
    counts, repeats, runtime_s = given + [10, 10, 1][len(given):]
    root = scratch_root()
    first, second = (w["name"] for w in WORKLOADS)
    threads = list(range(1, counts + 1))
    points = 2 * counts * repeats
    loads = [load_average()]
    plain_a, _ = sweep(root, "plain", {first: threads}, runtime_s, repeats, view=False)
    loads.append(load_average())
    watched, views = sweep(root, "watched", {first: threads, second: threads}, runtime_s, repeats, view=True)
    loads.append(load_average())
    plain_b, _ = sweep(root, "plain", {second: threads}, runtime_s, repeats, view=False)
    loads.append(load_average())
    plain = plain_a + plain_b
    view = views[0]
    print(f"{points} points of {runtime_s} s with real fio ({counts} thread counts x {repeats} repeats x 2 workloads)")
    print(f"without the view: {plain:.1f} s ({plain_a:.1f} s before and {plain_b:.1f} s after the sweep with it)")
    print(f"with the live view: {watched:.1f} s ({view.redraws['curves']} curve and {view.redraws['intervals']} "
          f"interval redraws, {len(view.rows)} points drawn)")
    print(f"ratio (with / without): {watched / plain:.3f}")
    print(f"time spent in the view's methods during the sweep: {view.spent:.2f} s, {view.spent / watched:.2%} of its "
          "wall time")
    print(f"time its drawing thread spent drawing (beside the sweep, not in it): {view.drawing_s:.1f} s, "
          f"{view.drawing_s / watched:.1%} of the sweep's wall time")
    one, handed, drawn = redraw_at(view.rows, 200)
    print(f"one redraw of the curves at 200 points: {one:.2f} s; 200 points handed over back to back: "
          f"{handed:.3f} s in the loop, drawn by the view's thread after {drawn:.1f} s")
    print("load average (1, 5, 15 min) before, between the sweeps and after: " + " | ".join(loads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
