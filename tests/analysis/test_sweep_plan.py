"""Tests of flashpoc.analysis.sweep_plan: the fine thread sweep after the saturation probe."""

from __future__ import annotations

import pytest

from flashpoc.analysis import Point, find_saturation
from flashpoc.core.errors import ParameterError
from flashpoc.analysis.sweep_plan import format_forthreads, plan_sweep


def test_guide_follow_up_of_the_seed_is_30_runs():
    seed = [Point(t, i, 1.0) for t, i in zip(
        [100, 200, 300, 400, 500], [558627.66, 638711.22, 655968.63, 655948.78, 655956.88])]
    threads = plan_sweep(find_saturation(seed).threads)
    assert threads == list(range(10, 301, 10))
    assert len(threads) == 30  # "30 runs, 30 minutes"
    assert format_forthreads(threads) == "(10-300,10)"


def test_guide_with_explicit_step_and_min_threads():
    assert plan_sweep(300, step=100) == [100, 200, 300]
    assert plan_sweep(32, step=4) == [4, 8, 12, 16, 20, 24, 28, 32]
    assert plan_sweep(50, step=10, min_threads=5) == [5, 15, 25, 35, 45, 50]


def test_guide_default_step_is_max_over_30():
    assert plan_sweep(64) == list(range(2, 65, 2))  # step round(64/30) = 2
    assert plan_sweep(5) == [1, 2, 3, 4, 5]  # step at least 1
    assert plan_sweep(1) == [1]


def test_guide_keeps_max_threads_off_the_step():
    assert plan_sweep(305)[-3:] == [290, 300, 305]
    assert format_forthreads(plan_sweep(35, step=10)) == "(10,20,30,35)"


def test_extend_pct_sweeps_past_saturation():
    threads = plan_sweep(300, extend_pct=10)
    assert threads == list(range(10, 331, 10))  # 300 x 1.1 = 330, not 340
    assert format_forthreads(threads) == "(10-330,10)"
    assert plan_sweep(300, extend_pct=1)[-2:] == [300, 310]  # 303 rounded up to the step


def test_knee_dense_is_denser_towards_max_threads():
    threads = plan_sweep(300, plan="knee-dense")
    assert threads == [10, 50, 90, 120, 150, 180, 210, 230, 250, 260, 280, 290, 300]
    assert len(threads) < len(plan_sweep(300)) // 2 + 1
    gaps = [b - a for a, b in zip(threads, threads[1:])]
    assert gaps[0] == 40 and gaps[-1] == 10
    assert all(t % 10 == 0 for t in threads)


def test_knee_dense_points_and_extension():
    assert plan_sweep(300, plan="knee-dense", points=8) == [10, 90, 150, 210, 250, 280, 290, 300]
    extended = plan_sweep(300, plan="knee-dense", extend_pct=20)
    assert extended[-4:] == [300, 310, 330, 360]  # dense next to 300, sparse outwards
    assert extended[:-3] == plan_sweep(300, plan="knee-dense")


def test_knee_dense_has_at_least_five_points_when_room():
    threads = plan_sweep(20, plan="knee-dense", step=2)
    assert len(threads) >= 5 and threads[-1] == 20 and threads == sorted(set(threads))


def test_format_forthreads():
    assert format_forthreads([100, 200, 300, 400, 500]) == "(100-500,100)"
    assert format_forthreads([1, 2, 4, 8]) == "(1,2,4,8)"
    assert format_forthreads([10, 20]) == "(10,20)"
    assert format_forthreads([64]) == "(64)"
    assert format_forthreads([30, 20, 10]) == "(30,20,10)"


@pytest.mark.parametrize(("args", "kwargs", "name"), [
    ((0,), {}, "max_threads"),
    ((2.5,), {}, "max_threads"),
    ((300,), {"plan": "log"}, "plan"),
    ((300,), {"step": 0}, "step"),
    ((300,), {"points": 10}, "points"),
    ((300,), {"plan": "knee-dense", "points": 1}, "points"),
    ((300,), {"min_threads": 400}, "min_threads"),
    ((300,), {"min_threads": 0}, "min_threads"),
    ((300,), {"extend_pct": -5}, "extend_pct"),
    ((300,), {"extend_pct": float("nan")}, "extend_pct"),
])
def test_bad_sweep_arguments_name_the_argument(args, kwargs, name):
    with pytest.raises(ParameterError, match=name):
        plan_sweep(*args, **kwargs)


@pytest.mark.parametrize(("value", "name"), [([], "threads_list"), ([10, 0], r"threads_list\[1\]"),
                                              ("10,20", "threads_list")])
def test_bad_forthreads_lists(value, name):
    with pytest.raises(ParameterError, match=name):
        format_forthreads(value)
