"""Rebuild dbstat_samples_slob19c_rac2node_snap47_48.json (see README.md, "Recorded samples of the
database's counters"): what GV$SYSSTAT and GV$SYSTEM_EVENT held, per instance, at each sample that
``sql/dbstat_sample.sql`` would have taken every 3 s during the real SLOB run
tests/data/slob/slob2.5_19c_rac2node_s256_t1_wu4_update10.

Run from the repository root: ``.venv/bin/python tests/data/oracle/reconstruct_dbstat_samples.py``.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from flashpoc.engines.slob.parse import PHYSICAL_DEVICES, iostat_intervals

HERE = Path(__file__).resolve().parent
RUN = HERE.parent / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
OUT = HERE / "dbstat_samples_slob19c_rac2node_snap47_48.json"

# the deltas over the snapshot window, per instance (README.md says where each is printed)
TOTALS = {
    2: {"physical_read_io_requests": 10_815_881, "physical_write_io_requests": 1_132_021,
        "db_file_sequential_read_waits": 10_927_396, "db_file_sequential_read_time_us": 3_827_220_000},
    1: {"physical_read_io_requests": 22_020_196 - 10_815_881,  # the RAC report's cluster total less instance 2's
        "physical_write_io_requests": 2_313_742 - 1_132_021,
        "db_file_sequential_read_waits": 11_315_362, "db_file_sequential_read_time_us": 7_444_110_000},
}
WINDOW_S = 363.037            # the sampled window: 09:26:07.000 to 09:32:10.037 (see README.md)
BEGIN = {1: {"physical_read_io_requests": 183_456_789, "physical_write_io_requests": 20_345_678,
             "db_file_sequential_read_waits": 185_432_100, "db_file_sequential_read_time_us": 95_123_456_789},
         2: {"physical_read_io_requests": 171_234_567, "physical_write_io_requests": 19_876_543,
             "db_file_sequential_read_waits": 172_345_678, "db_file_sequential_read_time_us": 64_321_987_654}}
"""The counters at the first sample: not in the reports (they print differences); arbitrary."""


def apportion(total: int, weights: list[float]) -> list[int]:
    """Whole numbers proportional to ``weights`` that add up to ``total`` (largest remainder)."""
    exact = [total * w / sum(weights) for w in weights]
    whole = [int(x) for x in exact]
    for i in sorted(range(len(exact)), key=lambda i: whole[i] - exact[i])[:total - sum(whole)]:
        whole[i] += 1
    return whole


def main() -> None:
    header = {"begin_time": "17-Feb-20 09:26:07", "end_time": "17-Feb-20 09:32:13"}
    reports = iostat_intervals((RUN / "iostat.out").read_text(), header, PHYSICAL_DEVICES)
    assert len(reports) == 137 and reports[0]["second"] == 3.0  # 09:25:25 ... 09:32:13, every 3 s
    start = datetime(2020, 2, 17, 9, 25, 22, tzinfo=timezone.utc).timestamp()
    # sample times: every 3 s from 09:25:22 to the begin snapshot (09:26:07.000), 121 intervals
    # spread evenly over the window (to 09:32:10.037), one 3 s later (after the run)
    times = [start + 3 * k for k in range(16)]
    times += [round(times[-1] + j * WINDOW_S / 121, 3) for j in range(1, 122)]
    times.append(round(times[-1] + 3, 3))
    seconds = [b - a for a, b in zip(times, times[1:])]
    window = range(15, 136)  # the intervals ending after 09:26:07 and by 09:32:10.037
    reads = [r["read_iops"] * s for r, s in zip(reports, seconds)]
    shapes = {"physical_read_io_requests": reads,
              "physical_write_io_requests": [r["write_iops"] * s for r, s in zip(reports, seconds)],
              "db_file_sequential_read_waits": reads,
              "db_file_sequential_read_time_us": [r["read_iops"] * r["read_lat_mean_ms"] * s
                                                  for r, s in zip(reports, seconds)]}
    rows = []
    for instance in (1, 2):
        deltas = {}
        for key, weights in shapes.items():
            total = TOTALS[instance][key]
            inside = apportion(total, [weights[i] for i in window])
            scale = total / sum(weights[i] for i in window)  # the same shape and scale outside the window
            deltas[key] = [inside[i - 15] if i in window else round(weights[i] * scale) for i in range(len(weights))]
        counters = dict(BEGIN[instance])
        for k, at in enumerate(times):
            if k:
                counters = {key: value + deltas[key][k - 1] for key, value in counters.items()}
            clock = datetime.fromtimestamp(at, timezone.utc).strftime("%H:%M:%S")
            rows.append({"sample": k + 1, "clock": clock, "epoch_s": round(at, 3), "inst_id": instance, **counters})
    rows.sort(key=lambda row: (row["sample"], row["inst_id"]))
    OUT.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
