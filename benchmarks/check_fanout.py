"""The environment check on 1 and on 8 load hosts: the hosts are checked in parallel, so 8 should
take about as long as 1. The hosts are network namespaces on this machine, each with its own
address and sshd (tests/netns.py); needs root and iproute2.

Prints the seconds of ``run_check`` for 1 and 8 hosts (3 runs each, on fresh connections), and
for the 8 hosts checked one after the other, and the ratios (target: under 2 with real hosts, one after the other would be 8). Here the 8 hosts'
sshds and fact scripts all run on this machine's cores, which bounds what parallelism can give.

The controller's own CPU seconds are printed too: the rest of the work (sshd, the fact
scripts) runs on the hosts, which here are this machine.

Usage: python benchmarks/check_fanout.py
"""

from __future__ import annotations

import time

from _common import campaign_values, scratch_root, summary
from netns import netns_hosts

from flashpoc import check, phases
from flashpoc.params import campaign_from_dict


def main() -> None:
    root = scratch_root()
    lun = root / "lun1.dat"
    lun.write_bytes(b"\0" * 1024**2)
    with netns_hosts(root / "netns", 8) as hosts:
        times = {}
        for count in (1, 8):
            values = campaign_values(root, campaign=f"fan{count}",
                                     hosts=[h.host_params() for h in hosts[:count]],
                                     targets=[{"name": "lun1", "path": str(lun), "size": "1m"}])
            cfg = campaign_from_dict(values)
            runs, cpu = [], []
            for _ in range(3):
                start, start_cpu = time.perf_counter(), time.process_time()
                table = phases.run_check(cfg)
                runs.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
                assert (table[table["check"] == "reachable"]["status"] == "pass").sum() == count
            times[count] = runs
            print(f"check on {count} host(s): {summary(runs)}; CPU of this (controller) process: {summary(cpu)}")
        check.MAX_PARALLEL_HOSTS = 1  # the same 8 hosts one after the other, for comparison
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            phases.run_check(cfg)
            runs.append(time.perf_counter() - start)
        times["serial"] = runs
        print(f"check on 8 hosts one after the other: {summary(runs)}")
    ratio = min(times[8]) / min(times[1])
    print(f"8 hosts / 1 host (best of 3 each): {ratio:.2f} (target < 2 on separate machines; one after "
          f"the other it would be 8; here the 8 hosts' fact scripts share this machine's cores)")
    print(f"8 hosts one after the other / in parallel: {min(times['serial']) / min(times[8]):.2f}")


if __name__ == "__main__":
    main()
