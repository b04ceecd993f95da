"""Run vdbench on the controller host: push the parmfile, stream progress, fetch the output.

``vdbench -f PARMFILE -o OUTDIR`` runs on the controller (vdbench's master); with several
hosts the parmfile's ``hd=`` definitions make vdbench start its own slaves on them
(``shell=ssh``). The console output streams back line by line (interval lines drive the
progress bar) and the whole output directory comes back as a base64 tar stream, so local
and SSH controllers work the same way.

With remote hosts the run directory also holds what vdbench's master needs to reach them
(:class:`MasterSetup`): ``ssh/ssh``, first on vdbench's PATH, which runs OpenSSH with
``ssh/config`` (:func:`flashpoc.engines.vdbench.plan.ssh_config`: each host's port, key and known_hosts
file), and, with ``vdbench.controller_address``, ``jvm_hosts``: a hosts file that vdbench's
Java reads instead of the system's (``-Djdk.net.hosts.file`` in ``JAVA_TOOL_OPTIONS``), so that
the controller's host name resolves to that address (vdbench gives its slaves the address of
its host name and refuses a loopback one), and ``override_ip.txt`` with the same address
(vdbench reads it in its working directory, but only after refusing a loopback address, and
its slaves must then report the host name's address anyway: alone it cannot help).
"""

from __future__ import annotations

