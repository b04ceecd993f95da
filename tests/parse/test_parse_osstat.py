"""OS statistics of a real SLOB 2.5 run (sysstat 10.1, EL7): exact values from the files."""

from __future__ import annotations

import pytest
from conftest import DATA
from flashpoc.core.errors import ParseError
from flashpoc.hosts.osstat import (
    column_key, cpu_summary, parse_iostat, parse_iostat_cpu, parse_mpstat, parse_tm, parse_vmstat,
)

RUN = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"


def read(name: str) -> str:
    return (RUN / name).read_text()


@pytest.fixture(scope="module")
def iostat_text() -> str:
    return read("iostat.out")


@pytest.fixture(scope="module")
def mpstat_rows() -> list[dict]:
    return parse_mpstat(read("mpstat.out"))


def test_iostat_devices(iostat_text):
    rows = parse_iostat(iostat_text)
    assert len({r["interval"] for r in rows}) == 138
    assert len(rows) == 138 * 72
    first = rows[0]
    assert first == {
        "interval": 0, "timestamp": "02/17/2020 09:25:22 AM", "device": "sdb",
        "rrqm_per_s": 0.0, "wrqm_per_s": 0.0, "r_per_s": 0.03, "w_per_s": 0.0,
        "r_mb_per_s": 0.0, "w_mb_per_s": 0.0, "avgrq_sz_sectors": 53.27, "avgqu_sz": 0.0,
        "await_ms": 0.22, "r_await_ms": 0.22, "w_await_ms": 0.0, "svctm_ms": 0.16, "util_pct": 0.0,
    }
    sde0 = next(r for r in rows if r["interval"] == 0 and r["device"] == "sde")
    assert (sde0["r_per_s"], sde0["w_per_s"], sde0["r_mb_per_s"], sde0["avgqu_sz"],
            sde0["r_await_ms"], sde0["w_await_ms"], sde0["util_pct"]) == (
        1587.39, 66.67, 12.35, 6.00, 3.45, 7.82, 33.64)
    sde1 = next(r for r in rows if r["interval"] == 1 and r["device"] == "sde")
    assert sde1["timestamp"] == "02/17/2020 09:25:25 AM"
    assert (sde1["r_per_s"], sde1["w_per_s"], sde1["w_await_ms"], sde1["util_pct"]) == (
        0.33, 1.00, 3.00, 0.30)
    last = rows[-1]
    assert (last["interval"], last["timestamp"], last["device"], last["r_per_s"]) == (
        137, "02/17/2020 09:32:13 AM", "dm-24", 0.33)


def test_iostat_cpu(iostat_text):
    rows = parse_iostat_cpu(iostat_text)
    assert len(rows) == 138
    assert rows[0] == {"interval": 0, "timestamp": "02/17/2020 09:25:22 AM", "user_pct": 3.22,
                       "nice_pct": 0.0, "system_pct": 6.49, "iowait_pct": 9.49,
                       "steal_pct": 0.0, "idle_pct": 80.80}
    assert rows[1]["timestamp"] == "02/17/2020 09:25:25 AM"
    assert (rows[1]["user_pct"], rows[1]["system_pct"], rows[1]["idle_pct"]) == (1.57, 2.08, 96.32)


def test_iostat_truncated_gives_prefix(iostat_text):
    full = parse_iostat(iostat_text)
    cut = iostat_text[: iostat_text.index("sde ", 200000) + 30]  # mid-line, mid-number
    rows = parse_iostat(cut)
    assert rows == full[: len(rows)]
    assert rows[-1]["device"] != "sde" or rows[-1]["interval"] < full[len(rows)]["interval"]


def test_iostat_garbage_raises(iostat_text):
    lines = iostat_text.splitlines(keepends=True)
    bad = lines[:6] + ["sdd               0.00     0.00   x24.18\n"] + lines[7:]
    with pytest.raises(ParseError, match="line 7"):
        parse_iostat("".join(bad))
    with pytest.raises(ParseError):
        parse_iostat("hello\n")
    with pytest.raises(ParseError):
        parse_iostat("")


def test_column_keys_other_sysstat_versions():
    assert [column_key(h) for h in ("r/s", "rkB/s", "rMB/s", "aqu-sz", "avgqu-sz", "%util",
                                    "rareq-sz", "r_await", "%rrqm", "rsec/s")] == [
        "r_per_s", "r_kb_per_s", "r_mb_per_s", "aqu_sz", "avgqu_sz", "util_pct",
        "rareq_sz_kb", "r_await_ms", "rrqm_pct", "r_sec_per_s"]


