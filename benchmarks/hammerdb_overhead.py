"""Where a HammerDB point's time goes: the real HammerDB 6.0 (.engines/hammerdb) on a throwaway
PostgreSQL 15 cluster on 127.0.0.1 (tests/pg_server.py), a 1-warehouse schema build and then
timed runs of 1 virtual user, no ramp-up and HammerDB's shortest test (1 minute), through the
workbook's run (:func:`flashpoc.engines.hammerdb.run.run_hammerdb`) and the same script run by
hand (``TMP=DIR ./hammerdbcli auto SCRIPT``), interleaved.

Each console line is stamped as it arrives, which splits a run into: HammerDB's start until its
first line, the settings and the virtual users' creation until the timed test starts, the test,
from its result to the end (vudestroy, the transaction counter's stop), then the workbook's
fetch and parse. Prints each step's seconds and the machine's load average.

Usage: python benchmarks/hammerdb_overhead.py [RUNS]   (default 2)
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from _common import load_average, scratch_root

from pg_server import postgres_server, real_hammerdb

from flashpoc.engines.hammerdb import run as hammerdb_run
from flashpoc.engines.hammerdb.parse import parse_files
from flashpoc.engines.hammerdb.plan import build_script, run_script
from flashpoc.engines.hammerdb.settings import settings_from_dict
from flashpoc.params import HostParams
from flashpoc.hosts.host import LocalHost

MARKS = {"first line": None, "test starts": "Timing test period", "result": "TEST RESULT"}


class Stamps:
    """Console lines' arrival times, from ``start``."""

    def __init__(self) -> None:
        self.start, self.lines = time.perf_counter(), []

    def __call__(self, line: str) -> None:
        self.lines.append((time.perf_counter() - self.start, line))

    def at(self, text: str | None) -> float:
        return next((t for t, line in self.lines if text is None or text in line), float("nan"))


def by_hand(hammerdb: Path, script: str, run_dir: Path) -> float:
    run_dir.mkdir(parents=True)
    (run_dir / "script.tcl").write_text(script)
    started = time.perf_counter()
    subprocess.run(["./hammerdbcli", "auto", str(run_dir / "script.tcl")], cwd=hammerdb, check=True,
                   capture_output=True, env={**os.environ, "TMP": str(run_dir)}, stdin=subprocess.DEVNULL)
    return time.perf_counter() - started


def workbook_run(host, script: str, run_dir: Path, hammerdb: Path, *, parse: bool = True) -> tuple[float, Stamps, float]:
    stamps = Stamps()
    run = hammerdb_run.run_hammerdb(host, script, str(run_dir), hammerdb_dir=str(hammerdb), timeout_s=900,
                                    purpose="bench", on_line=stamps)
    wall = time.perf_counter() - stamps.start
    started = time.perf_counter()
    if parse:  # a timed run's result (a build has none)
        parse_files({"console.txt": run.console, **run.files})
    return wall, stamps, time.perf_counter() - started


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    root = scratch_root()
    hammerdb = real_hammerdb()
    server_cm = postgres_server._get_wrapped_function()()
    server = next(server_cm)
    try:
        os.environ.update({"FLASHPOC_B_PW": "tpcc-" + server.password[:8], "FLASHPOC_B_SUPER": server.password})
        settings = settings_from_dict({
            "database": "postgresql", "hammerdb_dir": str(hammerdb), "host": server.host, "port": server.port,
            "superuser": server.superuser, "password_env": "FLASHPOC_B_PW", "superuser_password_env": "FLASHPOC_B_SUPER",
            "warehouses": 1, "build_schema": True, "build_virtual_users": 1, "rampup_minutes": 0, "duration_minutes": 1})
        host = LocalHost(HostParams(name="load1"))
        load = load_average()
        wall, stamps, _ = workbook_run(host, build_script(settings), root / "build", hammerdb, parse=False)
        print(f"schema build (1 warehouse): {wall:.1f} s, HammerDB's first line at {stamps.at(None):.1f} s; "
              f"load average {load}", flush=True)
        script = run_script(settings, 1)
        for i in range(runs):
            load = load_average()
            hand = by_hand(hammerdb, script, root / f"hand{i}")
            wall, stamps, parse_s = workbook_run(host, script, root / f"run{i}", hammerdb)
            first, test, result, last = (stamps.at(MARKS["first line"]), stamps.at(MARKS["test starts"]),
                                         stamps.at(MARKS["result"]), stamps.lines[-1][0])
            print(f"run {i + 1}: by hand {hand:.1f} s, through the workbook {wall:.1f} s (+ parse {parse_s:.2f} s): "
                  f"HammerDB's first line {first:.1f} s, to the timed test {test - first:.1f} s, the test "
                  f"{result - test:.1f} s, from its result to HammerDB's end {last - result:.1f} s, then the "
                  f"workbook (exit, CPU sample, fetch) {wall - last:.1f} s; load average {load}", flush=True)
    finally:
        next(server_cm, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
