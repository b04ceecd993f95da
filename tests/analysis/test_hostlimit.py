"""Per-host results and the hosts-or-array verdict, on the recorded several-host runs: vdbench's
two-host run (hd1, hd2: its host reports) and fio 3.7's two-client run (perf36, perf84)."""

from __future__ import annotations

from collections import defaultdict

import pandas as pd
import pytest

from conftest import DATA
from flashpoc.analysis import hostlimit
from flashpoc.engines.fio.parse import parse_fio_output
from flashpoc.engines.vdbench.parse import parse_output_dir, read_output_dir
from flashpoc.engines.vdbench.measure import per_host
from flashpoc.analysis.rows import add_littles_law



@pytest.fixture(scope="module")
def vdbench_rows():
    """The rows of the two-host vdbench run as the vdbench phases store them: the totals
    (IOPS, mean response ms, CPU %) and each host's share from its host report."""
    parsed = parse_output_dir(read_output_dir(DATA / "vdbench" / "multi_host"))
    rows = [{"workload": "wd1", "threads": t["threads"], "outstanding_ios": 4 * t["threads"], "iops": t["iops"],
             "lat_mean_ms": t["resp_ms"], "host_cpu_busy_pct": t["cpu_sys_user_pct"], "n_hosts": 2,
             "hosts": "hd1,hd2", "per_host": per_host(t, parsed)} for t in parsed["totals"]]  # 4 sds
    for row in rows:
        add_littles_law(row)
    return rows


def test_vdbench_per_host_from_the_host_reports(vdbench_rows):
    two, four = vdbench_rows
    assert two["per_host"] == {"hd1": {"iops": 21002.00, "lat_mean_ms": 0.172, "host_cpu_busy_pct": 74.9},
                               "hd2": {"iops": 20719.60, "lat_mean_ms": 0.170, "host_cpu_busy_pct": 74.7}}
    assert four["per_host"]["hd2"] == {"iops": 30380.80, "lat_mean_ms": 0.247, "host_cpu_busy_pct": 56.1}


def test_per_host_rows_share_of_the_total(vdbench_rows):
    rows = hostlimit.per_host_rows(vdbench_rows)
    assert [(r["threads"], r["host"]) for r in rows] == [(2, "hd1"), (2, "hd2"), (2, "(all hosts)"),
                                                         (4, "hd1"), (4, "hd2"), (4, "(all hosts)")]
    hd1 = rows[0]
    assert hd1["iops_share_pct"] == pytest.approx(100 * 21002.00 / 41721.60)
    assert rows[2]["iops"] == 41721.60 and rows[2]["host_cpu_busy_pct"] == 74.8
    for threads in (2, 4):  # the host reports add up to the total (each printed to 0.01 IOPS)
        hosts = [r["iops"] for r in rows if r["threads"] == threads and r["host"] != "(all hosts)"]
        total = next(r["iops"] for r in rows if r["threads"] == threads and r["host"] == "(all hosts)")
        assert sum(hosts) == pytest.approx(total, abs=0.02)


def test_the_report_table_is_the_busiest_point_per_host(vdbench_rows):
    table = hostlimit.busiest_points(hostlimit.per_host_table(pd.DataFrame(vdbench_rows)))
    assert table["threads"].tolist() == [4, 4, 4]
    assert table["host"].tolist() == ["hd1", "hd2", "(all hosts)"]
    assert table["iops"].tolist() == [29529.6, 30380.8, 59910.4]
    assert hostlimit.per_host_table(pd.DataFrame([{**vdbench_rows[0], "per_host": None}])).empty


def test_a_host_at_its_cpu_limit_is_named(vdbench_rows):
    """hd1 was 74.9% busy at 2 threads; from a 70% limit it is named, at the default 90% not."""
    limit = hostlimit.host_limit(vdbench_rows, 2, cpu_limit_pct=70)
    assert limit["verdict"] == "hosts"
    assert limit["signs"][:2] == ["the CPU of hd1 was 75% busy at 2 threads (at or above 70%)",
                                  "the CPU of hd2 was 75% busy at 2 threads (at or above 70%)"]
    assert limit["suggestion"] == "Add load hosts (or faster ones) and probe again before drawing conclusions about the array."
    # the verdict is said once: its head, not again in the suggestion under it
    assert hostlimit.host_limit_text(limit).count("are the limit") == 1
    both = hostlimit.host_limit(vdbench_rows, 2, cpu_limit_pct=50)  # one sign per host over the plateau
    assert both["signs"][:2] == ["the CPU of hd1 was 56-75% busy at 2 points from 2 to 4 threads (at or above 50%)",
                                 "the CPU of hd2 was 56-75% busy at 2 points from 2 to 4 threads (at or above 50%)"]
    default = hostlimit.host_limit(vdbench_rows, 2)
    assert default["verdict"] == "array"
    assert default["signs"] == ["no sign of a host limit at the plateau (host CPU at most 75% busy, "
                                "94% of the outstanding I/Os in flight)"]  # 59,910.4 x 0.252 ms / 16


