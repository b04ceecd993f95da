"""A value or a bound (flashpoc.analysis.bounds): the arithmetic of differences of bounds worked out by hand,
and, over generated curves and comparisons, that every output keeps a bound a bound: no table cell, sentence
or CSV row says "not reached" or leaves a value out where the curve gives a bound, and the bounds hold on
curves whose latency rises with load."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashpoc.analysis import compare
from flashpoc.present import progress, summary
from flashpoc.analysis import Point, iops_at_latency
from flashpoc.analysis.bounds import AT_LEAST, AT_MOST, EXACT, MISSING, NOT_REACHED, Bound, better, beyond, difference
from flashpoc.core.tables import MISSING as DASH


def test_a_bound_against_a_value_is_a_bound_of_the_change():
    # the case: B stayed under 0.5 ms at every point (at least 85,427 IOPS), A reached 12,267
    delta, pct = difference(Bound(12267), Bound(85427, AT_LEAST))
    assert (delta.value, delta.kind) == (85427 - 12267, AT_LEAST)
    assert (round(pct.value, 1), pct.kind) == (596.4, AT_LEAST)
    assert pct.cell(lambda v: f"{v:+.0f} %") == "≥ +596 %"
    assert better(delta, higher_is_better=True) is True and beyond(pct, 10)
    # the baseline a bound: "A at least 100" against B's 150 is a change of at most +50 %
    assert difference(Bound(100, AT_LEAST), Bound(150))[1] == Bound(50, AT_MOST)
    assert difference(Bound(100, AT_MOST), Bound(150, AT_LEAST))[1] == Bound(50, AT_LEAST)
    assert difference(Bound(100, AT_LEAST), Bound(80, AT_MOST))[1] == Bound(-20, AT_MOST)
    # two bounds the same way say nothing of the change
    assert difference(Bound(100, AT_LEAST), Bound(150, AT_LEAST))[0].kind == MISSING
    assert difference(Bound(None, NOT_REACHED), Bound(150))[0].kind == MISSING
    # a bound that allows both signs names no winner; latency (lower is better) at most -30 %: B better
    assert better(Bound(-5, AT_LEAST), True) is None and better(Bound(5, AT_MOST), True) is None
    assert better(Bound(-30, AT_MOST), higher_is_better=False) is True
    assert not beyond(Bound(4, AT_LEAST), 10) and beyond(Bound(-12, AT_MOST), 10)
    assert Bound(float("nan")).kind == MISSING and Bound(3.0, AT_MOST).cell(str) == "≤ 3.0"
    assert Bound(None, NOT_REACHED, "at most 40,000 IOPS measured").words(str) == "not reached"
    with pytest.raises(ValueError, match="kind"):
        Bound(1.0, "below_all")


# -- generated curves ---------------------------------------------------------------------------------------

COMMON = {"engine": "fio", "workload": "4k-randread", "rw": "randread", "bs": "4k", "rwmixread": 100, "iodepth": 1,
          "working_set_bytes": 2**30}


@st.composite
def curve(draw) -> pd.DataFrame:
    """A curve of 2-6 thread counts: IOPS and mean latency each drawn freely (uneven curves too)."""
    count = draw(st.integers(2, 6))
    threads = sorted(draw(st.sets(st.integers(1, 256), min_size=count, max_size=count)))
    iops = [draw(st.floats(100, 200_000)) for _ in threads]
    latency = [draw(st.floats(0.05, 5.0)) for _ in threads]
    return pd.DataFrame({"threads": threads, "iops": iops, "lat_mean_ms": latency, "outstanding_ios": threads,
                         "bw_mibps": [v * 4 / 1024 for v in iops],
                         "host_cpu_busy_pct": [min(99.0, 5 + t / 4) for t in threads]})


def _truth_at_latency(points: pd.DataFrame, latency: float) -> str:
    """What the measured curve says of the IOPS within ``latency``, by the rule in words: at most
    when every point is over it, at least when the heaviest load is under it, else a value."""
    ordered = points.sort_values("threads")
    if (ordered["lat_mean_ms"] > latency).all():
        return AT_MOST
    return AT_LEAST if ordered["lat_mean_ms"].iloc[-1] <= latency else EXACT


def _truth_at_iops(points: pd.DataFrame, level: float) -> str:
    """What a curve says of its latency at ``level`` IOPS: at most below its lightest load, not
    reached when it never gets there, else a value."""
    ordered = points.sort_values("threads")
    if ordered["iops"].iloc[0] > level:
        return AT_MOST
    return EXACT if (ordered["iops"] >= level).any() else NOT_REACHED


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=curve(), b=curve(), slo=st.floats(0.05, 5.0), level=st.floats(50, 250_000))
def test_no_output_drops_a_bound(a, b, slo, level):
    points = pd.concat([a.assign(config="A", **COMMON), b.assign(config="B", **COMMON)], ignore_index=True)
    table = compare.comparison_table(points, slo_ms=slo, iops_levels=[level])
    shown = compare.comparison_display(table).frame.set_index("Measure")
    text = compare.comparison_text(table)
    assert "not reached by" not in text
    at_slo = table[table["metric"] == "IOPS at latency"].iloc[0]
    for side, curve_points in (("baseline", a), ("config", b)):
        kind = _truth_at_latency(curve_points, slo)
        assert at_slo[f"{side}_bound"] == kind
        cell = shown.loc[f"IOPS at {slo:g} ms", "A" if side == "baseline" else "B"]
        assert cell != DASH and cell != "not reached"
        assert cell.startswith({AT_LEAST: "≥ ", AT_MOST: "≤ ", EXACT: tuple("0123456789")}[kind])
        latency = table[table["metric"] == "mean latency at equal IOPS"].iloc[0]
        assert latency[f"{side}_bound"] == _truth_at_iops(curve_points, level)
    # a change is printed wherever the two values allow one
    for row in table.to_dict("records"):
        a_kind, b_kind = row["baseline_bound"], row["config_bound"]
        flipped = {AT_LEAST: AT_MOST, AT_MOST: AT_LEAST}.get(a_kind, a_kind)  # b - a: a's bound turns round
        allowed = {a_kind, b_kind} <= {EXACT, AT_LEAST, AT_MOST} and len({flipped, b_kind} - {EXACT}) <= 1
        change = compare.change_cell(row)
        if allowed and row["baseline_value"]:
            assert not change.startswith(DASH), row
        else:
            assert change.startswith(DASH)
    # the summary of each curve: its SLO cell and sentence say what holds
    table_rows = summary.summary_table(points, slo)
    for r in table_rows.to_dict("records"):
        words = summary.slo_words(r, slo, throughput=False)
        assert "not reached" not in words and "not measured" not in words
        # the executive summary's brief form says the same figure or bound, in a few words
        brief = summary.slo_words(r, slo, throughput=False, brief=True)
        (figure,) = re.findall(r"(?:at least |at most )?[\d,]+ IOPS", words)
        assert re.findall(r"(?:at least |at most )?[\d,]+ IOPS", brief) == [figure] and len(brief.split()) <= 16, brief
        cell = summary.results_table(table_rows, points, slo).frame.iloc[0][f"Within the {slo:g} ms SLO"]
        assert cell != DASH
    # and what `flashpoc run` ends with: a figure (or a bound) in IOPS for each curve
    rows = [line for line in progress.summary_lines(points, "c", slo) if line.startswith("  4k-randread ")]
    assert len(rows) == 2 and all(re.search(r"  (>= |<= )?[\d,]+ IOPS( |$)", line) for line in rows), rows


@st.composite
def monotone(draw) -> tuple[list[Point], callable]:
    """A latency that rises with IOPS (a convex hockey stick) and 3-6 points measured on it."""
    base = draw(st.floats(0.05, 0.5))
    top = draw(st.floats(10_000, 500_000))
    steep = draw(st.floats(0.5, 4.0))

    def latency(iops: float) -> float:  # M/M/1-like: base / (1 - load)^steep
        return base / (1 - iops / top) ** steep

    shares = sorted(draw(st.sets(st.floats(0.01, 0.97), min_size=3, max_size=6)))
    return [Point(i + 1, s * top, latency(s * top)) for i, s in enumerate(shares)], latency, top


@settings(max_examples=150, deadline=None)
@given(data=monotone(), slo=st.floats(0.05, 20.0))
def test_the_bounds_hold_on_a_curve_whose_latency_rises_with_load(data, slo):
    points, latency, top = data
    bound = iops_at_latency(points, slo)
    truth = _solve(latency, slo, top)  # the true IOPS within the SLO on the generating curve
    if bound.kind == AT_LEAST:
        assert truth >= bound.value * (1 - 1e-9)
    elif bound.kind == AT_MOST:
        assert truth <= bound.value * (1 + 1e-9)
    else:  # interpolated on a convex curve: a chord lies above it, so the value is at most the truth's
        assert bound.kind == EXACT and bound.value <= truth * (1 + 1e-9)


def _solve(latency, slo: float, top: float) -> float:
    """The IOPS where ``latency`` reaches ``slo`` (bisection; 0 when even no load is over it)."""
    if latency(0) >= slo:
        return 0.0
    low, high = 0.0, top * (1 - 1e-12)
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if latency(middle) <= slo else (low, middle)
    return low