import ipaddress
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flashpoc.core.errors import ParseError, RemoteError
from flashpoc.engines.vdbench.parse import parse_summary
from flashpoc.hosts.host import EXIT_MARK, CommandResult, fetch_dir, join, quote, split_exit_status

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
        output_dir: vdbench's output directory on the controller (``-o``).
    """

    host: str
    parmfile: str
    console: str
    exit_code: int
    files: dict[str, str]
    wall_s: float
    output_dir: str = ""


@dataclass(frozen=True)
class MasterSetup:
    """What vdbench's master needs, besides the parmfile, to start slaves on remote hosts.

    Attributes:
        ssh_config: the OpenSSH client configuration for ``shell=ssh`` (None: plain ``ssh``).
        controller_address: the address vdbench's Java resolves the controller's host name to
            (None: the system's resolution).
        host_names: the remote hosts' names (not IP addresses), which the JVM's hosts file
            must also hold (with their addresses as the controller resolves them).
    """

    ssh_config: str | None = None
    controller_address: str | None = None
    host_names: tuple[str, ...] = ()


def master_setup(campaign) -> MasterSetup:
    """The :class:`MasterSetup` of a campaign (no I/O)."""
    from flashpoc.engines.vdbench.plan import remote_hosts, ssh_config

    address = campaign.settings.controller_address
    names = tuple(dict.fromkeys(h.address for h in remote_hosts(campaign) if not _is_ip(h.address)))
    return MasterSetup(ssh_config(campaign), address, names if address else ())


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def write_setup(host, run_dir: str, setup: MasterSetup, *, purpose: str) -> None:
    """Write ``setup``'s files into ``run_dir`` on the controller (see the module docstring)."""
    if setup.ssh_config is not None:
        host.put_text(setup.ssh_config, f"{run_dir}/ssh/config", purpose=f"{purpose}: write the ssh config")
        host.put_text(SSH_WRAPPER, f"{run_dir}/ssh/ssh", purpose=f"{purpose}: write the ssh wrapper")
    if setup.controller_address is not None:
        host.put_text(setup.controller_address + "\n", f"{run_dir}/override_ip.txt",
                      purpose=f"{purpose}: write override_ip.txt")


SSH_WRAPPER = """#!/bin/sh
# flashpoc: vdbench's shell=ssh runs this ssh, first on its PATH: OpenSSH with the config next to it
# (the hosts' ports, keys and known_hosts files); its own directory is taken off the PATH (wherever
# a shell start-up file moved it) so that ssh is the real one
here=$(dirname "$0")
rest=
set -f
IFS=:
for dir in $PATH; do
  [ "$dir" = "$here" ] || rest=${rest:+$rest:}$dir
done
unset IFS
PATH=$rest
exec ssh -F "$here/config" "$@"
"""


def master_prelude(setup: MasterSetup) -> str:
    """Shell text to put before a command that runs, in the run directory, as vdbench's master
    does: it makes the ssh wrapper executable and writes the JVM's hosts file, then sets PATH
    and JAVA_TOOL_OPTIONS for the command that follows (empty when ``setup`` needs nothing)."""
    parts, env = [], []
    if setup.ssh_config is not None:
        parts.append("chmod 700 ssh/ssh && ")
        env.append('PATH="$PWD/ssh:$PATH"')
    if setup.controller_address is not None:
        names = "".join(f" {quote(n)}" for n in setup.host_names)
        lookup = f" getent hosts{names} || true;" if names else ""
        address = quote(setup.controller_address)
        parts.append(f"{{ printf '%s %s\\n' {address} \"$(hostname)\";{lookup} }} > jvm_hosts && ")
        env.append('JAVA_TOOL_OPTIONS="${JAVA_TOOL_OPTIONS:+$JAVA_TOOL_OPTIONS }-Djdk.net.hosts.file=jvm_hosts"')
    return "".join(parts) + "".join(f"{e} " for e in env)


def vdbench_executable(host) -> str:
    """The vdbench script on ``host``: ``<vdbench dir>/vdbench`` or ``vdbench`` on the PATH."""
    directory = host.params.vdbench
    return f"{directory.rstrip('/')}/vdbench" if directory else "vdbench"


def find_vdbench_and_java(host, exe: str) -> tuple[bool, str | None]:
    """Whether ``exe`` (:func:`vdbench_executable`) runs on ``host``, and the first line of
    ``java -version`` that names a version (None without Java)."""
    lines = host.run(f"if test -x {quote(exe)} || command -v {quote(exe)} >/dev/null; "
                     "then echo vdbench=yes; else echo vdbench=no; fi; java -version 2>&1 | head -n 1",
                     purpose="look for vdbench and Java", check=False).stdout.splitlines()
    return "vdbench=yes" in lines, next((line.strip() for line in lines if "version" in line), None)


#: vdbench's master gives its slaves the address of its host name: Java's InetAddress.getLocalHost()
LOCALHOST_PROGRAM = """public class FlashpocLocalHost {
    public static void main(String[] args) throws Exception {
        java.net.InetAddress local = java.net.InetAddress.getLocalHost();
        System.out.println("flashpoc-localhost " + local.getHostName() + " " + local.getHostAddress());
    }
}
"""


def resolve_own_address(host, run_dir: str, setup: MasterSetup) -> str:
    """What resolving ``host``'s own name prints, run the way vdbench's master runs in ``run_dir``:
    :data:`LOCALHOST_PROGRAM`'s line (Java's answer), ``name=`` the host name, ``own=`` its
    addresses and ``getent=`` lines (for a Java that cannot run a source file)."""
    host.put_text(LOCALHOST_PROGRAM, f"{run_dir}/FlashpocLocalHost.java", purpose="write the address check")
    return host.run(f"cd {quote(run_dir)} && {master_prelude(setup)}java FlashpocLocalHost.java 2>&1; "
                    "echo \"name=$(hostname)\"; echo \"own=$(hostname -I 2>/dev/null)\"; "
                    "getent ahosts \"$(hostname)\" | sed 's/^/getent=/'",
                    purpose="resolve the controller's host name as vdbench does", check=False, timeout_s=120).stdout


def run_slave_shell(host, run_dir: str, setup: MasterSetup, argv: list[str], *, purpose: str,
                    timeout_s: float) -> CommandResult:
    """Run ``argv`` (the shell vdbench starts a slave with) on ``host`` as vdbench's master does:
    in ``run_dir`` through ``/bin/bash --norc -c``, stdin not a terminal (vdbench's bash reads no
    ~/.bashrc; bash reads it when started, as here, right under sshd)."""
    return host.run(f"cd {quote(run_dir)} && {master_prelude(setup)}/bin/bash --norc -c {quote(join(argv))} "
                    "</dev/null", purpose=purpose, check=False, timeout_s=timeout_s)


def run_command(vdbench: str, run_dir: str, *, simulate: bool = False, setup: MasterSetup = MasterSetup()) -> str:
    """The shell command that runs (or with ``simulate``, checks) ``run_dir/parmfile``.

    The output directory is ``run_dir/output``; the console goes to stdout and to
    ``run_dir/console.txt``; the command exits with vdbench's status. ``setup``'s files must
    be in ``run_dir`` (:func:`write_setup`).
    """
    d = quote(run_dir)
    sim = " -s" if simulate else ""
    out = f"{d}/simulate" if simulate else f"{d}/output"
    return (f"cd {d} && {{ {master_prelude(setup)}{quote(vdbench)}{sim} -f {d}/parmfile -o {out} 2>&1; "
            f"echo \"{EXIT_MARK}$?\"; }} | tee {d}/console.txt")


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
                on_line: Callable[[str], None] | None = None, simulate: bool = False,
                setup: MasterSetup = MasterSetup()) -> VdbenchRun:
    """Run vdbench on the controller ``host`` and return its console and output files.

    A failed run (non-zero exit) is returned, not raised: its console and files hold
    vdbench's own error message (see :func:`flashpoc.engines.vdbench.parse.vdbench_failure`).

    Args:
        host: the controller (a :mod:`flashpoc.hosts.host` host).
        parmfile: parameter file text.
        run_dir: directory on the controller for the parmfile, console and output.
        timeout_s: seconds before the run is abandoned (and stopped on the host).
        purpose: words for error messages.
        on_line: called with each console line as it arrives (progress).
        simulate: run ``vdbench -s`` (parse and check the parmfile, no I/O).
        setup: what the master needs to reach remote hosts (:func:`master_setup`).

    Raises:
        RemoteError: when the controller cannot be reached or the command is cut short.
    """
    start = time.perf_counter()
    host.put_text(parmfile, f"{run_dir}/parmfile", purpose=f"{purpose}: write the parmfile")
    write_setup(host, run_dir, setup, purpose=purpose)
    result = host.run(run_command(vdbench_executable(host), run_dir, simulate=simulate, setup=setup),
                      purpose=purpose, timeout_s=timeout_s, check=False, on_line=on_line)
    code, console = _exit_code(result.stdout)
    files = {} if simulate else fetch_output(host, run_dir, purpose=f"{purpose}: fetch the output")
    return VdbenchRun(host.name, parmfile, console, code, files, time.perf_counter() - start,
                      f"{run_dir}/{'simulate' if simulate else 'output'}")


