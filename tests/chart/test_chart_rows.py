"""Charts of a campaign at scale (16 load hosts x 200 points, compared with another campaign) stay
within the rows a chart may embed (chart.MAX_ROWS): the per-host chart drew every host at every
thread count and the report failed (Altair's MaxRowsError) at 6,400 rows."""

from __future__ import annotations

import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st

from flashpoc.present import chart


def per_host_table(configs: int, workloads: int, threads: list[int], hosts: int) -> pd.DataFrame:
    """hostlimit.per_host_table's columns: each host's IOPS at each thread count."""
    return pd.DataFrame([{"config": f"c{c}", "workload": f"w{w}", "threads": t, "host": f"h{h:02d}",
                          "iops": 1000.0 * t + h, "iops_share_pct": 100.0 / hosts, "host_cpu_busy_pct": 20.0}
                         for c in range(configs) for w in range(workloads) for t in threads for h in range(hosts)])


def drawn(table: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    spec = chart.per_host_iops(table).to_dict()
    (rows,) = spec["datasets"].values()
    return pd.DataFrame(rows), spec


def test_sixteen_hosts_of_two_compared_campaigns_draw_every_other_thread_count():
    """2 campaigns x 4 workloads x 50 thread counts (4..200) x 16 hosts: 6,400 rows; every 2nd thread
    count of each workload, 200 kept, for every host: 3,328 rows, and the subtitle says so."""
    data, spec = drawn(per_host_table(2, 4, list(range(4, 201, 4)), 16))
    assert len(data) == 3328
    assert sorted(data["threads"].unique()) == [*range(4, 200, 8), 200]
    assert spec["title"]["subtitle"] == ["Every 2nd thread count of each workload drawn (a chart holds at most 5,000 "
                                         "points); per_host.csv has every one."]


@settings(max_examples=30, deadline=None)
@given(configs=st.integers(1, 3), workloads=st.integers(1, 4), hosts=st.integers(1, 64),
       threads=st.lists(st.integers(1, 512), min_size=1, max_size=120, unique=True))
@example(configs=3, workloads=4, hosts=64, threads=list(range(1, 121)))  # the most: every 9th of 120 counts
@example(configs=2, workloads=4, hosts=16, threads=[1, 2, 3, *range(8, 200, 4), 512])  # the 6,400 rows, unevenly
@example(configs=1, workloads=1, hosts=64, threads=list(range(1, 79)))  # 4,992 rows: all of them
def test_the_per_host_chart_draws_every_host_within_max_rows(configs, workloads, hosts, threads):
    table = per_host_table(configs, workloads, threads, hosts)
    data, spec = drawn(table)
    assert len(data) <= chart.MAX_ROWS
    counts = sorted(threads)
    for (config, workload), panel in data.groupby(["config", "workload"]):
        kept = sorted(panel["threads"].unique())
        assert kept[0] == counts[0] and kept[-1] == counts[-1]  # the first and the last always
        # every host at the same thread counts
        assert (panel.groupby("host")["threads"].apply(sorted).map(tuple) == tuple(kept)).all()
        assert panel["host"].nunique() == hosts
    if len(table) <= chart.MAX_ROWS:
        assert len(data) == len(table) and "subtitle" not in spec["title"]
    else:  # every n-th count, n the smallest that fits
        step = int(spec["title"]["subtitle"][0].split()[1].rstrip("ndrsth"))
        assert list(data[(data["config"] == "c0") & (data["workload"] == "w0") & (data["host"] == "h00")]["threads"]) \
            == sorted(set(counts[::step]) | {counts[-1]})
        if step > 2:
            fewer = configs * workloads * hosts * len(set(counts[::step - 1]) | {counts[-1]})
            assert fewer > chart.MAX_ROWS
