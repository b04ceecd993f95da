"""A point on 16 load hosts through the workbook against the same engine run by hand over the same
hosts (goal: at most by hand + 0.5 s): fio's client/server mode (the workbook's point, then
``fio --client=ADDR,PORT JOB ...`` of the very job files on the same ``fio --server``s) and vdbench
with 16 ``hd=`` hosts (the workbook's invocation, then vdbench on the very parmfile and master
set-up, started as the workbook starts it). fio's point is also measured a third way, watched by a
live view (a stand-in that counts the seconds handed to it): the hosts' device counters sampled
each second while the client runs (flashpoc.hosts.diskstats), against the same point unwatched.
The hosts are network namespaces with their own sshd
(tests/netns.py; needs root and iproute2) seeing one 32 MiB file of random data; the two ways
alternate so that the machine's load weighs on both alike.

Usage: python benchmarks/multihost_point.py [fio|vdbench ...] [--hosts N] [--runs N] [--profile]
(--profile: the wall time of the last workbook point's functions, cumulative)
"""

from __future__ import annotations

import cProfile
import os
import pstats
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _common import REPO, load_average, scratch_root, summary
from netns import netns_hosts

from flashpoc import phases
from flashpoc.core.records import PointSpec
from flashpoc.engines import get_engine
from flashpoc.engines.fio import measure as fio_measure
from flashpoc.engines.vdbench import run as vdb_run
from flashpoc.params import HostParams, campaign_from_dict

RUNTIME = 5
VDBENCH = REPO / ".engines" / "vdbench"


def option(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def campaign(root: Path, engine: str, hosts, lun: Path):
    extra = {"fio": {"runtime_s": RUNTIME, "ramp_s": 0}}
    host_extra = {"connect_timeout_s": 10, "command_timeout_s": 600}
    if engine == "vdbench":
        host_extra["vdbench"] = str(VDBENCH)
        extra = {"engine": "vdbench", "vdbench": {"elapsed_s": RUNTIME, "interval_s": 1, "warmup_s": 0,
                                                  "controller_address": hosts[0].sshd.address}}
    return campaign_from_dict({
        "campaign": f"{engine}-{len(hosts)}h",
        "hosts": [h.host_params(workdir=str(root / "work" / engine / h.name), **host_extra) for h in hosts],
        "targets": [{"name": "lun1", "path": str(lun), "size": "32m"}], "precondition": {"filled_elsewhere": ["lun1"]},
        "workloads": [{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
        "results_dir": str(root / "results"), **extra})


def newest(directory: Path, name: str) -> Path:
    return max(directory.rglob(name), key=lambda p: p.stat().st_mtime).parent


def fio_by_hand(cfg, run_dir: Path) -> float:
    """The workbook's last client point again, by hand: its job files on the same servers."""
    port = cfg.settings.server_port
    address = {h.name: h.address for h in cfg.hosts}
    pairs = [arg for job in sorted(run_dir.glob("job-*.fio"))
             for arg in (f"--client={address[job.stem.removeprefix('job-')]},{port}", job.name)]
    started = time.perf_counter()
    subprocess.run(["fio", *pairs, "--output-format=json+", "--output=by-hand.json"], cwd=run_dir, check=True,
                   capture_output=True)
    return time.perf_counter() - started


def vdbench_by_hand(cfg, run_dir: Path, netns: str) -> float:
    """The workbook's last invocation again, by hand in the controller's namespace ``netns``: its
    parmfile and master set-up, vdbench started as the workbook starts it (the ssh config and the
    slaves' call-back address)."""
    hand = run_dir.with_name(run_dir.name + "-by-hand")
    shutil.rmtree(hand, ignore_errors=True)
    shutil.copytree(run_dir, hand, ignore=shutil.ignore_patterns("output", "console.txt"))
    command = vdb_run.run_command(str(VDBENCH / "vdbench"), str(hand), setup=vdb_run.master_setup(cfg))
    started = time.perf_counter()
    subprocess.run(["ip", "netns", "exec", netns, "bash", "-c", command], check=True, capture_output=True,
                   stdin=subprocess.DEVNULL)
    return time.perf_counter() - started


class Watched:
    """A live view's stand-in: counts the device counters' seconds a point hands it (fio's own come
    from its interval logs when the point ends)."""

    def __init__(self) -> None:
        self.seconds = 0

    def interval(self, values, *, run: str = "", **kw) -> None:
        self.seconds += "device counters" in run


def watched_point(wb, i: int, watched: Watched) -> float:
    """fio's point, as the workbook measures it, handing its seconds to ``watched``: its seconds."""
    spec = PointSpec("bench", wb.cfg.workloads[0], 1, RUNTIME, repeat=1000 + i)
    started = time.perf_counter()
    fio_measure.run_point(wb, spec, f"watched-{i}", watched)
    return time.perf_counter() - started


def compare(engine: str, cfg, runs: int, netns: str) -> None:
    workbook, hand, live, watched, load = [], [], [], Watched(), load_average()
    with phases.open_campaign(cfg) as wb:
        phases.prepare_targets(wb)
        measure = get_engine(cfg.engine).measure_point
        for i in range(runs + 1):  # the first is a warm-up: connections, fio's servers
            profile = cProfile.Profile() if "--profile" in sys.argv and i == runs else None
            started = time.perf_counter()
            if profile:
                profile.enable()
            measure(wb, "bench", wb.cfg.workloads[0], 1, runtime_s=RUNTIME, repeat=i + 1)
            seconds = time.perf_counter() - started
            if profile:
                profile.disable()
                pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
            if engine == "fio":
                clients = Path(HostParams(name="controller", address="localhost").workdir) / cfg.campaign / "clients"
                by_hand = fio_by_hand(cfg, newest(clients, "job-*.fio"))
            else:
                by_hand = vdbench_by_hand(cfg, newest(Path(cfg.hosts[0].workdir) / cfg.campaign / "bench", "parmfile"), netns)
            seen = watched_point(wb, i, watched) if engine == "fio" else None
            if i:
                workbook.append(seconds)
                hand.append(by_hand)
                if seen is not None:
                    live.append(seen)
    print(f"{engine} on {len(cfg.hosts)} hosts, {RUNTIME}-second point: workbook {summary(workbook)}, by hand "
          f"{summary(hand)}; workbook minus by hand {sum(workbook) / runs - sum(hand) / runs:+.2f} s (goal <= +0.5 s); "
          f"load average {load} before, {load_average()} after", flush=True)
    if live:
        print(f"{engine} on {len(cfg.hosts)} hosts, the same point watched by a live view (the hosts' device "
              f"counters, {watched.seconds} seconds handed over while {runs + 1} points ran): {summary(live)}; watched minus "
              f"unwatched {sum(live) / runs - sum(workbook) / runs:+.2f} s", flush=True)


def main() -> int:
    engines = [a for a in sys.argv[1:] if a in ("fio", "vdbench")] or ["fio", "vdbench"]
    count, runs = option("--hosts", 16), option("--runs", 3)
    root = scratch_root()
    lun = root / "lun1.dat"
    lun.write_bytes(os.urandom(32 * 1024**2))
    with netns_hosts(root / "netns", count) as hosts:
        for engine in engines:
            compare(engine, campaign(root, engine, hosts, lun), runs, hosts[0].netns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
