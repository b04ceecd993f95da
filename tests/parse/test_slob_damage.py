"""A damaged SLOB run directory (tests/data/slob: the files runit.sh left) loses numbers, never
changes one, and the point's ``damaged`` column names the file (flashpoc.core.damage).

Generated: hypothesis draws one damage of tests/damage.py (a file cut at any offset or at a line's
end, emptied, a line removed, repeated or swapped, bytes overwritten, a file removed) to every real
run directory; the invariant is tests/damage.py's. A report that cannot be read is passed over for
its twin (awr.txt for awr.html.gz, whose RAC report prints two decimals where the text prints one):
the numbers are then exactly the twin's, read from the undamaged files. Fixed cases found by a
held-out corpus and by the generator follow, each a test that failed before its fix.
"""

from __future__ import annotations

import contextlib
import gzip
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import flashpoc.engines.slob.parse as slob_parse
from conftest import DATA, flat_numbers
from damage import assert_loses_never_changes, damage_files
from flashpoc.core.damage import damaged_files
from flashpoc.core.errors import ParseError

RUNS = sorted(p for p in (DATA / "slob").iterdir() if p.is_dir() and any(p.glob("*.out")))
"""Every recorded SLOB run directory."""
RUN = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
MPSTAT = ("mpstat_usr_pct", "mpstat_sys_pct", "mpstat_iowait_pct", "mpstat_idle_pct", "mpstat_intervals")


def run_files(run: Path) -> dict[str, str]:
    """The run's files as text (a ``.gz`` report gunzipped, so that damage falls on the report)."""
    return {p.name: gzip.decompress(p.read_bytes()).decode() if p.suffix == ".gz" else p.read_text()
            for p in sorted(run.iterdir()) if p.name != "PROVENANCE.md"}


FILES = {run: run_files(run) for run in RUNS}
_PARSERS = ("parse_awr", "parse_mpstat", "parse_iostat")
_CLEAN_PARSES: dict[tuple[str, str], Any] = {}


@contextlib.contextmanager
def clean_parses_reused():
    """The reader's own parsers, each undamaged file parsed once per session (a report or
    mpstat.out takes up to a second): the damaged file, whatever it is, is parsed afresh."""
    originals = {name: getattr(slob_parse, name) for name in _PARSERS}
    clean = {text for files in FILES.values() for text in files.values()}

    def reusing(name):
        def parse(text, *args, **kwargs):
            if text not in clean or args or kwargs:
                return originals[name](text, *args, **kwargs)
            if (name, text) not in _CLEAN_PARSES:
                _CLEAN_PARSES[name, text] = originals[name](text)
            return _CLEAN_PARSES[name, text]
        return parse

    with contextlib.ExitStack() as stack:
        for name in _PARSERS:
            stack.enter_context(mock.patch.object(slob_parse, name, reusing(name)))
        yield


def read(files: dict[str, str]) -> dict[str, Any]:
    """:func:`flashpoc.engines.slob.parse.read_slob_run` of ``files``, as one dict."""
    with clean_parses_reused():
        metrics, intervals = slob_parse.read_slob_run(files)
    return {"metrics": metrics, "intervals": intervals}


def numbers(result: dict[str, Any]) -> dict[str, float]:
    return flat_numbers(result)


_CLEAN: dict[tuple, dict[str, Any]] = {}


def clean_read(run: Path, reports: tuple[str | None, str | None]) -> dict[str, Any]:
    """The undamaged run read from the reports ``(instance, RAC)`` the damaged read took: the
    reports before them (their damaged twins) left out."""
    if (run, reports) not in _CLEAN:
        files = dict(FILES[run])
        for chosen, names in zip(reports, (slob_parse.INSTANCE_REPORTS, slob_parse.RAC_REPORTS)):
            if chosen in names:
                for name in names[:names.index(chosen)]:
                    files.pop(name, None)
        _CLEAN[run, reports] = read(files)
    return _CLEAN[run, reports]


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_damaged_slob_run_loses_numbers_never_changes_one_and_names_the_file(data):
    run = data.draw(st.sampled_from(RUNS), label="run")
    files, name, what = damage_files(data, FILES[run])
    try:
        result = read(files)
    except ParseError as error:
        result = error
    metrics = {} if isinstance(result, ParseError) else result["metrics"]
    clean = clean_read(run, (metrics.get("awr_report"), metrics.get("awr_rac_report")))

    def again():
        if isinstance(result, ParseError):
            raise result
        return result

    assert_loses_never_changes(again, clean, name, numbers=numbers)


# --------------------------------------------------------------------------- fixed cases


def test_the_undamaged_run_names_no_file():
    metrics = read(FILES[RUN])["metrics"]
    assert (metrics["mpstat_intervals"], f"{metrics['mpstat_iowait_pct']:.2f}", metrics["tm_s"]) == (122, "17.79", 364)
    assert damaged_files(metrics) == []


def test_a_cut_mpstat_out_loses_the_cpu_columns_and_names_the_file():
    """Found by the held-out corpus: mpstat.out cut after its sample of 09:29:16 (64 of the window's
    122 intervals) was averaged over what remained: iowait 17.79 became 23.65. The samples end
    before the window's end (09:32:10): the CPU columns are lost and the file named."""
    text = FILES[RUN]["mpstat.out"]
    cut = text[:text.index("09:29:16 AM  CPU")]  # the header of the next report prints the time before it
    metrics = read({**FILES[RUN], "mpstat.out": cut})["metrics"]
    assert all(metrics[column] is None for column in MPSTAT)
    assert damaged_files(metrics) == ["mpstat.out"]
    assert metrics["damaged"].startswith("mpstat.out: its samples end at 09:29:16, before the window's end 09:32:10")
    assert metrics["iops"] == 67029.6  # the report's figures are not the file's


