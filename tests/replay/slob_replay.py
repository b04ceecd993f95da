#!/usr/bin/env python3
"""SLOB ``runit.sh`` REPLAY DOUBLE for tests: not SLOB, no database, no I/O.

SLOB and an Oracle server cannot run here, so orchestration tests install this stand-in as
the ``runit.sh`` of a scratch SLOB directory (:func:`install`). Called as SLOB 2.5's runit.sh
is (``sh ./runit.sh -s SCHEMAS -t THREADS`` in the SLOB directory), it

* requires ``-s`` and ``-t`` and a ``./slob.conf`` that parses as slob.conf;
* takes the recorded runs the test assigned to that thread count (``replay.json``) and serves
  the first whose known settings match; it refuses a run whose schemas, threads or slob.conf
  settings differ from what is known of every candidate recording (its directory name:
  ``s256_t1_wu4_update10`` = 256 schemas, 1 thread per schema, WORK_UNIT 4, UPDATE_PCT 10;
  its AWR report prints SLOB's SQL with ``v_scale '32768'``, SCALE in 8K blocks);
* copies the recorded real files (awr.txt, awr_rac.txt, awr.html.gz, iostat.out, ...) into
  the SLOB directory, where runit.sh leaves them, and exits 0;
* when installed with ``hold`` (a path), first waits until that file exists (up to
  :data:`HOLD_TIMEOUT_S`): a test makes the run last until something it replays alongside has
  happened (the Oracle replay double's last recorded sample of the database's counters);
* when installed with ``cut`` (file name -> byte count), leaves those recorded files cut short
  after that many bytes, as a copy that stopped or a full disk leaves them (the damage a test
  asks for, to a real file; never another content);
* when installed with ``pace`` (seconds), first writes the recorded ``iostat.out`` report by
  report, as runit.sh's ``iostat -t -xm 3`` writes it while the run lasts: each report's bytes
  as recorded (a report starts at its time stamp line), appended and flushed, ``pace`` seconds
  apart (the recording's 3 s made short), so that what follows the file sees it grow.

It prints nothing on success: no recording of SLOB's console exists, and this double never
makes one up. Its own refusals go to stderr, prefixed ``REPLAY DOUBLE``, with exit status 1.
Every run is appended to ``replay-calls.log`` (arguments and the slob.conf given).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"

RAC_RUN = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
RAC_SETTINGS = {"schemas": 256, "threads": 1, "conf": {"WORK_UNIT": "4", "UPDATE_PCT": "10", "SCALE": "32768"}}

RECORDINGS: dict[str, dict] = {
    # 19c two-node RAC, SLOB 2.5: every file runit.sh leaves except the *.out it did not keep
    "19c-rac-s256-t1-wu4-update10": {"files": sorted(RAC_RUN.iterdir()), **RAC_SETTINGS},
    # the same run as a site where runit.sh produced no AWR report: only the OS statistics
    "19c-rac-s256-t1-wu4-update10-no-report": {
        "files": sorted(p for p in RAC_RUN.iterdir() if p.suffix == ".out"), **RAC_SETTINGS,
    },
    # 12.2 single instance, a SLOB run with UPDATE_PCT=0 (only its AWR report was published)
    "12.2-single-update0": {
        "files": [DATA / "awr" / "12.2.0.1_slob_update0_single_awr.html"],
        "rename": {"12.2.0.1_slob_update0_single_awr.html": "awr.html"},
        "schemas": None, "threads": None, "conf": {"UPDATE_PCT": "0"},
    },
}

HOLD_TIMEOUT_S = 120
"""Seconds a held run waits for its ``hold`` file before it refuses."""

RUNIT = """#!/bin/sh
# REPLAY DOUBLE of SLOB's runit.sh for flashpoc's tests (see tests/replay/slob_replay.py)
exec {python} {script} "$@"
"""


def install(home: Path, python: str, by_threads: dict[int, list[str]], hold: Path | None = None,
            cut: dict[str, int] | None = None, pace: float | None = None) -> Path:
    """Make ``home`` a scratch SLOB directory whose runit.sh is this replay double.

    Args:
        home: directory to create.
        python: interpreter that can import flashpoc.
        by_threads: threads per schema -> names of candidate recordings in :data:`RECORDINGS`.
        hold: a file each run waits for before it leaves its files (None: no wait).
        cut: recorded files each run leaves cut short: file name -> the bytes kept.
        pace: seconds between two reports of iostat.out written as iostat writes them (None: copied at once).

    Besides runit.sh the directory gets ``bin/sqlplus`` (a stand-in that only exists, for the
    check's "sqlplus on the PATH") and ``slob.env``, an environment file putting it on the PATH.
    """
    home.mkdir(parents=True, exist_ok=True)
    (home / "runit.sh").write_text(RUNIT.format(python=python, script=Path(__file__).resolve()))
    (home / "setup.sh").write_text("#!/bin/sh\necho 'REPLAY DOUBLE: setup.sh is not replayed' >&2; exit 1\n")
    (home / "replay.json").write_text(json.dumps({**{str(t): names for t, names in by_threads.items()},
                                                  "hold": str(hold) if hold else None, "cut": cut or {},
                                                  "pace": pace}))
    # runit.sh needs sqlplus on the PATH; the environment file puts this stand-in there
    (home / "bin").mkdir(exist_ok=True)
    sqlplus = home / "bin" / "sqlplus"
    sqlplus.write_text("#!/bin/sh\necho 'REPLAY DOUBLE: sqlplus is not replayed' >&2; exit 1\n")
    sqlplus.chmod(0o755)
    (home / "slob.env").write_text(f'PATH="{home / "bin"}:$PATH"; export PATH\n')
    return home


def refuse(message: str) -> int:
    print(f"REPLAY DOUBLE (runit.sh): {message}", file=sys.stderr)
    return 1


def mismatch(recording: dict, schemas: int, threads: int, conf: dict[str, str]) -> str | None:
    """Why ``recording`` cannot stand for this run, or None when it can."""
    for what, asked in (("schemas", schemas), ("threads", threads)):
        if recording[what] is not None and recording[what] != asked:
            return f"ran with {what} {recording[what]}, asked {asked}"
    for key, value in recording["conf"].items():
        if conf.get(key) != value:
            return f"ran with {key}={value}, slob.conf says {key}={conf.get(key)}"
    return None


def wait_for(path: Path) -> bool:
    """Whether ``path`` exists, waiting for it up to :data:`HOLD_TIMEOUT_S`."""
    deadline = time.monotonic() + HOLD_TIMEOUT_S
    while not path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


TIMESTAMP = re.compile(rb"^\d{2}/\d{2}/\d{2,4} \d{2}:\d{2}:\d{2}( [AP]M)?$")
"""A report's time stamp line in ``iostat -t`` output (``02/17/2020 09:25:22 AM``)."""


def write_paced(source: Path, target: Path, pace: float) -> None:
    """``source``'s bytes appended to ``target`` report by report (each from its time stamp line),
    flushed, ``pace`` seconds apart: the recorded file as iostat wrote it, at another pace."""
    chunks: list[bytes] = [b""]
    for line in source.read_bytes().splitlines(keepends=True):
        if TIMESTAMP.match(line.rstrip(b"\r\n")) and chunks[-1]:
            chunks.append(b"")
        chunks[-1] += line
    with target.open("wb") as out:
        for chunk in chunks:
            out.write(chunk)
            out.flush()
            time.sleep(pace)


def main(argv: list[str]) -> int:
    from flashpoc.core.errors import ParameterError
    from flashpoc.engines.slob.plan import parse_slob_conf

    args = dict(zip(argv[::2], argv[1::2]))
    if len(argv) != 4 or set(args) != {"-s", "-t"} or not all(v.isdigit() for v in args.values()):
        return refuse(f"usage: runit.sh -s SCHEMAS -t THREADS_PER_SCHEMA (got {' '.join(argv)!r})")
    schemas, threads = int(args["-s"]), int(args["-t"])
    here = Path.cwd()
    with (here / "replay-calls.log").open("a") as log:
        log.write(json.dumps({"argv": argv, "slob.conf": (here / "slob.conf").read_text()
                              if (here / "slob.conf").exists() else None}) + "\n")
    try:
        conf = parse_slob_conf((here / "slob.conf").read_text())
    except (OSError, ParameterError) as error:
        return refuse(f"no usable ./slob.conf: {error}")
    replay = json.loads((here / "replay.json").read_text())
    names = replay.get(str(threads))
    if not names:
        return refuse(f"no recorded run for -t {threads}")
    reasons = []
    for name in names:
        recording = RECORDINGS[name]
        reason = mismatch(recording, schemas, threads, conf)
        if reason is None:
            break
        reasons.append(f"recording {name} {reason}")
    else:
        return refuse("; ".join(reasons))
    if replay.get("hold") and not wait_for(Path(replay["hold"])):
        return refuse(f"{replay['hold']} did not appear within {HOLD_TIMEOUT_S} s")
    paced = replay.get("pace") is not None and any(p.name == "iostat.out" for p in recording["files"])
    if paced:
        write_paced(next(p for p in recording["files"] if p.name == "iostat.out"), here / "iostat.out", replay["pace"])
    for path in recording["files"]:
        if path.name == "PROVENANCE.md" or (paced and path.name == "iostat.out"):
            continue
        target = here / recording.get("rename", {}).get(path.name, path.name)
        shutil.copyfile(path, target)
        if target.name in replay.get("cut", {}):
            target.write_bytes(target.read_bytes()[:replay["cut"][target.name]])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
