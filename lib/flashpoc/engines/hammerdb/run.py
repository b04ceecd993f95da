"""Run a HammerDB script on a load host and fetch what it wrote (host I/O, through run/hosts.py).

HammerDB runs from its own directory, with ``TMP`` naming the run directory, where it writes its
logs and its job store (``cd HAMMERDB_DIR && TMP=RUN_DIR ./hammerdbcli auto RUN_DIR/script.tcl``).
The console goes to standard output and ``RUN_DIR/console.txt``; the exit status follows on an
:data:`~flashpoc.run.hosts.EXIT_MARK` line. Before the files come back, HammerDB's SQLite files are
removed from the run directory (the job store ``hammer.DB`` and the settings stores ``*.db``): they
hold the settings, passwords included, and flashpoc keeps no secret.

The passwords are read by the script from environment variables of the load host: set there,
or exported by ``env_file``, which is sourced first.

While HammerDB runs, the load host's CPU counters are sampled every :data:`CPU_EVERY_S` seconds
into ``RUN_DIR/hostcpu.log`` (``<time> cpu ...``: the time as ``date`` prints it, then the ``cpu``
line of /proc/stat), so that the point's CPU is that of its timed test
(:func:`flashpoc.engines.hammerdb.metrics.host_cpu`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ...errors import RemoteError
from .parse import TCOUNT_LINE, number
from ...run.hosts import EXIT_MARK, fetch_dir, quote, split_exit_status

SCRIPT_NAME = "script.tcl"
JOB_STORE = "hammer.DB"
MAX_RUN_BYTES = 256 * 1024**2
#: the load host's CPU samples, and seconds between two
CPU_LOG, CPU_EVERY_S = "hostcpu.log", 2


@dataclass(frozen=True)
class HammerdbRun:
    """What one ``hammerdbcli auto`` invocation produced.

    Attributes:
        host: the load host's name.
        script: the Tcl script that ran.
        console: HammerDB's standard output and error, as printed.
        exit_code: hammerdbcli's exit status.
        files: file name -> text of what HammerDB wrote in the run directory (logs, the time
            profile, the transaction counter log, the job store's JSON answers), job store excluded.
        wall_s: wall-clock seconds of the run, as seen by the workbook.
        run_dir: the run directory on the host (HammerDB's ``TMP``).
    """

    host: str
    script: str
    console: str
    exit_code: int
    files: dict[str, str]
    wall_s: float
    run_dir: str


def run_command(hammerdb_dir: str, run_dir: str, env_file: str | None = None) -> str:
    """The shell command that runs ``run_dir/script.tcl`` with the HammerDB in ``hammerdb_dir``."""
    d = quote(run_dir)
    source = f". {quote(env_file)} && " if env_file else ""
    sample = f"echo \"$(date '+%Y-%m-%d %H:%M:%S') $(head -n1 /proc/stat)\" >> {d}/{CPU_LOG}"
    return (f"{{ {source}cd {quote(hammerdb_dir)} && {{ TMP={d} ./hammerdbcli auto {d}/{SCRIPT_NAME} 2>&1 & "
            f"p=$!; while kill -0 $p 2>/dev/null; do {sample}; sleep {CPU_EVERY_S}; done; {sample}; wait $p; }}; "
            f"echo \"{EXIT_MARK}$?\"; rm -f {d}/{JOB_STORE} {d}/*.db; }} < /dev/null | tee {d}/console.txt")


def run_hammerdb(host, script: str, run_dir: str, *, hammerdb_dir: str, env_file: str | None = None,
                 timeout_s: float, purpose: str,
                 on_line: Callable[[str], None] | None = None) -> HammerdbRun:
    """Run ``script`` with HammerDB on ``host`` in a new ``run_dir`` and return its outputs.

    A run whose virtual users failed is returned, not raised: its console and logs say why
    (:func:`flashpoc.engines.hammerdb.parse.parse_run` raises naming it).

    Raises:
        RemoteError: the host cannot be reached, ``run_dir`` already exists (each run has its own),
            or the command was cut short before HammerDB's exit status.
    """
    start = time.perf_counter()
    d = quote(run_dir)
    made = host.run(f"[ ! -e {d} ] && mkdir -p {d} && echo made", purpose=f"{purpose}: create the run directory",
                    check=False)
    if made.stdout.strip() != "made":
        raise RemoteError(f"{host.name}: {purpose}: the run directory {run_dir} already exists or cannot be "
                          "created (each HammerDB run writes into a new one)")
    host.put_text(script, f"{run_dir}/{SCRIPT_NAME}", purpose=f"{purpose}: write the HammerDB script")
    result = host.run(run_command(hammerdb_dir, run_dir, env_file), purpose=purpose, timeout_s=timeout_s,
                      check=False, on_line=on_line)
    code, console = split_exit_status(result.stdout)
    if code is None:
        detail = " | ".join((result.stderr or result.stdout).strip().splitlines()[-5:])
        raise RemoteError(f"{host.name}: {purpose}: HammerDB did not complete (exit {result.exited}): {detail}")
    fetched = fetch_dir(host, run_dir, purpose=f"{purpose}: fetch the HammerDB logs", max_bytes=MAX_RUN_BYTES)
    files = {name: data.decode("utf-8", errors="replace") for name, data in fetched.items()
             if name not in (JOB_STORE, SCRIPT_NAME, "console.txt") and not name.endswith(".db")}
    return HammerdbRun(host.name, script, console, code, files, time.perf_counter() - start, run_dir)


def counter_reader(interval: Callable[..., None] | None, rampup_s: float) -> Callable[[str], None] | None:
    """A console line handler that hands each line of HammerDB's transaction counter (``21978
    PostgreSQL tpm``: the database's transactions per minute over its last interval) to
    ``interval`` (:meth:`flashpoc.progress.Progress.interval`) as it is printed, timed by its arrival
    since the handler was made, those of the rampup marked warm-up; None without ``interval``.
    The counter is the only number HammerDB prints while it runs: NOPM and the response times
    come when the timed test ends."""
    if interval is None:
        return None
    start = time.monotonic()

    def on_line(line: str) -> None:
        match = TCOUNT_LINE.match(line.strip())
        if match:
            second = time.monotonic() - start
            interval({"tpm": number(match.group(1))}, second=round(second, 1), warmup=second <= rampup_s)
    return on_line
