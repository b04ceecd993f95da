"""Generated damage to every real vdbench output directory (tests/data/vdbench, vdbench-public,
vdbench-ssh) through the readers the workbook uses, with the one invariant of tests/damage.py:
refused in one line, or exactly the clean read's numbers, or a loss named in the result's
``damaged`` text. A file of the directory is cut, emptied, changed, or removed.

Two readers: the output directory checked file against file (:func:`parse_output_dir`, what the
measure loop reads, with each run's point columns as :func:`measured_columns` makes them), and
the rows ``flashpoc parse vdbench`` prints (totals joined with the flatfile).
"""

from __future__ import annotations

import re
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, flat_numbers
from damage import SIGN, TEXT_DAMAGE, assert_loses_never_changes, damage_files
from flashpoc.engines.vdbench.measure import run_totals
from flashpoc.engines.vdbench.measure.output import interval_table, measured_columns
from flashpoc.engines.vdbench.parse import parse_output_dir, read_output_dir, vdbench_rows
from flashpoc.engines.vdbench.plan import RunDefinition
from flashpoc.core.errors import ParseError, RemoteError
from flashpoc.params import Workload, campaign_from_dict

SETS = sorted(f"{group}/{path.name}" for group in ("vdbench", "vdbench-public", "vdbench-ssh")
              for path in (DATA / group).iterdir() if path.is_dir())
INTERVAL_S = {"vdbench-public/vdbench50407_8host_fsd_randread_4k_128t": 5}
"""Each set's ``interval=`` (seconds) where it is not 1 (its summary.html's times), for its intervals."""

KINDS = TEXT_DAMAGE + (SIGN,)
"""Every damage of tests/damage.py, a minus sign before a number too."""

def generated(examples: int):
    """Seeded (derandomized, no example database) and bounded."""
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@lru_cache(maxsize=None)
def files_of(set_name: str) -> dict[str, str]:
    """The set's files as :func:`read_output_dir` reads them (do not mutate)."""
    return read_output_dir(DATA / set_name)


def keyed(rows: list[dict], *keys: str) -> dict:
    """Rows keyed by what they are (run, interval, section, bucket), not by their position."""
    return {"/".join(str(row.get(key)) for key in keys): row for row in rows}


def read_directory(files: dict[str, str], set_name: str) -> dict:
    """What the measure loop reads of an output directory: every file's rows (keyed), and each
    finished run's point columns (:func:`measured_columns`)."""
    out = parse_output_dir(files)
    points = {str(total["run_index"]): measured_columns(total, out, INTERVAL_S.get(set_name, 1))
              for total in out["totals"] if total["report_format"] == "sd"}  # the workbook writes sd= runs only
    return {"damaged": out.get("damaged"), "points": points,
            "totals": keyed(out["totals"], "run_index"), "summary": keyed(out["summary"], "run_index", "interval"),
            "flatfile": keyed(out["flatfile"], "run_index", "interval"),
            "hosts": {name: keyed(rows, "run_index", "interval") for name, rows in out["hosts"].items()},
            "slaves": {name: keyed(rows, "run_index", "interval") for name, rows in out["slaves"].items()},
            "histograms": {name: keyed(rows, "run_index", "section", "bucket_index")
                           for name, rows in out["histograms"].items()},
            "opened": {sd: int(write) for sd, write in out["opened"].items()}}


@lru_cache(maxsize=None)
def clean_directory(set_name: str) -> dict:
    return read_directory(files_of(set_name), set_name)


@generated(80)
@given(data=st.data())
def test_a_damaged_output_directory_loses_numbers_and_names_the_file_never_changes_one(data):
    set_name = data.draw(st.sampled_from(SETS), label="set")
    damaged, name, _ = damage_files(data, files_of(set_name), kinds=KINDS)
    assert_loses_never_changes(lambda: read_directory(damaged, set_name), clean_directory(set_name), name)


@lru_cache(maxsize=None)
def clean_rows(set_name: str) -> dict:
    """The clean set's rows; none for a run that failed (refused, as the CLI says why)."""
    try:
        return {str(row["run_index"]): row for row in vdbench_rows(files_of(set_name), set_name)}
    except ParseError:
        return {}


@generated(20)
@given(data=st.data())
def test_the_rows_of_a_damaged_directory_lose_numbers_and_name_the_file(data):
    """``flashpoc parse vdbench``'s rows (totals with the flatfile's columns)."""
    set_name = data.draw(st.sampled_from(SETS), label="set")
    damaged, name, _ = damage_files(data, files_of(set_name), kinds=KINDS)
    assert_loses_never_changes(
        lambda: {str(row["run_index"]): row for row in vdbench_rows(damaged, set_name)}, clean_rows(set_name), name,
        numbers=flat_numbers)


# --- each defect found, kept as a test (each failed before its fix) ------------------------------

FRESH = "vdbench/rr_3threads_2s"
MULTI = "vdbench/multi_host"


def without(set_name: str, *names: str) -> dict[str, str]:
    """The set's files without ``names`` (which must be there)."""
    files = dict(files_of(set_name))
    for name in names:
        del files[name]
    return files


