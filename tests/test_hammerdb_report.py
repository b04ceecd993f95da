"""The report's HammerDB views on the real recorded runs (PostgreSQL 15, 1/2/4 virtual users and a
2-virtual-user timed run): NOPM against virtual users with the knee, NEWORD p95 against NOPM, and
two configurations at equal virtual users, with the report's palette and units in the axis titles."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from flashpoc.chart import PALETTE, themed_spec
from flashpoc.engines.hammerdb.metrics import read_run
from flashpoc.engines.hammerdb.report import compare_at_equal_users, knee, latency_vs_nopm, nopm_vs_users

DATA = Path(__file__).parent / "data" / "hammerdb"


def points(*folders: str, config: str) -> pd.DataFrame:
    rows = []
    for folder in folders:
        _, metrics, _ = read_run(DATA / folder)
        rows.append({**metrics, "threads": metrics["virtual_users"], "config": config, "workload": "tprocc"})
    return pd.DataFrame(rows)


def _layers(spec: dict) -> list[dict]:
    return spec.get("layer", [spec])


def test_nopm_against_users_with_the_knee():
    sweep = points("sweep_1vu", "sweep_2vu", "sweep_4vu", config="pg15")
    assert list(sweep["nopm"]) == [11088, 9341, 6594]  # TEST RESULT of each run, as printed
    assert knee(sweep).threads == 1  # NOPM falls from the first count on: nothing gained beyond 1
    spec = themed_spec(nopm_vs_users(sweep, knee_users=1, answer="NOPM is highest at 1 virtual user"))
    lines, rule, text = _layers(spec)
    assert lines["encoding"]["x"]["title"] == "Virtual users (count)"
    assert lines["encoding"]["y"]["title"] == "NOPM (new orders per minute)"
    assert rule["mark"]["type"] == "rule" and rule["data"] == text["data"]
    assert spec["datasets"][rule["data"]["name"]] == [{"threads": 1, "label": "knee: 1 virtual user"}]
    drawn = spec["datasets"][lines["data"]["name"]]
    assert [(r["threads"], r["nopm"]) for r in drawn] == [(1, 11088), (2, 9341), (4, 6594)]
    assert spec["title"]["subtitle"] == ["NOPM is highest at 1 virtual user"]


def test_neword_p95_against_nopm_and_the_comparison_at_equal_users():
    both = pd.concat([points("sweep_1vu", "sweep_2vu", "sweep_4vu", config="sweep"),
                      points("timed_2vu", config="timed")], ignore_index=True)
    spec = themed_spec(latency_vs_nopm(both))
    assert (spec["encoding"]["x"]["title"], spec["encoding"]["y"]["title"]) == (
        "NOPM (new orders per minute)", "NEWORD p95 response time (ms)")
    assert spec["encoding"]["color"]["scale"] == {"domain": ["sweep", "timed"], "range": list(PALETTE)}
    drawn = {(r["config"], r["threads"]): r["neword_p95_ms"] for r in spec["datasets"][spec["data"]["name"]]}
    assert drawn[("sweep", 4)] == 35.172 and drawn[("timed", 2)] == 19.915  # the xtprof summaries, as printed
    table = compare_at_equal_users(both)
    assert list(table["Virtual users"]) == [2, 2] and list(table["Configuration"]) == ["sweep", "timed"]
    assert list(table["NOPM (new orders/min)"]) == [9341, 5533]
    assert table["NOPM change vs sweep (%)"].iloc[1] == pytest.approx(round((5533 - 9341) / 9341 * 100, 1))
    assert table["TPM change vs sweep (%)"].iloc[1] == round((12649 - 21554) / 21554 * 100, 1)
