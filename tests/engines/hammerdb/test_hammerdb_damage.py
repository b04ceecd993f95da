"""Damaged HammerDB outputs lose numbers and say so, never change one (issue 28): generated damage
(tests/damage.py) to every real recorded run of tests/data/hammerdb, and the cases found by hand.

A run's files are read as a point's are (:func:`flashpoc.engines.hammerdb.metrics.run_metrics`):
HammerDB's numbers cross-checked between the sources that print them, the timed test's window from
the timestamped virtual-user log, the load host's CPU over it from hostcpu.log."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TESTS
from damage import assert_loses_never_changes, damage_files, damaged_texts
from flashpoc.engines.hammerdb.metrics import run_metrics
from flashpoc.engines.hammerdb.parse import read_files
from flashpoc.core.errors import ParseError

DATA = TESTS / "data" / "hammerdb"


@cache
def _recorded() -> dict[str, tuple[dict[str, str], dict]]:
    """Every recorded run that reads (a run of one job whose virtual users all finished): its files
    and their clean read."""
    runs = {}
    for folder in sorted(p for p in DATA.iterdir() if p.is_dir()):
        files = read_files(folder)
        try:
            runs[folder.name] = (files, run_metrics(files)[0])
        except ParseError:  # a failed run, a schema build, several jobs' answers: not a run's numbers
            continue
    return runs


def _named(result, damaged_file: str) -> bool:
    """The damaged file is named; a virtual-user log whose unique name no other file gives is named
    by its pattern (``hammerdb*.log``)."""
    texts = damaged_texts(result)
    return any(damaged_file in t for t in texts) or (
        damaged_file.startswith("hammerdb") and any("hammerdb*.log" in t for t in texts))


def test_the_recorded_runs_read_whole():
    runs = _recorded()
    assert {"compare_fsync_on_1vu", "compare_fsync_off_3vu", "sweep_1vu", "sweep_4vu", "timed_2vu"} <= set(runs)
    assert all(not damaged_texts(clean) for _, clean in runs.values())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_damaged_recorded_runs_lose_numbers_never_change_them(data):
    name = data.draw(st.sampled_from(sorted(_recorded())), label="run")
    files, clean = _recorded()[name]
    damaged, damaged_file, what = damage_files(data, files)
    assert_loses_never_changes(lambda: run_metrics(damaged)[0], clean, f"{damaged_file}", loss_named=_named)


def _line_damage(text: str):
    """Every line of ``text`` removed, repeated, and swapped with the next: ``(what, damaged text)``."""
    lines = text.splitlines(keepends=True)
    for i in range(len(lines)):
        yield f"line {i + 1} removed", "".join(lines[:i] + lines[i + 1:])
        yield f"line {i + 1} repeated", "".join(lines[:i + 1] + lines[i:])
        if i + 1 < len(lines):
            yield f"lines {i + 1}, {i + 2} swapped", "".join(lines[:i] + [lines[i + 1], lines[i]] + lines[i + 2:])


@pytest.mark.parametrize("kind", ["hammerdb_", "hostcpu.log", "hdbtcount_"])
def test_every_line_of_the_dated_files_removed_repeated_or_swapped(kind):
    """The files that date the timed test and give its CPU and series, each line of them damaged in
    turn (the generated damage rarely hits the lines at the window's edges, where a shift would show)."""
    files, clean = _recorded()["compare_fsync_on_3vu"]
    name = next(n for n in files if n.startswith(kind))
    for what, text in _line_damage(files[name]):
        assert_loses_never_changes(lambda: run_metrics({**files, name: text})[0], clean, name, loss_named=_named)


@pytest.fixture
def compare_1vu() -> dict[str, str]:
    return dict(_recorded()["compare_fsync_on_1vu"][0])


def test_hostcpu_cut_at_a_line_loses_the_cpu_naming_the_file(compare_1vu):
    """Issue 28's case: hostcpu.log cut at a line read 99.18 % instead of the whole file's 99.52 %."""
    assert f"{run_metrics(compare_1vu)[1]['host_cpu_busy_pct']:.2f}" == "99.52"
    lines = compare_1vu["hostcpu.log"].splitlines(keepends=True)
    compare_1vu["hostcpu.log"] = "".join(lines[:30])
    metrics = run_metrics(compare_1vu)[1]
    assert metrics["host_cpu_busy_pct"] is None and metrics["nopm"] == 8243
    assert metrics["damaged"].startswith("hostcpu.log: its samples do not span the timed test (cut short?) (lost: "
                                         "host_cpu_busy_pct")


def test_a_removed_run_log_loses_the_window_naming_it(compare_1vu):
    """Issue 28's case: the run's virtual-user log removed gave test_s null, unsaid."""
    assert run_metrics(compare_1vu)[1]["test_s"] == 60.0
    del compare_1vu["hammerdb_6B05BAA52B3C03E203134313.log"]
    metrics = run_metrics(compare_1vu)[1]
    assert (metrics["test_s"], metrics["intervals"], metrics["host_cpu_busy_pct"], metrics["nopm"]) == (
        None, None, None, 8243)
    assert metrics["damaged"].startswith("hammerdb_6B05BAA52B3C03E203134313.log: missing")


@pytest.mark.parametrize("told,why", [(1, "virtual user 3 printed lines"), (3, "virtual users 1, 2, 3 finished")])
def test_the_active_users_against_the_users_that_printed(told, why):
    """Issue 28's case: HammerDB said 1 active virtual user where a second one printed lines (a
    changed figure that the run's other lines contradict)."""
    files = _recorded()["compare_fsync_on_2vu"][0]
    lines = {n: t.replace("2 Active Virtual Users configured", f"{told} Active Virtual Users configured")
             for n, t in files.items() if n == "console.txt" or (n.startswith("hammerdb") and n.endswith(".log"))}
    assert run_metrics({n: files[n] for n in lines})[1]["virtual_users"] == 2  # the two files alone: 2 users
    with pytest.raises(ParseError, match=why):  # both changed alike: the users that printed and finished say no
        run_metrics(lines)