def cut_after(text: str, line: str, keep: int = 0) -> str:
    """``text`` cut after its first line holding ``line`` and ``keep`` more lines."""
    lines = text.splitlines(keepends=True)
    at = next(i for i, text_line in enumerate(lines) if line in text_line)
    return "".join(lines[:at + 1 + keep])


def test_a_removed_summary_loses_the_interval_series_and_says_so():
    """summary.html removed: each point had 0 intervals, no verdict and the label's warm-up (vdbench
    5.04.06 averages intervals 1-2 under avg_2-2) unsaid; now they are lost and named."""
    out = parse_output_dir(without(FRESH, "summary.html"))
    assert out["missing"] == ["summary.html"] and out["damaged"] == "summary.html: missing (vdbench writes it with totals.html)"
    point = measured_columns(out["totals"][0], out, 1)
    clean = measured_columns(parse_output_dir(files_of(FRESH))["totals"][0], parse_output_dir(files_of(FRESH)), 1)
    assert clean["intervals"] == 2 and clean["avg_intervals"] == "1-2"
    assert point["intervals"] is None and point["avg_intervals"] is None and point["interval_steady"] is None
    assert point["iops"] == clean["iops"] == 19258.0
    assert point["damaged"].startswith("summary.html: missing (lost: intervals, interval_iops_cv_pct")
    assert point["damaged"].endswith("; summary.html: missing (vdbench writes it with totals.html)")


def test_a_removed_histogram_loses_the_shares_and_says_so():
    out = parse_output_dir(without(FRESH, "histogram.html"))
    point = measured_columns(out["totals"][2], out, 1)
    assert point["clat_under_1ms_pct"] is None and point["histogram_intervals"] is None
    assert "histogram.html: missing (vdbench writes it with totals.html)" in point["damaged"]
    assert "histogram.html: missing (lost: clat_under_512us_pct, clat_under_1ms_pct" in point["damaged"]


@pytest.mark.parametrize(("set_name", "name", "said"), [
    (MULTI, "hd1.html", "hd1.html: missing (summary.html links it)"),  # a host's rows
    (MULTI, "hd2-1.html", "hd2-1.html: missing (hd2.html links it)"),  # a slave's rows
    (MULTI, "sd3.histogram.html", "sd3.histogram.html: missing (sd3.html links it)"),
    (FRESH, "flatfile.html", "flatfile.html: missing (vdbench writes it with totals.html)"),
])
def test_a_removed_report_is_named_where_its_rows_were(set_name, name, said):
    """A host's, a slave's or an sd's report, or the flatfile, removed: their rows were dropped
    unsaid (per_host without the host, the CLI's rows without the flatfile's columns)."""
    files = without(set_name, name)
    assert said in parse_output_dir(files)["damaged"]
    assert all(said in row["damaged"] for row in vdbench_rows(files, set_name))


def test_a_read_only_invocation_whose_slave_stdout_is_missing_is_not_stored():
    """A slave's stdout (where vdbench says how it opened each sd) removed: opened for writing was
    unknown and read as no; a read-only invocation is now refused, a writing one stored."""
    out = parse_output_dir(without(FRESH, "localhost-0.stdout.html"))
    assert out["opened"] == {} and out["missing"] == ["localhost-0.stdout.html"]
    reads = Workload(name="rd1", rw="randread", bs="4k")
    rd = RunDefinition(name="rd1", workload="rd1", threads=(1, 2, 4), xfersize="4k", elapsed_s=2)
    with pytest.raises(RemoteError, match="localhost-0.stdout.html missing: whether vdbench opened a target for writing "
                                          "although rd1 only reads cannot be told"):
        run_totals(reads, rd, "g", out, "local: sweep", "here")
    assert len(run_totals(Workload(name="rd1", rw="randwrite", bs="4k"), rd, "g", out, "local: sweep", "here")) == 3
    assert measured_columns(out["totals"][0], out, 1)["opened_for_write"] is None


@pytest.mark.parametrize(("name", "damage", "message"), [
    # a per-sd histogram cut after its first run: its runs were dropped unsaid
    ("scratch.histogram.html", lambda text: cut_after(text, "2000.000 <         max"),
     "scratch.histogram.html has 1 run"),
    # the last section cut at a line end: its last buckets were dropped
    ("histogram.html", lambda text: text[:text.rindex("1000.000 <")],
     "histogram.html ends in the 'Only reads done for this workload' section of run 2, before its 'max' bucket"),
    # a section's header line lost: its buckets were skipped
    ("histogram.html", lambda text: "".join(line for i, line in enumerate(text.splitlines(keepends=True)) if i != 46),
     "histogram.html line 48: a bucket line outside a table"),
])
def test_a_histogram_cut_or_missing_a_line_is_refused(name, damage, message):
    files = files_of(FRESH)
    with pytest.raises(ParseError, match=re.escape(message)):
        parse_output_dir({**files, name: damage(files[name])})


