"""The DBA's job reads the snapshot rows of its interval: a counter they lack, or that went down,
loses its Load Profile figures and names the rows in the run's ``damaged`` column, never a silent
empty cell (flashpoc.core.damage). The rows are the recorded ones of the SLOB run's snapshots 47-48."""

from __future__ import annotations

import copy

import pytest

from flashpoc.core.damage import damaged_files
from flashpoc.jobs.sqlscript.profile import load_profile
from test_sql_file_io import SLOB_ROWS, recorded

ROWS = recorded(SLOB_ROWS)


def test_the_recorded_rows_give_the_load_profile_awr_prints_and_name_no_loss():
    profile = load_profile(ROWS, 47, 48)
    # awr.txt's Load Profile: "Redo size (bytes): 2,944,975.9 2,821.2"
    assert (round(profile["redo_bytes_per_s"], 1), round(profile["redo_bytes_per_txn"], 1)) == (2944975.9, 2821.2)
    assert damaged_files(profile) == []


@pytest.mark.parametrize("change, said", [
    ("removed", "no 'redo size' row of snapshot 48"),
    ("went down", "'redo size' went down from snapshot 47 to 48 (an instance restart?)"),
])
def test_a_counter_missing_or_gone_down_loses_its_figures_and_says_so(change, said):
    rows = copy.deepcopy(ROWS)
    end = next(r for r in rows["sysstat"] if r["stat_name"] == "redo size" and int(r["snap_id"]) == 48)
    if change == "removed":
        rows["sysstat"].remove(end)
    else:
        end["value"] = 0
    profile = load_profile(rows, 47, 48, "statspack_rows.json")
    assert profile["redo_bytes_per_s"] is None and profile["redo_bytes_per_txn"] is None
    assert profile["damaged"] == f"statspack_rows.json: {said} (lost: redo_bytes_per_s, redo_bytes_per_txn)"
    assert round(profile["block_changes_per_s"], 1) == 8504.0  # "Block changes: 8,504.0"
