#!/usr/bin/env python3
"""HammerDB ``hammerdbcli`` REPLAY DOUBLE for tests: not HammerDB, no database, no transaction.

A real HammerDB point is a timed run of whole minutes against a database (``tests/engines/hammerdb/test_hammerdb_real.py``
runs one), too long for the engine contract (``tests/engines/test_engine_contract.py``), which runs a
probe and a sweep. There this stand-in is the ``hammerdbcli`` of a scratch HammerDB directory
(:func:`install`). Called as flashpoc calls HammerDB (``cd HAMMERDB_DIR && TMP=RUN_DIR
./hammerdbcli auto RUN_DIR/script.tcl``), it reads the script flashpoc wrote (its first line names
what it does) and serves the real recording of that kind of run:

* the check (``# flashpoc: check HammerDB ...``): the console the real HammerDB 6.0 printed for
  flashpoc's check script against an empty PostgreSQL 15 cluster (``data/hammerdb/check_build``),
  the recording's run directory put back in place of ``RUN_DIR``;
* a schema build (``# flashpoc: build ...``): the console of the shared fixtures' 2-warehouse
  build (``data/hammerdb/console/01_buildschema.txt``);
* a timed run or a fixed work (``# flashpoc: timed TPROC-C run ...``, ``# flashpoc: fixed-work
  TPROC-C run on postgresql|oracle ...``; a PostgreSQL recording stands for an Oracle fixed work,
  whose lines the test driver prints alike, its work the same): the files the recorded run of the same
  virtual users (``vuset vu N``) wrote in ``TMP`` (``replay.json``: virtual users -> folder of
  ``data/hammerdb``, e.g. ``sweep_1vu``), copied into ``TMP`` (not ``hostcpu.log``: the run command
  samples this host's CPU, at another time than the recording's), and the console recorded with them
  (``console.txt``) printed; without one it prints nothing, as no console of that run alone was
  recorded and this double never makes one up.

It refuses (on stderr, prefixed ``REPLAY DOUBLE``, exit status 1) a script whose ``diset`` of a
key the recording's script set differs from the recording (the recording's own ``script.tcl``
where the folder has it, else the shared fixtures' scripts: ``scripts/01_buildschema.tcl``,
``scripts/03_vu_sweep.tcl``), or a kind of run it has no recording of. Every call is appended to
``replay-calls.log`` in the scratch directory.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "hammerdb"

#: the ``diset DICT KEY VALUE`` of the recordings' scripts (not their passwords, which flashpoc never sets so)
CONNECTION = {("connection", "pg_host"): "127.0.0.1", ("connection", "pg_port"): "5432",
              ("connection", "pg_sslmode"): "disable", ("tpcc", "pg_superuser"): "postgres",
              ("tpcc", "pg_user"): "tpcc", ("tpcc", "pg_dbase"): "tpcc"}
BUILD = {**CONNECTION, ("tpcc", "pg_count_ware"): "2", ("tpcc", "pg_num_vu"): "2"}
SWEEP = {**CONNECTION, ("tpcc", "pg_driver"): "timed", ("tpcc", "pg_total_iterations"): "10000000",
         ("tpcc", "pg_rampup"): "1", ("tpcc", "pg_duration"): "1", ("tpcc", "pg_vacuum"): "false",
         ("tpcc", "pg_timeprofile"): "true", ("tpcc", "pg_allwarehouse"): "false",
         ("tpcc", "pg_keyandthink"): "false"}
#: the check's recording: flashpoc's check script (``script.tcl``), on PostgreSQL, database ``tpcc`` absent
CHECK = DATA / "check_build" / "console.txt"
CHECK_RUN_DIR = "RUN_DIR"
EXIT_LINE = re.compile(r"^@@flashpoc rc \d+$")

#: the settings of the HammerDB campaign the recordings stand for (``engine: {hammerdb: ...}``)
SETTINGS = {"database": "postgresql", "host": "127.0.0.1", "port": 5432, "sslmode": "disable",
            "password_env": "TPCC_PW", "superuser_password_env": "PG_PW", "warehouses": 2, "build_schema": True,
            "build_virtual_users": 2, "rampup_minutes": 1, "duration_minutes": 1, "time_profile": True,
            "all_warehouses": False, "keying_and_thinking": False}

CLI = """#!/bin/sh
# REPLAY DOUBLE of HammerDB's hammerdbcli for flashpoc's tests (see tests/replay/hammerdb_replay.py)
exec {python} {script} "$@"
"""


def install(home: Path, python: str, by_users: dict[int, str]) -> Path:
    """Make ``home`` a scratch HammerDB directory whose ``hammerdbcli`` is this replay double.

    Args:
        home: directory to create.
        python: interpreter to run the double with.
        by_users: virtual users -> the folder of ``tests/data/hammerdb`` recorded at that many.
    """
    home.mkdir(parents=True, exist_ok=True)
    cli = home / "hammerdbcli"
    cli.write_text(CLI.format(python=python, script=Path(__file__).resolve()))
    cli.chmod(0o755)
    (home / "replay.json").write_text(json.dumps({str(n): folder for n, folder in by_users.items()}))
    return home


def refuse(message: str) -> int:
    print(f"REPLAY DOUBLE (hammerdbcli): {message}", file=sys.stderr)
    return 1


def mismatch(script: str, recorded: dict[tuple[str, str], str]) -> str | None:
    """Why the recording of ``recorded`` settings cannot stand for ``script``, or None when it can."""
    for dict_name, key, value in re.findall(r"^diset (\S+) (\S+) (.*)$", script, re.M):
        want = recorded.get((dict_name, key))
        if want is not None and value.strip("{}") != want:
            return f"the recording ran with diset {dict_name} {key} {want}, the script says {value}"
    return None


def recorded_settings(folder: Path) -> dict[tuple[str, str], str]:
    """The ``diset`` of the recording's own script (``script.tcl``), else the sweep's (:data:`SWEEP`)."""
    script = folder / "script.tcl"
    if not script.exists():
        return SWEEP
    return {(d, k): v.strip("{}") for d, k, v in re.findall(r"^diset (\S+) (\S+) (.*)$", script.read_text(), re.M)}


WORK = re.compile(r"^(vuset (?:iterations|delay|repeat|vu) \S+|diset tpcc (?:pg_)?total_iterations \S+|"
                  r"diset tpcc (?:pg_|ora_)?driver \S+)$", re.M)


def other_work(script: str, folder: Path) -> str | None:
    """Why the recording did other work than ``script`` asks (its users, iterations, transactions,
    delays, driver: the same lines on PostgreSQL and Oracle but for the keys' prefix), or None."""
    recorded = folder / "script.tcl"
    if not recorded.exists():
        return None
    def work(text: str) -> list[str]:
        return sorted(re.sub(r" (?:pg_|ora_)", " ", line) for line in WORK.findall(text))
    mine, theirs = work(script), work(recorded.read_text())
    return None if mine == theirs else f"the recording's work is {theirs}, the script's {mine}"


def main(argv: list[str]) -> int:
    here, tmp = Path.cwd(), os.environ.get("TMP", "")
    if len(argv) != 2 or argv[0] != "auto" or not tmp:
        return refuse(f"usage: TMP=RUN_DIR hammerdbcli auto SCRIPT (got {' '.join(argv)!r}, TMP={tmp!r})")
    script = Path(argv[1]).read_text()
    title = script.splitlines()[0] if script else ""
    with (here / "replay-calls.log").open("a") as log:
        log.write(json.dumps({"argv": argv, "title": title}) + "\n")
    if title.startswith("# flashpoc: check HammerDB and the postgresql"):
        console = CHECK.read_text().replace(CHECK_RUN_DIR, tmp)
        sys.stdout.write("".join(line for line in console.splitlines(True) if not EXIT_LINE.match(line.strip())))
        return 0
    if title.startswith("# flashpoc: build "):
        reason = mismatch(script, BUILD)
        if reason:
            return refuse(reason)
        sys.stdout.write((DATA / "console" / "01_buildschema.txt").read_text())
        return 0
    if title.startswith(("# flashpoc: timed TPROC-C run on postgresql", "# flashpoc: fixed-work TPROC-C run on ")):
        users = re.search(r"^vuset vu (\d+)$", script, re.M)
        folder = json.loads((here / "replay.json").read_text()).get(users.group(1)) if users else None
        if folder is None:
            return refuse(f"no recorded run at {users.group(1) if users else '?'} virtual users")
        reason = mismatch(script, recorded_settings(DATA / folder)) or other_work(script, DATA / folder)
        if reason:
            return refuse(reason)
        for path in sorted((DATA / folder).iterdir()):  # HammerDB's files: not the run command's CPU samples
            if path.name not in ("console.txt", "hostcpu.log"):
                shutil.copyfile(path, Path(tmp) / path.name)
        if (DATA / folder / "console.txt").exists():  # the recording's console, its exit-status line left out
            console = (DATA / folder / "console.txt").read_text().replace("RUN_DIR", tmp)
            sys.stdout.write("".join(line for line in console.splitlines(True) if not EXIT_LINE.match(line.strip())))
        return 0
    return refuse(f"no recording of this kind of run: {title!r}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