def test_iops_still_rising_is_no_verdict(vdbench_rows):
    limit = hostlimit.host_limit(vdbench_rows, None)
    assert limit["verdict"] == "unclear"
    assert limit["signs"] == ["IOPS were still rising at 4 threads, the most measured: neither the hosts nor the "
                              "array showed a limit yet"]
    assert "raise probe.max_threads" in limit["suggestion"]


def test_the_arrays_expected_iops_weigh_in(vdbench_rows):
    """array.expected_iops: the 4-thread point's 59,910.4 IOPS are 97 % of 62,000 (the array at its
    rating: a verdict where the IOPS were still rising), 30 % of 200,000 (short of it: with no sign
    of a host limit, check the array and the path)."""
    rated = hostlimit.host_limit(vdbench_rows, None, expected_iops=62000)
    assert rated["verdict"] == "array"
    assert rated["signs"][-1] == ("the plateau's 59,910 IOPS are 97% of the 62,000 IOPS expected of the array "
                                  "(array.expected_iops): the array is at its rated limit")
    short = hostlimit.host_limit(vdbench_rows, 2, expected_iops=200000)
    assert short["verdict"] == "array" and short["signs"][-1].endswith("are 30% of the 200,000 IOPS expected of the "
                                                                      "array (array.expected_iops): well short of its rating")
    assert short["suggestion"].startswith("The array gave well under the IOPS expected of it")
    busy = hostlimit.host_limit(vdbench_rows, 2, cpu_limit_pct=70, expected_iops=200000)
    assert busy["verdict"] == "hosts" and busy["suggestion"].startswith("Add load hosts")
    assert hostlimit.host_limit(vdbench_rows, 2, expected_iops=80000)["signs"] == hostlimit.host_limit(
        vdbench_rows, 2)["signs"]  # 75 %: neither at the rating nor well short of it


def test_a_host_well_below_the_other_is_named():
    """fio 3.7, 5 jobs on each of two clients: perf36 gave 39,759 IOPS, perf84 53,545."""
    rows = parse_fio_output((DATA / "fio" / "fio-3.7_client_server_2hosts_5jobs_client_stats_with_text_preamble.txt")
                            .read_text())
    iops: dict[str, float] = defaultdict(float)
    for row in rows:
        if not row["is_aggregate"]:
            iops[row["hostname"]] += row["iops"]
    point = {"threads": 5, "outstanding_ios": 320, "iops": sum(iops.values()), "lat_mean_ms": 3.428, "n_hosts": 2,
             "per_host": {h: {"iops": v} for h, v in iops.items()}}
    limit = hostlimit.host_limit([point], None)
    assert limit["verdict"] == "hosts"
    assert limit["signs"] == ["host perf36 gave 39,759 IOPS at 5 threads, 26% below perf84 (53,545) with the same threads: "
                              "look at its CPU, paths and HBA queue depth"]


@pytest.fixture(scope="module")
def ssh_rows():
    """The rows of the real two-host run over SSH (vdbench-ssh/two_hosts_probe): one LUN shared by
    h1 and h2, threads 1-3, each host with the I/Os vdbench gave it (threads spread round-robin)."""
    from flashpoc.params import campaign_from_dict
    from flashpoc.engines.vdbench.plan import threads_per_host

    cfg = campaign_from_dict({"campaign": "c", "engine": "vdbench",
                              "hosts": [{"name": "h1", "address": "10.231.148.11", "user": "root"},
                                        {"name": "h2", "address": "10.231.148.12", "user": "root", "port": 2222}],
                              "targets": [{"name": "lun1", "path": "/srv/poc/luns/lun1.dat", "size": "32m"}],
                              "workloads": [{"name": "randread-4k", "rw": "randread", "bs": "4k"}]})
    parsed = parse_output_dir(read_output_dir(DATA / "vdbench-ssh" / "two_hosts_probe"))
    rows = [{"workload": "randread-4k", "threads": t["threads"], "outstanding_ios": t["threads"], "iops": t["iops"],
             "lat_mean_ms": t["resp_ms"], "host_cpu_busy_pct": t["cpu_sys_user_pct"], "n_hosts": 2, "hosts": "h1,h2",
             "per_host": per_host(t, parsed, threads_per_host(cfg, t["threads"]))} for t in parsed["totals"]]
    for row in rows:
        add_littles_law(row)
    return rows