def test_mpstat(mpstat_rows):
    assert len(mpstat_rows) == 137 * 65
    assert len({r["interval"] for r in mpstat_rows}) == 137
    assert mpstat_rows[0] == {
        "interval": 0, "time": "09:25:25 AM", "time_24h": "09:25:25", "is_average": False,
        "cpu": "all", "usr_pct": 1.57, "nice_pct": 0.0, "sys_pct": 1.99, "iowait_pct": 0.03,
        "irq_pct": 0.0, "soft_pct": 0.08, "steal_pct": 0.0, "guest_pct": 0.0, "gnice_pct": 0.0,
        "idle_pct": 96.32}
    cpu7 = next(r for r in mpstat_rows if r["interval"] == 0 and r["cpu"] == "7")
    assert (cpu7["usr_pct"], cpu7["sys_pct"], cpu7["soft_pct"], cpu7["idle_pct"]) == (
        5.37, 9.73, 0.67, 84.23)
    all1 = next(r for r in mpstat_rows if r["interval"] == 1 and r["cpu"] == "all")
    assert (all1["time"], all1["usr_pct"], all1["idle_pct"]) == ("09:25:28 AM", 1.21, 97.29)
    last = mpstat_rows[-1]
    assert (last["interval"], last["time"], last["cpu"], last["sys_pct"], last["idle_pct"]) == (
        136, "09:32:13 AM", "63", 0.33, 99.67)
    assert not any(r["is_average"] for r in mpstat_rows)  # mpstat was killed: no Average lines


def test_cpu_summary_matches_hand_computation(mpstat_rows):
    # awk '$3=="all" && $1!="Average:" {n++; u+=$4; s+=$6; w+=$7; i+=$13} END {...}' mpstat.out
    summary = cpu_summary(mpstat_rows)
    assert summary["intervals"] == 137
    assert summary["usr_pct_mean"] == pytest.approx(5.9617518248, abs=1e-9)
    assert summary["sys_pct_mean"] == pytest.approx(8.0695620438, abs=1e-9)
    assert summary["iowait_pct_mean"] == pytest.approx(17.1109489051, abs=1e-9)
    assert summary["idle_pct_mean"] == pytest.approx(65.4766423358, abs=1e-9)


MPSTAT_WITH_AVERAGE_PM = """\
Linux 5.4.17 (db1) \t02/17/2020 \t_x86_64_\t(2 CPU)

12:59:58 PM  CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
12:59:59 PM  all   10.00    0.00    5.00    1.00    0.00    0.00    0.00    0.00    0.00   84.00
12:59:59 PM    0   12.00    0.00    6.00    2.00    0.00    0.00    0.00    0.00    0.00   80.00

12:59:59 PM  CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
01:00:00 PM  all   20.00    0.00    7.00    3.00    0.00    0.00    0.00    0.00    0.00   70.00
01:00:00 PM    0   22.00    0.00    8.00    4.00    0.00    0.00    0.00    0.00    0.00   66.00

Average:     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle
Average:     all   15.00    0.00    6.00    2.00    0.00    0.00    0.00    0.00    0.00   77.00
Average:       0   17.00    0.00    7.00    3.00    0.00    0.00    0.00    0.00    0.00   73.00
"""


def test_mpstat_average_and_pm_times():
    # Built in the layout of the real file above; only the Average: block and PM times are new.
    rows = parse_mpstat(MPSTAT_WITH_AVERAGE_PM)
    assert [(r["interval"], r["time_24h"], r["is_average"], r["cpu"]) for r in rows] == [
        (0, "12:59:59", False, "all"), (0, "12:59:59", False, "0"),
        (1, "13:00:00", False, "all"), (1, "13:00:00", False, "0"),
        (None, None, True, "all"), (None, None, True, "0")]
    summary = cpu_summary(rows)
    assert summary["intervals"] == 2
    assert summary["usr_pct_mean"] == 15.0 and summary["idle_pct_mean"] == 77.0


def test_mpstat_garbage_and_truncation():
    text = read("mpstat.out")
    with pytest.raises(ParseError):
        parse_mpstat("garbage\n")
    with pytest.raises(ParseError, match="line 4"):
        parse_mpstat(text.replace("09:25:25 AM  all    1.57", "09:25:25 AM  all    1.5x", 1))
    cut = parse_mpstat(text[:5000])
    assert cut == parse_mpstat(text)[: len(cut)]
    with pytest.raises(ParseError):
        cpu_summary([])


