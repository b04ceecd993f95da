"""A DBA job's I/O per file (DBA_HIST_FILESTATXS / DBA_HIST_TEMPSTATXS deltas through SQL), as
the AWR report's File IO Stats print it.

The rows are tests/data/oracle/filestats_xydb_11.2.0.4_snap36006_36007.json, reconstructed from
the File IO Stats of the real 11.2.0.4 report tests/data/awr/11.2.0.4_single_prod_awr.html.gz
(see tests/data/oracle/README.md): the test computes every file's numbers from the rows and
compares them with the numbers the parser reads from that report, to their printed precision.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA
from flashpoc.jobs.sqlscript.profile import file_io
from flashpoc.jobs.sqlscript.report import (file_io_table, file_placement, file_placement_table, file_role,
                                               placement_text)
from flashpoc.oracle.awr import parse_awr, read_awr_file

ROWS = DATA / "oracle" / "filestats_xydb_11.2.0.4_snap36006_36007.json"
REPORT = DATA / "awr" / "11.2.0.4_single_prod_awr.html.gz"
SLOB_ROWS = DATA / "oracle" / "awr_rows_slob19c_rac2node_inst2_snap47_48.json"


def recorded(path: Path = ROWS) -> dict:
    rows = json.loads(path.read_text())
    for row in rows["snapshot"]:
        for key in ("startup_time", "begin_interval_time", "end_interval_time"):
            row[key] = datetime.fromisoformat(row[key])
    return rows


def printed(value: float | None, places: int) -> str | None:
    """A number as Oracle prints it (half away from zero)."""
    if value is None:
        return None
    return str(Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def test_every_file_as_the_report_prints_it():
    files = {f["filename"]: f for f in file_io(recorded(), 36006, 36007)}
    report = parse_awr(read_awr_file(REPORT))["file_io"]
    assert len(report) == 18 and set(files) == {f["filename"] for f in report}
    for want in report:
        got = files[want["filename"]]
        assert (got["tablespace"], got["reads"], got["writes"], got["buffer_waits"]) == (
            want["tablespace"], want["reads"], want["writes"], want["buffer_waits"]), want["filename"]
        assert printed(got["avg_read_ms"], 2) == printed(want["avg_read_ms"], 2), want["filename"]
        assert printed(got["blocks_per_read"], 2) == printed(want["blocks_per_read"], 2), want["filename"]
        assert printed(got["avg_buffer_wait_ms"], 2) == printed(want["avg_buffer_wait_ms"], 2), want["filename"]
        assert printed(got["reads_per_s"], 0) == printed(want["reads_per_s"], 0), want["filename"]
        assert printed(got["writes_per_s"], 0) == printed(want["writes_per_s"], 0), want["filename"]


def test_hottest_files_first_undo_second():
    """Ordered by reads + writes: TS_UNIAUTH (4,075,643 reads, 917,089 writes), then UNDOTBS1 (no
    reads, 9,498 writes, 1,984 buffer waits at 0.11 ms)."""
    files = file_io(recorded(), 36006, 36007)
    assert [f["tablespace"] for f in files[:3]] == ["TS_UNIAUTH", "UNDOTBS1", "TS_PLATFORM_PORTAL_NEW"]
    undo = files[1]
    assert (undo["reads"], undo["avg_read_ms"], undo["writes"], undo["buffer_waits"]) == (0, None, 9498, 1984)
    assert printed(undo["avg_buffer_wait_ms"], 2) == "0.11" and printed(undo["writes_per_s"], 0) == "3"


def test_temp_files_added_files_and_restarts():
    """Temp files (tempstatxs) are rows too; a file without a begin row counts from zero (awrrpt's
    outer join); a file whose counters went down (a restart) is left out, never negative."""
    rows = recorded()
    undo = [r for r in rows["filestatxs"] if r["tsname"] == "UNDOTBS1"]
    rows["tempstatxs"] = [{**copy.deepcopy(r), "tsname": "TEMP", "filename": "/u01/temp01.dbf"} for r in undo]
    rows["filestatxs"] = [r for r in rows["filestatxs"] if not (r["tsname"] == "USERS" and r["snap_id"] == 36006)]
    for r in rows["filestatxs"]:
        if r["tsname"] == "SYSTEM" and r["snap_id"] == 36007:
            r["phyrds"] = 0
    files = {f["filename"]: f for f in file_io(rows, 36006, 36007)}
    assert files["/u01/temp01.dbf"]["writes"] == 9498 and files["/u01/temp01.dbf"]["tablespace"] == "TEMP"
    users = [r for r in rows["filestatxs"] if r["tsname"] == "USERS"][0]
    assert files["/u01/app/oracle/oradata/xydb/users01.dbf"]["reads"] == users["phyrds"]
    assert not any(f["tablespace"] == "SYSTEM" and "system01" in name for name, f in files.items())


def test_no_file_rows_in_the_snapshots():
    """The 19c SLOB report prints 'No data exists' under File IO Stats: its recorded rows have none."""
    assert file_io(recorded(SLOB_ROWS), 47, 48) == []
    table = file_io_table(pd.DataFrame([{"label": "undo-on-hdd", "file_io": []}]))
    assert table.frame.empty and any("No data exists" in n for n in table.notes)


def test_the_report_table_hottest_first_with_units():
    runs = pd.DataFrame([{"label": "undo-on-hdd", "file_io": file_io(recorded(), 36006, 36007)}])
    frame = file_io_table(runs).frame
    assert len(frame) == 10  # the ten hottest of 18
    assert list(frame.columns) == ["Run", "Tablespace", "File", "Reads", "Reads per s", "Avg read (ms)", "Writes",
                                   "Writes per s", "Buffer waits", "Avg buffer wait (ms)"]
    undo = list(frame.iloc[1])
    assert undo[:9] == ["undo-on-hdd", "UNDOTBS1", "/u01/app/oracle/oradata/xydb/undotbs01.dbf", "0", "0.0", "–",
                        "9,498", "2.6", "1,984"]
    assert printed(float(undo[9]), 2) == "0.11"  # the report prints 0.11; the table has 3 decimals under 10 ms


def moved_undo(rows: dict, filename: str) -> dict:
    """The recorded rows with UNDOTBS1's file at ``filename``: the seed's second configuration (UNDO moved)."""
    rows = copy.deepcopy(rows)
    for r in rows["filestatxs"]:
        if r["tsname"] == "UNDOTBS1":
            r["filename"] = filename
    return rows


def test_where_the_files_are_in_each_run():
    """Seed 003 moved UNDO to flash: the placement table names, per tablespace, each run's directory or
    ASM disk group and its count of files, as the runs' File IO rows name them, and marks what moved."""
    hdd = file_io(recorded(), 36006, 36007)
    ssd = file_io(moved_undo(recorded(), "+FLASH/XYDB/DATAFILE/undotbs1.263.1"), 36006, 36007)
    runs = pd.DataFrame([{"label": "undo-on-hdd", "file_io": hdd}, {"label": "undo-on-ssd", "file_io": ssd}])
    table = file_placement_table(runs)
    frame = table.frame.set_index("Tablespace")
    assert list(table.frame.columns) == ["Files", "Tablespace", "undo-on-hdd", "undo-on-ssd", "Moved"]
    assert list(frame.loc["UNDOTBS1"]) == ["UNDO", "/u01/app/oracle/oradata/xydb (1 file)", "+FLASH (1 file)", "yes"]
    assert table.frame["Files"].iloc[0] == "UNDO" and set(table.frame["Files"]) == {"UNDO", "SYSTEM", "data"}
    assert list(frame.loc["TS_DC"]) == ["data", *["/home/loie/db/oracle/oradata/dev (5 files)"] * 2, ""]
    assert list(frame.loc["SYSTEM"]) == ["SYSTEM", *["/u01/app/oracle/oradata/xydb (2 files)"] * 2, ""]
    assert placement_text(runs) == ("Between the runs the files of UNDOTBS1 (UNDO): /u01/app/oracle/oradata/xydb in "
                                    "undo-on-hdd, +FLASH in undo-on-ssd.")
    assert placement_text(runs.iloc[:1]) is None


