"""What a HammerDB user sees, in HammerDB's words: the probe's and the sweep's progress speak of
virtual users, NOPM and NEWORD p95 (the engine's words, not threads and IOPS), the report's
points table has thousands separators and short headers with units, and the settings refuse a
``virtual_users`` key, which would mean nothing (the probe and the sweep choose the users).

The progress runs HammerDB's probe on its hammerdbcli REPLAY DOUBLE (tests/replay/hammerdb_replay.py:
the real recorded 1- and 2-virtual-user runs), as the engine contract does."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import TESTS
sys.path.insert(0, str(TESTS / "replay"))
import hammerdb_replay  # noqa: E402

from flashpoc import phases  # noqa: E402
from flashpoc.engines.hammerdb.metrics import read_run  # noqa: E402
from flashpoc.engines.hammerdb.report import points_table  # noqa: E402
from flashpoc.core.errors import ParameterError  # noqa: E402
from flashpoc.params import campaign_from_dict  # noqa: E402
from flashpoc.present.progress import (EVENTS_ENV, point_legend, point_line, status_line, steadiness_line,  # noqa: E402
                               threads_text)

DATA = TESTS / "data" / "hammerdb"


def _campaign(tmp_path: Path, **hammerdb) -> dict:
    home = hammerdb_replay.install(tmp_path / "HammerDB", sys.executable, {1: "sweep_1vu", 2: "sweep_2vu"})
    return {"campaign": "words", "engine": {"hammerdb": {**hammerdb_replay.SETTINGS, "hammerdb_dir": str(home),
                                                         **hammerdb}},
            "hosts": [{"name": "load1", "address": "localhost", "workdir": str(tmp_path / "work")}],
            "probe": {"strategy": "linear", "min_threads": 1, "max_threads": 2, "step": 1},
            "results_dir": str(tmp_path / "results")}


def test_virtual_users_is_refused_in_one_line_naming_the_key(tmp_path):
    with pytest.raises(ParameterError) as error:
        campaign_from_dict(_campaign(tmp_path, virtual_users=[16, 32]))
    message = str(error.value)
    assert "\n" not in message and "engine.hammerdb.virtual_users: the probe and the sweep choose" in message
    assert "probe.min_threads/max_threads" in message


def test_the_probe_progress_speaks_of_virtual_users_nopm_and_neword(tmp_path, monkeypatch):
    events = tmp_path / "events.jsonl"
    monkeypatch.setenv(EVENTS_ENV, str(events))
    cfg = campaign_from_dict(_campaign(tmp_path))
    phases.run_check(cfg)
    phases.run_probe(cfg, progress=False)
    said = [json.loads(line) for line in events.read_text().splitlines()]
    start = next(e for e in said if e["event"] == "start")
    assert start["detail"] == ["virtual users 1, 2 (2 points)"]
    begins = [status_line(e) for e in said if e["event"] == "begin"]
    assert [b.split(" | ")[1] for b in begins] == ["measuring tprocc at 1 virtual user",
                                                   "measuring tprocc at 2 virtual users"]
    lines = [point_line(e) for e in said if e["event"] == "point"]
    # the recorded runs' TEST RESULT NOPM and their time profiles' NEWORD p95, as printed
    assert "1 virtual user " in lines[0] and "11,088 NOPM, NEWORD p95 8.804 ms" in lines[0]
    assert "2 virtual users" in lines[1] and "9,341 NOPM, NEWORD p95" in lines[1]
    assert not any("thread" in line or "IOPS" in line for line in begins + lines)


def test_threads_text_takes_the_engine_word():
    assert [threads_text(1, "virtual users"), threads_text(96, "virtual users")] == ["1 virtual user",
                                                                                    "96 virtual users"]
    assert [threads_text(1), threads_text(8)] == ["1 thread", "8 threads"]


def _points(*folders: str) -> pd.DataFrame:
    rows = []
    for folder in folders:
        _, metrics, _ = read_run(DATA / folder)
        rows.append({**metrics, "threads": metrics["virtual_users"], "workload": "tprocc", "engine": "hammerdb",
                     "point_id": f"tprocc_t{metrics['virtual_users']:05d}"})
    return pd.DataFrame(rows)


def test_the_points_table_has_thousands_separators_and_short_headers():
    table = points_table(_points("sweep_4vu", "sweep_1vu", "timed_2vu"))
    assert list(table.columns) == ["Virtual users", "NOPM", "TPM", "Error lines", "NEWORD p50 (ms)",
                                   "NEWORD p95 (ms)", "NEWORD p99 (ms)", "PAYMENT p95 (ms)", "TPM CV (%)", "Steady"]
    assert list(table["Error lines"]) == ["0", "0", "0"]  # none printed in these runs: said, not left out
    assert list(table["Virtual users"]) == ["1", "2", "4"]
    assert list(table["NOPM"]) == ["11,088", "5,533", "6,594"]  # the TEST RESULT lines, as printed
    assert list(table["TPM"]) == ["25,984", "12,649", "15,260"]
    assert table["NEWORD p95 (ms)"].iloc[2] == "35.2"  # 35.172 ms in the time profile, shown to 0.1 from 10 ms
    # these recordings have no CPU samples: the column is left out, as AWR's (no Oracle)
    assert not [c for c in table.columns if "CPU" in c or "AWR" in c]
    cpu = points_table(_points("sweep_1vu").assign(host_cpu_busy_pct=[None]).pipe(
        lambda p: pd.concat([p, _points("sweep_2vu").assign(host_cpu_busy_pct=[97.25])])))
    assert list(cpu["Load host CPU (%)"]) == ["–", "97.2"]


def test_the_steadiness_line_names_virtual_users():
    points = _points("sweep_1vu", "sweep_4vu").assign(interval_steady=[False, True])
    line = steadiness_line(points)
    assert "tprocc at 1 virtual user" in line and "thread" not in line


def test_the_terminal_legend_names_the_engine_words():
    assert point_legend("hammerdb") == ("each point: done/total, workload, virtual users, NOPM, NEWORD p95 "
                                        "| elapsed, ETA")
    assert point_legend("fio").startswith("each point: done/total, workload, threads, IOPS (MiB/s")


def test_the_probe_answer_names_virtual_users_when_nopm_still_rises():
    """The real recorded campaign whose NOPM rose up to its last count (tests/engines/hammerdb/test_hammerdb_compare.py's fsync-off)."""
    from dataclasses import asdict

    from flashpoc import analysis
    from flashpoc.analysis import rows
    from flashpoc.campaign.probe_words import probe_answer_text

    points = []
    for users in (1, 2, 3):
        _, metrics, _ = read_run(DATA / f"compare_fsync_off_{users}vu")
        points.append({**metrics, "threads": users, "outstanding_ios": users})
    sat = asdict(analysis.find_saturation(rows.to_points(points, "nopm", "neword_p95_ms")))
    answer = probe_answer_text({"saturation": sat, "rate": "nopm", "rate_word": "NOPM", "threads_word": "virtual users",
                                "points": points, "max_threads": 3})
    assert answer.startswith("No saturation found: NOPM still rising at 3 virtual users, the highest measured "
                             "(+21.3% over 2 virtual users)")  # 9,300 over 7,666 NOPM
    assert "thread" not in answer.replace("probe.max_threads", "")