def test_vmstat():
    rows = parse_vmstat(read("vmstat.out"))
    assert len(rows) == 138  # 152 lines - 7 two-line headers
    assert rows[0] == {
        "sample": 0, "timestamp": "2020-02-17 09:25:22", "timezone": "CST", "r": 3, "b": 0,
        "swpd_kib": 0, "free_kib": 531646912, "buff_kib": 48044, "cache_kib": 3611064,
        "si_kib_per_s": 0, "so_kib_per_s": 0, "bi_blocks_per_s": 3199, "bo_blocks_per_s": 241,
        "in_per_s": 50, "cs_per_s": 76, "us_pct": 3, "sy_pct": 6, "id_pct": 81, "wa_pct": 9,
        "st_pct": 0}
    sixth = rows[5]
    assert (sixth["timestamp"], sixth["r"], sixth["b"], sixth["bi_blocks_per_s"],
            sixth["cs_per_s"], sixth["wa_pct"]) == ("2020-02-17 09:25:37", 49, 47, 370065, 171498, 18)
    # the row after the first repeated header (file line 25)
    assert rows[21]["timestamp"] == "2020-02-17 09:26:25"
    assert rows[-1]["timestamp"] == "2020-02-17 09:32:13" and rows[-1]["bo_blocks_per_s"] == 4902


def test_vmstat_first_sample_is_since_boot_like_iostat_report_0(iostat_text):
    cpu0 = parse_iostat_cpu(iostat_text)[0]
    vm0 = parse_vmstat(read("vmstat.out"))[0]
    assert vm0["timestamp"].endswith("09:25:22") and cpu0["timestamp"].endswith("09:25:22 AM")
    assert (vm0["us_pct"], vm0["sy_pct"], vm0["wa_pct"]) == (
        round(cpu0["user_pct"]), round(cpu0["system_pct"]), round(cpu0["iowait_pct"]))


def test_vmstat_errors():
    text = read("vmstat.out")
    with pytest.raises(ParseError):
        parse_vmstat("")
    with pytest.raises(ParseError, match="line 3"):
        parse_vmstat(text.replace(" 3199 ", " 31-9 ", 1))
    cut = parse_vmstat(text[:1000])
    assert cut == parse_vmstat(text)[: len(cut)]


def test_tm():
    assert read("tm.out") == "Tm 364\n"
    assert parse_tm(read("tm.out")) == {"tm_s": 364}
    for bad in ("", "Tm\n", "Tm x\n", "Tm 1\nTm 2\n", "364\n"):
        with pytest.raises(ParseError):
            parse_tm(bad)


# --- a SLOB run's time series from iostat.out (flashpoc.engines.slob.parse.iostat_intervals) ---

WINDOW = {"begin_time": "17-Feb-20 09:26:07", "end_time": "17-Feb-20 09:32:10"}  # the run's awr.txt header


def test_iostat_intervals_of_the_awr_window():
    from flashpoc.engines.slob.parse import iostat_intervals

    rows = iostat_intervals((RUN / "iostat.out").read_text(), WINDOW)
    # 3 s reports from 09:25:22 (report 0, since boot, left out) up to the 09:32:10 end snapshot
    assert [r["second"] for r in rows[:2]] == [3.0, 6.0] and rows[-1]["second"] == 408.0  # 09:32:10
    assert sum(r["warmup"] for r in rows) == 15  # reports stamped 09:25:25 .. 09:26:07
    first = next(r for r in rows if not r["warmup"])  # stamped 09:26:10
    assert round(first["read_iops"], 2) == 42440.33 and round(first["write_iops"], 2) == 13072.68
    # latency: r_await weighted by r/s over the disks, between the smallest and largest printed
    assert 0.26 < first["read_lat_mean_ms"] < 15.0
    only_sde = iostat_intervals((RUN / "iostat.out").read_text(), WINDOW, devices=r"^sde$")
    sde = next(r for r in only_sde if not r["warmup"])
    assert sde["read_iops"] < first["read_iops"] and sde["lat_mean_ms"] is not None


def test_iostat_intervals_need_timestamps_and_a_window():
    from flashpoc.engines.slob.parse import iostat_intervals

    text = (RUN / "iostat.out").read_text()
    assert iostat_intervals(text, {"begin_time": "garbage", "end_time": "17-Feb-20 09:32:10"}) == []
    no_stamps = "\n".join(line for line in text.splitlines() if not line.startswith("02/17/2020"))
    assert iostat_intervals(no_stamps, WINDOW) == []
    no_await = text.replace(" r_await w_await", "")
    with pytest.raises(ParseError):
        iostat_intervals(no_await, WINDOW)