class IntervalProgress:
    """Turns console lines into progress: the run (rd and loop values) and interval counts.

    Call it with each console line; ``intervals`` counts interval lines seen, ``run`` is the
    latest ``Starting RD=...`` description, and ``on_interval`` is called after each one, whose
    numbers :meth:`values` reads.
    """

    def __init__(self, on_interval: Callable[[IntervalProgress], None] | None = None):
        self.intervals = 0
        self.runs = 0
        self.run = ""
        self.on_interval = on_interval
        self._head: list[str] = []  # the run's Starting RD line and column header
        self._line = ""  # its latest interval line

    def __call__(self, line: str) -> None:
        started = START_LINE.search(line)
        if started:
            self.runs += 1
            self.run = f"{started.group(1)} {started.group(2) or ''}".strip()
            self._head, self._line = [line], ""
        elif INTERVAL_LINE.match(line):
            self.intervals += 1
            self._line = line
            if self.on_interval is not None:
                self.on_interval(self)
        elif self._head and not self._line and len(self._head) < 8:
            self._head.append(line)

    def values(self) -> dict[str, Any] | None:
        """The latest interval line's number, IOPS, MiB/s, read share and response times (ms), read
        as summary.html's lines are (:func:`.parse.parse_summary`, under the run's column header);
        None when it cannot be read."""
        match = INTERVAL_LINE.match(self._line)
        if match is None:
            return None
        # alone under its header, the line is read as the run's first interval (the reader wants them in order)
        first = self._line[:match.start(1)] + "1".rjust(len(match.group(1))) + self._line[match.end(1):]
        try:
            rows = parse_summary("\n".join([*self._head, first]) + "\n", "the console")
        except ParseError:
            return None
        return {**rows[-1], "interval": int(match.group(1))} if rows else None