def test_vdbench_hosts_given_unequal_loads_are_not_compared(ssh_rows):
    """At 3 threads on one shared LUN vdbench gave h1 2 threads and h2 1: h2's 1,430.5 IOPS are
    half of h1's 2,876 because of that, not because h2 is slower; at 1 thread h2 had none."""
    one, _, three = ssh_rows
    assert one["per_host"] == {"h1": {"iops": 1640.5, "lat_mean_ms": 0.443, "host_cpu_busy_pct": 81.6,
                                      "queue_depth": 0.7, "outstanding_ios": 1}, "h2": {"outstanding_ios": 0}}
    assert {h: (v["iops"], v["queue_depth"], v["outstanding_ios"]) for h, v in three["per_host"].items()} == {
        "h1": (2876.0, 1.6, 2), "h2": (1430.5, 0.8, 1)}
    limit = hostlimit.host_limit(ssh_rows, 3)
    assert not any("below" in sign for sign in limit["signs"])
    assert limit["notes"] == ["at 3 threads per SD vdbench gave the hosts unequal loads (it spreads each SD's threads "
                              "over the hosts' JVMs): outstanding I/Os h1 2, h2 1; only hosts given the same are "
                              "compared"]
    assert "- At 3 threads per SD vdbench gave the hosts unequal loads" in hostlimit.host_limit_text(limit)
    rows = hostlimit.per_host_rows(ssh_rows)
    assert [(r["threads"], r["host"], r["outstanding_ios"], r["iops"]) for r in rows] == [
        (1, "h1", 1, 1640.5), (1, "h2", 0, None), (1, "(all hosts)", 1, 1640.5),
        (2, "h1", 1, 1795.0), (2, "h2", 1, 1590.5), (2, "(all hosts)", 2, 3385.5),
        (3, "h1", 2, 2876.0), (3, "h2", 1, 1430.5), (3, "(all hosts)", 3, 4306.5)]


def test_host_scaling_compares_the_same_outstanding_ios_per_host():
    """vdbench's plateau at 8 threads on one LUN shared by two hosts keeps 4 I/Os in flight per
    host; one host alone at 4 threads keeps the same, and only then is the scaling judged."""
    top = {"threads": 8, "outstanding_ios": 8, "iops": 20000.0, "lat_mean_ms": 0.4, "n_hosts": 2, "hosts": "h1,h2"}
    alike = {"threads": 4, "outstanding_ios": 4, "iops": 10500.0, "lat_mean_ms": 0.38, "n_hosts": 1, "hosts": "h1"}
    limit = hostlimit.host_limit([top], 8, scaling=[alike])
    assert limit["verdict"] == "hosts" and limit["scaling"][0]["outstanding_per_host"] == 4.0
    assert limit["signs"] == ["adding hosts still adds IOPS: 1 to 2 hosts took the IOPS from 10,500 to 20,000 (x1.90; "
                              "x2 if only the hosts limited them, at 4 outstanding I/Os per host)"]
    doubled = {**alike, "threads": 8, "outstanding_ios": 8}  # the same threads on one host: twice the load
    limit = hostlimit.host_limit([top], 8, scaling=[doubled])
    assert limit["verdict"] == "array" and not any(s.startswith("adding hosts") for s in limit["signs"])
    assert limit["notes"] == ["host scaling not judged: its points had 8 and 4 outstanding I/Os per host, not the "
                              "same load per host"]
    # the fewer hosts measured the plateau's first point again (8 threads), not its top (16 threads)
    beyond = {**top, "threads": 16, "outstanding_ios": 16, "iops": 20400.0, "lat_mean_ms": 0.8}
    limit = hostlimit.host_limit([top, beyond], 8, scaling=[alike])
    assert [(s["threads"], s["iops"], s["outstanding_per_host"]) for s in limit["scaling"]] == [
        (4, 10500.0, 4.0), (8, 20000.0, 4.0)]
    assert limit["verdict"] == "hosts" and limit["notes"] == []


