"""Damaged host statistics samples lose numbers, never change one (tests/damage.py's invariant).

Generated over the samples a point's time series and CPU figures are read from, other than a SLOB
run's own files (tests/parse/test_slob_damage.py): the database's counters sampled during the
recorded SLOB run (dbstat.json, tests/data/oracle), a capture of the NFS client's counters made of
a real /proc/self/mountstats (tests/data/nfs) and the /proc/stat ``cpu`` lines of this machine.
Each reader refuses a damaged file in one line or gives the clean numbers: a series read in a
report's window must cover it (a sample missing, repeated or out of order is refused, never
differenced over a longer interval).
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA
from damage import assert_loses_never_changes, damage_text
from flashpoc.core.errors import ParseError
from flashpoc.oracle.dbstat import dbstat_intervals, samples_text
from flashpoc.hosts.metrics import cpu_utilisation
from flashpoc.hosts.mountstats import SAMPLE_MARK, nfs_intervals
from test_dbstat import sampled

WINDOW = ("09:26:07", "09:32:10")  # the recorded SLOB run's AWR snapshots
RDMA = DATA / "nfs" / "mountstats-el8.7-rdma.qa"


def capture() -> str:
    """A capture of the real mountstats text sampled every 3 s from before the window to after it
    (the mounts did no I/O between the samples: the same counters)."""
    text = RDMA.read_text()
    start = 9 * 3600 + 25 * 60 + 58
    clocks = [start + 3 * i for i in range(134)]  # 09:25:58 .. 09:32:37
    return "".join(f"{SAMPLE_MARK}{1581931558 + c - start} {c // 3600:02d}:{c // 60 % 60:02d}:{c % 60:02d}\n{text}"
                   for c in clocks)


def proc_stat_cpu() -> str:
    return next(line for line in Path("/proc/stat").read_text().splitlines() if line.startswith("cpu "))


@functools.cache
def samples() -> dict[str, str]:
    """The recorded samples, read when a test asks (not as the module is imported: every
    pytest-xdist worker imports it to collect its tests)."""
    return {"dbstat.json": samples_text(sampled(), 3, None), "mountstats.out": capture()}


READERS = {
    "dbstat.json": lambda text: dbstat_intervals(text, *WINDOW, cover=True),
    "dbstat.json instance 2": lambda text: dbstat_intervals(text, *WINDOW, 2, cover=True),
    "mountstats.out": lambda text: nfs_intervals(text, *WINDOW, cover=True),
}


@functools.cache
def clean() -> dict[str, list]:
    """Each reader's rows of the undamaged samples."""
    return {name: read(samples()[name.split()[0]]) for name, read in READERS.items()}


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_damaged_sample_file_loses_the_series_never_changes_it(data):
    name = data.draw(st.sampled_from(sorted(READERS)), label="reader")
    file = name.split()[0]
    damaged, _ = damage_text(data, samples()[file])
    assert_loses_never_changes(lambda: READERS[name](damaged), clean()[name], file)


def test_the_clean_samples_cover_the_window():
    rows = clean()
    assert len(rows["dbstat.json"]) == 136 and len(rows["mountstats.out"]) == 124  # 09:26:01 .. 09:32:10
    assert [r["warmup"] for r in rows["mountstats.out"][:4]] == [True, True, True, False]


def test_a_capture_missing_a_sample_is_refused_not_differenced_over_six_seconds():
    """A sample's mark line lost: its counters join the sample before it (the mount listed twice)
    and the next interval is 6 s long; the capture is refused."""
    text = capture()
    mark = f"{SAMPLE_MARK}1581931618 09:26:58\n"
    assert text.count(mark) == 1
    with pytest.raises(ParseError, match="no sample between 09:26:55 and 09:27:01"):
        nfs_intervals(text.replace(mark, ""), *WINDOW, cover=True)


def test_a_capture_that_lost_a_device_line_is_refused():
    """Without its ``device`` line a mount's counters were read as the NFS mount's before it in the
    same sample (/storage/group's as /storage/icds')."""
    text = capture()
    line = "device example.com:/group mounted on /storage/group with fstype nfs statvers=1.1\n"
    at = text.index(line, len(text) // 2)
    with pytest.raises(ParseError, match="listed twice"):
        nfs_intervals(text[:at] + text[at + len(line):], *WINDOW, cover=True)


def test_a_capture_with_a_device_line_repeated_is_refused():
    """A mount's device line twice: the first copy has nothing under it, its counters read as zero
    would make the next interval's IOPS (found by the generated damage: 9.7 IOPS where none were)."""
    text = capture()
    line = "device example.com:/group mounted on /storage/group with fstype nfs statvers=1.1\n"
    at = text.index(line, len(text) // 2)
    with pytest.raises(ParseError, match="the NFS mount /storage/group has nothing under its device line"):
        nfs_intervals(text[:at] + line + text[at:], *WINDOW, cover=True)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(data=st.data())
def test_a_damaged_proc_stat_cpu_line_loses_the_cpu_figures_never_changes_them(data):
    """Two real /proc/stat lines of this machine, the later one damaged (cut at any offset, a
    counter's digits overwritten by a minus sign or markup): refused in one line, or the same
    figures. Found: a line cut inside its last counters was read with fewer of them."""
    before = proc_stat_cpu()
    after = before
    while after == before:
        after = proc_stat_cpu()
    damaged, _ = damage_text(data, after, ("cut", "bytes overwritten"))
    assert_loses_never_changes(lambda: cpu_utilisation(before, damaged), cpu_utilisation(before, after), "/proc/stat")


def test_a_cpu_counter_that_goes_down_is_refused_but_iowait():
    before = "cpu  7611 0 2308 53927 463 0 66 14 0 0"
    with pytest.raises(ParseError, match="went down"):
        cpu_utilisation(before, "cpu  7641 0 2447 54133 463 0 61 15 0 0")
    # iowait may go down (the kernel's documentation says so): not a damage, counted as no tick
    assert cpu_utilisation(before, "cpu  7641 0 2447 54133 460 0 91 15 0 0")["host_cpu_iowait_pct"] == 0.0
    with pytest.raises(ParseError, match="cut short"):
        cpu_utilisation(before, "cpu  7641 0 2447 54133 463 0 91 1")
    with pytest.raises(ParseError, match="non-numeric"):
        cpu_utilisation(before, "cpu  -641 0 2447 54133 463 0 91 15 0 0")
