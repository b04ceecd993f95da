"""The live view's cost: a real fio sweep with the view and the same sweep without it, in one run.

Two campaigns of the same points (2 workloads x N thread counts of ``runtime_s`` s each, real fio
on a scratch file) are measured one after the other, the first without a view, the second with a
:class:`flashpoc.present.live.LiveView` (its widgets and charts made as in JupyterLab; outside a kernel
their messages go nowhere, so the cost is the kernel's side: the charts' Vega-Lite per point and
per interval), and the ratio of their wall times is printed, with the seconds spent in the view's
own methods (its cost whatever else loads the machine). Then the view alone is fed 200 points
(the rows just measured, at 100 thread counts per workload): one redraw of the curves at that size,
where its charts hold the most data, and the 200 points handed over back to back.

    .venv/bin/python benchmarks/live_view.py [COUNTS_PER_WORKLOAD] [RUNTIME_S]

Two runs with the defaults (20 points of 2 s) on a 2-CPU machine shared with other jobs (load
average 20-26), the second after redraws were spaced by their own cost (REDRAW_SHARE):

- before: 80.8 s without the view, 117.9 s with it (ratio 1.46); 17.3 s in the view, 20 curve
  redraws of about 0.9 s each;
- after: 109.1 s without, 132.1 s with (ratio 1.21, most of it the machine's load changing between
  the two sweeps); 10.6 s in the view (8.0 % of the wall time) for 4 curve and 6 interval redraws;
  one redraw at 200 points took 4.0 s here, 200 points handed over back to back 1.2 s.

A redraw costs about a second on this loaded machine (Altair building the charts), so with 2-s
points the view takes up to a twentieth of the time per chart; with the POC's 20-minute points one
redraw per point is under 0.1 % of the run.
"""

from __future__ import annotations

import sys
import time

from _common import campaign_values, scratch_root

from flashpoc.present import live, progress
from flashpoc import phases
from flashpoc.params import campaign_from_dict

WORKLOADS = [{"name": "randread-4k", "rw": "randread", "bs": "4k"},
             {"name": "randwrite-4k", "rw": "randwrite", "bs": "4k"}]


def sweep(root, name: str, counts: int, runtime_s: int, view: bool) -> tuple[float, list[live.LiveView]]:
    """Seconds of the sweep of campaign ``name`` (with the live view or without), and its views."""
    views: list[live.LiveView] = []

    def view_of(bar):
        views.append(timed(live.LiveView(bar, widgets=True)))
        return views[-1]
    progress.LIVE_VIEW = view_of if view else None
    cfg = campaign_from_dict(campaign_values(root, campaign=name, workloads=WORKLOADS,
                                             fio={"runtime_s": runtime_s, "ramp_s": 0}))
    phases.run_check(cfg)
    start = time.perf_counter()
    phases.run_sweep(cfg, {w["name"]: list(range(1, counts + 1)) for w in WORKLOADS}, progress=True)
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


def redraw_at(rows: list[dict], points: int) -> tuple[float, float]:
    """Seconds of one redraw of the curves at ``points`` points (copies of ``rows`` at more thread
    counts), and the seconds the view spends when those points come back to back (as stored points
    are reused: most redraws wait, :func:`flashpoc.present.live.LiveView._due`)."""
    bar = progress.Progress("sweep", "sweep", total=points, colors=[w["name"] for w in WORKLOADS], enabled=False)
    many = [dict(rows[i % len(rows)], threads=i // len(WORKLOADS) + 1) for i in range(points)]
    view = live.LiveView(bar, widgets=True)
    view.rows = list(many)
    start = time.perf_counter()
    view._draw_curves(bar)
    one = time.perf_counter() - start
    view = live.LiveView(bar, widgets=True)
    start = time.perf_counter()
    for row in many:
        view.point(bar, row)
    return one, time.perf_counter() - start


def main() -> int:
    counts = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    runtime_s = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    root = scratch_root()
    plain, _ = sweep(root, "plain", counts, runtime_s, view=False)
    watched, views = sweep(root, "watched", counts, runtime_s, view=True)
    points = 2 * counts
    print(f"sweep of {points} points of {runtime_s} s with real fio, without the view: {plain:.1f} s")
    print(f"the same sweep with the live view:                        {watched:.1f} s "
          f"({views[0].redraws['curves']} curve and {views[0].redraws['intervals']} interval redraws)")
    print(f"ratio (with / without): {watched / plain:.3f}")
    print(f"time spent in the view during the sweep: {views[0].spent:.2f} s, "
          f"{views[0].spent / watched:.2%} of its wall time")
    one, back_to_back = redraw_at(views[0].rows, 200)
    print(f"one redraw of the curves at 200 points: {one:.2f} s; 200 points handed over back to back: "
          f"{back_to_back:.1f} s; a 200-point sweep of {runtime_s} s points runs at least {200 * runtime_s} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
