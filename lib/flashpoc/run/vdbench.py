"""Run vdbench on the controller host: push the parmfile, stream progress, fetch the output.

``vdbench -f PARMFILE -o OUTDIR`` runs on the controller (vdbench's master); with several
hosts the parmfile's ``hd=`` definitions make vdbench start its own slaves on them
(``shell=ssh``). The console output streams back line by line (interval lines drive the
progress bar) and the whole output directory comes back as a base64 tar stream, so local
and SSH controllers work the same way.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import RemoteError
from .hosts import EXIT_MARK, fetch_dir, quote, split_exit_status

#: an interval line of the console: time, interval number, then the numbers
INTERVAL_LINE = re.compile(r"^\S+\s+(\d+)\s+\d+(?:\.\d+)?\s")
START_LINE = re.compile(r"Starting RD=(\S+?);.*?(?:For loops: (.*))?$")
MAX_OUTPUT_BYTES = 512 * 1024**2


@dataclass(frozen=True)
class VdbenchRun:
    """What one vdbench invocation produced.

    Attributes:
        host: the controller's name.
        parmfile: the parameter file text.
        console: vdbench's standard output and error, as printed.
        exit_code: vdbench's exit status (0 on success; e.g. 157 on a configuration error).
        files: output file name -> text (totals.html, summary.html, flatfile.html, ...).
        wall_s: wall-clock seconds of the run, as seen by the controller of the workbook.
    """

    host: str
    parmfile: str
    console: str
    exit_code: int
    files: dict[str, str]
    wall_s: float


def vdbench_executable(host) -> str:
    """The vdbench script on ``host``: ``<vdbench dir>/vdbench`` or ``vdbench`` on the PATH."""
    directory = host.params.vdbench
    return f"{directory.rstrip('/')}/vdbench" if directory else "vdbench"


def run_command(vdbench: str, run_dir: str, *, simulate: bool = False) -> str:
    """The shell command that runs (or with ``simulate``, checks) ``run_dir/parmfile``.

    The output directory is ``run_dir/output``; the console goes to stdout and to
    ``run_dir/console.txt``; the command exits with vdbench's status.
    """
    d = quote(run_dir)
    sim = " -s" if simulate else ""
    out = f"{d}/simulate" if simulate else f"{d}/output"
    return (f"cd {d} && {{ {quote(vdbench)}{sim} -f {d}/parmfile -o {out} 2>&1; echo \"{EXIT_MARK}$?\"; }}"
            f" | tee {d}/console.txt")


def _exit_code(console: str) -> tuple[int, str]:
    code, rest = split_exit_status(console)
    if code is None:
        raise RemoteError("vdbench's console ended without its exit status (the command was cut short)")
    return code, rest


def fetch_output(host, run_dir: str, *, purpose: str) -> dict[str, str]:
    """Every file of ``run_dir/output`` on ``host``, as text (one tar stream)."""
    files = fetch_dir(host, f"{run_dir}/output", purpose=purpose, max_bytes=MAX_OUTPUT_BYTES)
    return {name: data.decode("utf-8", errors="replace") for name, data in files.items()}


def run_vdbench(host, parmfile: str, run_dir: str, *, timeout_s: float, purpose: str,
                on_line: Callable[[str], None] | None = None, simulate: bool = False) -> VdbenchRun:
    """Run vdbench on the controller ``host`` and return its console and output files.

    A failed run (non-zero exit) is returned, not raised: its console and files hold
    vdbench's own error message (see :func:`flashpoc.parse.vdbench.vdbench_failure`).

    Args:
        host: the controller (a :mod:`flashpoc.run.hosts` host).
        parmfile: parameter file text.
        run_dir: directory on the controller for the parmfile, console and output.
        timeout_s: seconds before the run is abandoned (and stopped on the host).
        purpose: words for error messages.
        on_line: called with each console line as it arrives (progress).
        simulate: run ``vdbench -s`` (parse and check the parmfile, no I/O).

    Raises:
        RemoteError: when the controller cannot be reached or the command is cut short.
    """
    start = time.perf_counter()
    host.put_text(parmfile, f"{run_dir}/parmfile", purpose=f"{purpose}: write the parmfile")
    result = host.run(run_command(vdbench_executable(host), run_dir, simulate=simulate), purpose=purpose,
                      timeout_s=timeout_s, check=False, on_line=on_line)
    code, console = _exit_code(result.stdout)
    files = {} if simulate else fetch_output(host, run_dir, purpose=f"{purpose}: fetch the output")
    return VdbenchRun(host.name, parmfile, console, code, files, time.perf_counter() - start)


class IntervalProgress:
    """Turns console lines into progress: the run (rd and loop values) and interval counts.

    Call it with each console line; ``intervals`` counts interval lines seen, ``run`` is the
    latest ``Starting RD=...`` description, and ``on_interval`` is called after each one.
    """

    def __init__(self, on_interval: Callable[[IntervalProgress], None] | None = None):
        self.intervals = 0
        self.runs = 0
        self.run = ""
        self.on_interval = on_interval

    def __call__(self, line: str) -> None:
        started = START_LINE.search(line)
        if started:
            self.runs += 1
            self.run = f"{started.group(1)} {started.group(2) or ''}".strip()
        elif INTERVAL_LINE.match(line):
            self.intervals += 1
            if self.on_interval is not None:
                self.on_interval(self)