def test_an_mpstat_sample_missing_or_printed_twice_loses_the_cpu_columns():
    """A sample's ``all`` line removed (or repeated) inside the window: the mean of the others is
    not the window's mean."""
    text = FILES[RUN]["mpstat.out"]
    line = next(ln for ln in text.splitlines(keepends=True) if ln.startswith("09:28:10 AM  all"))
    for damaged in (text.replace(line, ""), text.replace(line, line + line)):
        metrics = read({**FILES[RUN], "mpstat.out": damaged})["metrics"]
        assert metrics["mpstat_iowait_pct"] is None and damaged_files(metrics) == ["mpstat.out"]


@pytest.mark.parametrize("tm", [None, "", "Tm 36", "Tm 364\nTm 364\n"], ids=["removed", "emptied", "cut", "repeated"])
def test_a_damaged_tm_out_loses_tm_s_and_names_the_file(tm):
    """Found by the held-out corpus: tm.out emptied or removed left tm_s null with no note."""
    files = {k: v for k, v in FILES[RUN].items() if k != "tm.out" or tm is not None}
    if tm is not None:
        files["tm.out"] = tm
    metrics = read(files)["metrics"]
    assert metrics["tm_s"] is None and damaged_files(metrics) == ["tm.out"]
    assert metrics["damaged"].endswith("(lost: tm_s)")
    assert metrics["mpstat_iowait_pct"] == read(FILES[RUN])["metrics"]["mpstat_iowait_pct"]  # unchanged


def test_an_iostat_device_printed_twice_loses_the_series_not_its_sum():
    """Found by the generator: a device line repeated was added twice into its report's IOPS."""
    text = FILES[RUN]["iostat.out"]
    line = next(ln for ln in text.splitlines(keepends=True)[3000:] if ln.startswith("sde "))
    result = read({**FILES[RUN], "iostat.out": text.replace(line, line + line, 1)})
    metrics, intervals = result["metrics"], result["intervals"]
    assert intervals == [] and "lists sde twice" in metrics["intervals_error"]
    assert damaged_files(metrics) == ["iostat.out"]


def test_a_cut_iostat_out_loses_the_series_not_its_last_reports():
    text = FILES[RUN]["iostat.out"]
    result = read({**FILES[RUN], "iostat.out": text[:len(text) // 2]})
    metrics, intervals = result["metrics"], result["intervals"]
    assert intervals == [] and damaged_files(metrics) == ["iostat.out"]
    assert "before the window's end 09:32:10" in metrics["intervals_error"]


def test_a_report_that_cannot_be_read_is_passed_over_for_its_twin_and_named():
    """awr_rac.txt cut short: the point is read from awr_rac.html.gz, the same report printed to two
    decimals, and says so; without a twin the point is refused in one line."""
    text = FILES[RUN]["awr_rac.txt"]
    metrics = read({**FILES[RUN], "awr_rac.txt": text[:len(text) // 2]})["metrics"]
    assert metrics["awr_rac_report"] == "awr_rac.html.gz" and metrics["iops"] == 67029.56
    assert damaged_files(metrics) == ["awr_rac.txt"] and "End of Report" in metrics["damaged"]
    alone = {k: v for k, v in FILES[RUN].items() if k != "awr_rac.html.gz"}
    with pytest.raises(ParseError, match="truncated"):
        read({**alone, "awr_rac.txt": text[:len(text) // 2]})


def test_an_mpstat_average_that_is_not_the_mean_of_its_samples_is_refused():
    """mpstat prints its mean twice when it ends normally: its samples and its ``Average:`` line
    (the layout of the real file, test_parse_osstat's). A figure changed in one of them is refused."""
    from test_parse_osstat import MPSTAT_WITH_AVERAGE_PM as text

    window = {"begin_time": "17-Feb-20 12:59:59", "end_time": "17-Feb-20 13:00:00"}
    assert slob_parse.mpstat_window(text, window)["mpstat_usr_pct"] == 15.0
    changed = text.replace("Average:     all   15.00", "Average:     all   19.00")
    with pytest.raises(ParseError, match="Average usr_pct 19 is not the mean of its 2 samples"):
        slob_parse.mpstat_window(changed, window)


def test_an_iostat_out_cut_inside_its_first_reports_loses_the_series_named():
    """Found by the generator: iostat.out cut after line 55 (inside report 1) held no report after
    the one since boot, and the series was dropped without a word."""
    text = FILES[RUN]["iostat.out"]
    metrics = read({**FILES[RUN], "iostat.out": "".join(text.splitlines(keepends=True)[:55])})["metrics"]
    assert "no report after its first" in metrics["intervals_error"] and damaged_files(metrics) == ["iostat.out"]


def test_two_iostat_device_lines_swapped_give_the_same_series_to_the_last_digit():
    """Found by the generator: two device lines of a report swapped summed in another order, and
    a latency changed in its 16th digit (4.68853063939609 for 4.688530639396089): sums are exact."""
    lines = FILES[RUN]["iostat.out"].splitlines(keepends=True)
    at = 7432  # sdq and sds of the report stamped 09:30:07
    swapped = "".join(lines[:at] + [lines[at + 1], lines[at]] + lines[at + 2:])
    assert read({**FILES[RUN], "iostat.out": swapped})["intervals"] == read(FILES[RUN])["intervals"]