def test_a_histogram_cut_after_a_run_s_start_loses_its_shares_and_says_so():
    """histogram.html cut after its last run's start line: that run's buckets were dropped unsaid.
    vdbench writes no histogram for some runs (a fill that ends at its files' end), so the run's
    shares are lost and named, not refused."""
    files = files_of(FRESH)
    out = parse_output_dir({**files, "histogram.html": cut_after(files["histogram.html"], "xfersize=4k threads=4</b>")})
    assert out["damaged"] == "histogram.html: no bucket of run 2 (cut off, or vdbench wrote none)"
    point = measured_columns(out["totals"][2], out, 1)
    assert point["clat_under_1ms_pct"] is None and point["histogram_intervals"] is None
    assert point["damaged"].startswith("histogram.html: no bucket of run 2 (lost: clat_under_512us_pct, ")
    clean = parse_output_dir(files)
    assert measured_columns(out["totals"][1], out, 1)["clat_under_1ms_pct"] == measured_columns(
        clean["totals"][1], clean, 1)["clat_under_1ms_pct"] is not None


def test_a_changed_histogram_count_is_refused():
    """vdbench prints each bucket's count and its share of the section: a count changed (31,935 to
    31,985) no longer is its share (it was read as printed)."""
    files = files_of(FRESH)
    changed = files["histogram.html"].replace("       31,935  82.9136", "       31,985  82.9136", 1)
    with pytest.raises(ParseError, match=r"histogram.html line 16: 3,746 I/Os are 9.7132 % of the section's "
                                         r"38,566, vdbench printed 9.7258 % \(a damaged count"):
        parse_output_dir({**files, "histogram.html": changed})


def test_intervals_that_do_not_average_to_the_average_lose_the_series_and_say_so():
    """An interval's rate changed (20,236 to 20,836) where no logfile.html has the line's copy: the
    average was said to count the label's intervals (the fallback), now the series is lost and named."""
    files = without(FRESH, "logfile.html")
    out = parse_output_dir({**files, "summary.html": files["summary.html"].replace("2   20236.00", "2   20836.00", 1)})
    point = measured_columns(out["totals"][0], out, 1)
    assert point["avg_intervals"] is None and point["intervals"] is None and point["iops"] == 19258.0
    assert point["damaged"].startswith("summary.html: the intervals of run 0 do not average to its avg_2-2 line, "
                                       "to its precision (lost: intervals,")
    assert interval_table("p", 1, out["totals"][0], out) == []


def test_a_failed_run_is_refused_in_one_line():
    """``flashpoc parse vdbench`` on a run that failed: vdbench's own words, on one line."""
    with pytest.raises(ParseError) as raised:
        vdbench_rows(files_of("vdbench/error_missing_lun"), "OUT")
    assert "\n" not in str(raised.value)
    assert str(raised.value).startswith("vdbench run in OUT failed: Undefined size for sd=sd1,lun=")


# --- the real vdbench: an invocation whose output is damaged, through the measure loop ---------------


def test_a_real_vdbench_output_that_is_damaged_is_refused_or_stored_with_its_loss_named(tmp_path, monkeypatch):
    """Real vdbench runs each invocation; its output directory is damaged on its way back (summary.html
    and flatfile.html removed, then totals.html cut short) before the measure loop reads it. The
    first invocation's points are stored with totals.html's numbers, no interval series and a
    ``damaged`` that names both files (points.csv too); the second is refused, nothing stored."""
    import dataclasses

    import pandas as pd

    from flashpoc import phases
    from flashpoc.engines.vdbench import measure as vdbench_measure
    from test_vdbench_real import campaign_values, totals_avg_lines

    cfg = campaign_from_dict(campaign_values(tmp_path))
    real, damage = vdbench_measure.run_vdbench, {}

    def run_damaged(*args, **kwargs):
        run = real(*args, **kwargs)
        return dataclasses.replace(run, files=damage["now"](dict(run.files)))

    monkeypatch.setattr(vdbench_measure, "run_vdbench", run_damaged)
    damage["now"] = lambda files: {name: text for name, text in files.items()
                                   if name not in ("summary.html", "flatfile.html")}
    rows = phases.run_sweep(cfg, {"rr": [1, 2]}, progress=False).to_dict("records")
    assert [r["threads"] for r in rows] == [1, 2]
    group = next((tmp_path / "results" / "real" / "points" / "sweep").iterdir())
    printed = totals_avg_lines((group / "output__totals.html").read_text())
    for row in rows:
        assert row["iops"] == float(printed[("rd1", row["threads"])][0]) and pd.isna(row["intervals"])
        assert "summary.html: missing (lost: intervals, " in row["damaged"]
        assert "flatfile.html: missing (vdbench writes it with totals.html)" in row["damaged"]
        assert "summary.html: missing (vdbench writes it with totals.html)" in row["damaged"]
    assert pd.read_csv(tmp_path / "results" / "real" / "points.csv")["damaged"].notna().all()

    damage["now"] = lambda files: {**files, "totals.html": files["totals.html"][: len(files["totals.html"]) // 2]}
    with pytest.raises(ParseError, match="totals.html"):
        phases.run_sweep(cfg, {"rr": [3]}, progress=False)
    assert [p.name for p in group.parent.iterdir()] == [group.name]