def test_host_scaling_that_adds_no_iops_outweighs_a_busy_host_cpu():
    """Both hosts were 95% busy at the plateau, yet one host alone gave as many IOPS: measured,
    the scaling says the limit is beyond the hosts."""
    per_host = {h: {"iops": 10000.0, "host_cpu_busy_pct": 95.0} for h in ("h1", "h2")}
    top = {"threads": 8, "outstanding_ios": 16, "iops": 20000.0, "lat_mean_ms": 0.8, "n_hosts": 2, "hosts": "h1,h2",
           "per_host": per_host}
    alone = {"threads": 8, "outstanding_ios": 8, "iops": 19800.0, "lat_mean_ms": 0.4, "n_hosts": 1, "hosts": "h1"}
    limit = hostlimit.host_limit([top], 8, scaling=[alone])
    assert limit["verdict"] == "array" and limit["suggestion"] is None
    assert limit["signs"] == [
        "the CPU of h1 was 95% busy at 8 threads (at or above 90%)",
        "the CPU of h2 was 95% busy at 8 threads (at or above 90%)",
        "adding hosts adds no IOPS: 1 to 2 hosts took the IOPS from 19,800 to 20,000 (x1.01; x2 if only the hosts "
        "limited them, at 8 outstanding I/Os per host): the array is the limit",
        "fewer hosts gave as many IOPS, so the signs of the hosts above did not limit the result: the limit is beyond "
        "the hosts (the array, or what the hosts share on the way to it)"]


@pytest.mark.parametrize(("hosts", "counts"), [(1, []), (2, [1]), (3, [1, 2]), (8, [1, 4, 7])])
def test_scaling_host_counts(hosts, counts):
    assert hostlimit.scaling_host_counts(hosts) == counts


def test_per_host_chart_has_a_line_per_host(vdbench_rows):
    from flashpoc.present import chart

    spec = chart.per_host_iops(hostlimit.per_host_table(pd.DataFrame(vdbench_rows))).to_dict()
    data = next(iter(spec["datasets"].values()))
    assert [(r["threads"], r["host"], r["iops"]) for r in data] == [
        (2, "hd1", 21002.00), (2, "hd2", 20719.60), (4, "hd1", 29529.60), (4, "hd2", 30380.80)]
    assert spec["encoding"]["color"]["field"] == "host" and spec["encoding"]["column"]["field"] == "workload"
    assert spec["encoding"]["x"]["axis"]["values"] == [2, 3, 4]  # whole threads only


def test_the_report_gives_the_share_of_the_expected_iops():
    """The recorded vdbench sweep's max (72,704.7 IOPS at 16 threads) is 36 % of 200,000."""
    from types import SimpleNamespace

    from flashpoc.present import document, summary
    from flashpoc.params import campaign_from_dict
    from flashpoc.engines.vdbench.parse import parse_totals

    totals = parse_totals((DATA / "vdbench" / "rr_threads_sweep" / "totals.html").read_text())
    points = pd.DataFrame({"workload": "wd1", "rw": "randread", "bs": "4k", "threads": [int(t["threads"]) for t in totals],
                           "iops": [t["iops"] for t in totals], "lat_mean_ms": [t["resp_ms"] for t in totals],
                           "outstanding_ios": [4 * int(t["threads"]) for t in totals],
                           "bw_mibps": [t["mb_per_s"] for t in totals]})
    values = {"campaign": "c", "hosts": [{"name": "h"}], "array": {"expected_iops": 200000},
              "targets": [{"name": "t", "path": "/srv/t.dat", "size": "1g", "create": True}]}
    report = SimpleNamespace(cfg=campaign_from_dict(values), points=points, summary=summary.summary_table(points, 1.0))
    (line,) = document.key_results(report)
    assert "up to 72,705 IOPS at 0.844 ms (36% of the 200,000 expected of the array)" in line
    report.cfg = campaign_from_dict({k: v for k, v in values.items() if k != "array"})
    assert "expected" not in document.key_results(report)[0]
