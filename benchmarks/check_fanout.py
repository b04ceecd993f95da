"""The environment check on 1 and on 16 load hosts, fio's and vdbench's (goal: 16 hosts in at most
2x the time of one). The hosts are network namespaces on this machine, each with its own address
and sshd (tests/netns.py; needs root and iproute2), all seeing one 1 MiB target file.

Prints, per engine, the seconds of ``run_check`` on 1 and on 16 hosts (best of 3, fresh
connections each time, the two counts interleaved so that the machine's load weighs on both alike)
and their ratio, the controller's own CPU seconds, and the machine's load average. Here the 16 hosts'
sshds, fact scripts and JVMs all run on this machine's cores, which bounds what running them side by
side can give; on 16 real hosts only the controller's share stays here.

Usage: python benchmarks/check_fanout.py [fio|vdbench ...]   (default: both)
"""

from __future__ import annotations

import sys
import time

from _common import REPO, campaign_values, load_average, scratch_root, summary
from netns import netns_hosts

from flashpoc import phases
from flashpoc.params import campaign_from_dict

HOSTS, RUNS = 16, 3


def campaign(root, engine: str, hosts, lun):
    """A campaign of ``engine`` on ``hosts`` (the first is vdbench's controller)."""
    extra = {}
    host_extra = {"connect_timeout_s": 10, "command_timeout_s": 300}
    if engine == "vdbench":
        host_extra["vdbench"] = str(REPO / ".engines" / "vdbench")
        extra = {"engine": {"vdbench": {"elapsed_s": 2, "interval_s": 1,
                                        "controller_address": hosts[0].sshd.address}}}
    return campaign_from_dict(campaign_values(
        root, campaign=f"{engine}{len(hosts)}",
        hosts=[h.host_params(workdir=str(root / "work" / h.name), **host_extra) for h in hosts],
        targets=[{"name": "lun1", "path": str(lun), "size": "1m"}], precondition={"filled_elsewhere": ["lun1"]},
        **extra))


def timed_check(cfg) -> tuple[float, float, int]:
    """Seconds and controller CPU seconds of one check, and how many of its rows failed."""
    start, start_cpu = time.perf_counter(), time.process_time()
    table = phases.run_check(cfg)
    for row in table[table["status"] == "fail"].itertuples(index=False):
        print(f"  failed: {row.host} / {row.check}: {row.detail}", flush=True)
    return time.perf_counter() - start, time.process_time() - start_cpu, int((table["status"] == "fail").sum())


def main() -> None:
    engines = [a for a in sys.argv[1:] if a in ("fio", "vdbench")] or ["fio", "vdbench"]
    root = scratch_root()
    lun = root / "lun1.dat"
    lun.write_bytes(b"\0" * 1024**2)
    started = time.perf_counter()
    with netns_hosts(root / "netns", HOSTS) as hosts:
        print(f"{HOSTS} namespace hosts with their sshd made in {time.perf_counter() - started:.0f} s", flush=True)
        for engine in engines:
            configs = {count: campaign(root, engine, hosts[:count], lun) for count in (1, HOSTS)}
            times, cpu, load = {1: [], HOSTS: []}, {1: [], HOSTS: []}, load_average()
            for _ in range(RUNS):
                for count, cfg in configs.items():
                    seconds, cpu_s, failed = timed_check(cfg)
                    if failed:
                        raise SystemExit(f"{engine} check on {count} host(s): {failed} row(s) failed")
                    times[count].append(seconds)
                    cpu[count].append(cpu_s)
            for count in (1, HOSTS):
                print(f"{engine} check on {count} host(s): {summary(times[count])}; CPU of the controller: "
                      f"{summary(cpu[count])}")
            ratio = min(times[HOSTS]) / min(times[1])
            print(f"{engine}: {HOSTS} hosts / 1 host (best of {RUNS} each): {ratio:.2f} (goal <= 2); load average "
                  f"{load} before, {load_average()} after", flush=True)


if __name__ == "__main__":
    main()