def test_temp_files_are_temp_and_a_run_without_a_file_shows_none():
    rows = recorded()
    undo = [r for r in rows["filestatxs"] if r["tsname"] == "UNDOTBS1"]
    rows["tempstatxs"] = [{**copy.deepcopy(r), "tsname": "TEMPX", "filename": "/temp/temp01.dbf"} for r in undo]
    runs = pd.DataFrame([{"label": "a", "file_io": file_io(rows, 36006, 36007)},
                         {"label": "b", "file_io": file_io(recorded(), 36006, 36007)}])
    frame = file_placement_table(runs).frame.set_index("Tablespace")
    assert list(frame.loc["TEMPX"]) == ["TEMP", "/temp (1 file)", "–", ""]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["UNDOTBS2", "TEMP", "SYSAUX", "DATA1", "users"]),
                          st.sampled_from(["+DATA", "/u01/oradata", "/flash/o", "C:\\oradata"]),
                          st.text(alphabet="abc01.", min_size=1, max_size=6)), min_size=1, max_size=12),
       st.booleans())
def test_every_file_is_placed_once_where_its_name_says(files, temp):
    """Any set of files: each counted once, under its tablespace, in the folder or disk group its name starts with."""
    sep = {"C:\\oradata": "\\"}
    rows = [{"tablespace": ts, "filename": f"{where}{sep.get(where, '/')}{name}", "temp": temp and ts == "TEMP"}
            for ts, where, name in files]
    rows = list({r["filename"]: r for r in rows}.values())
    placed = file_placement(pd.DataFrame([{"label": "run", "file_io": rows}]))
    assert sum(n for by_run in placed.values() for n in by_run["run"].values()) == len(rows)
    for r in rows:
        where = next(w for w in ("+DATA", "/u01/oradata", "/flash/o", "C:\\oradata") if r["filename"].startswith(w))
        assert where in placed[(file_role(r), r["tablespace"])]["run"]
