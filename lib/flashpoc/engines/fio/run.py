"""Run fio jobs on a host (local or SSH) in one round-trip per run point.

The job text goes to the host on the command's standard input, fio runs in the point's
directory and writes JSON+ to a file (clean JSON, no progress lines), and the same command
prints ``/proc/stat`` before and after the run followed by that file and fio's per-job
interval logs, so a point costs one command over SSH.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flashpoc.core.errors import ParseError, RemoteError
from flashpoc.engines.fio.parse import split_client_output, text_before_json
from flashpoc.engines.fio.plan import LOG_NAME
from flashpoc.engines.fio.status import STATUS_AWK
from flashpoc.hosts.group import Group
from flashpoc.hosts.host import CommandResult, quote

MARK = "@@flashpoc"


@dataclass(frozen=True)
class FioRun:
    """What one fio run on one host produced.

    Attributes:
        host: host name.
        job: the job file text.
        output: fio's JSON+ output text.
        stderr: fio's standard error (warnings).
        cpu_before: the ``cpu`` line of /proc/stat before the run.
        cpu_after: the same line after the run.
        wall_s: wall-clock seconds of the whole command, as seen by the controller.
        logs: fio's interval logs, file name (``flashpoc_iops.3.log``) -> text; empty when
            the job writes none.
        window_ns: the host's clock (``date +%s%N``, nanoseconds since the epoch) just before fio
            started and just after it ended; None where the host printed no such figure.
    """

    host: str
    job: str
    output: str
    stderr: str
    cpu_before: str
    cpu_after: str
    wall_s: float
    logs: dict[str, str]
    window_ns: tuple[int, int] | None = None

    def files(self, *, logs: bool = False) -> dict[str, str]:
        """The run's files as its point keeps them, each named after the host: its job, fio's output
        and (when not empty) its error text; with ``logs``, its interval logs too (a failed or
        refused run's, kept whole)."""
        files = {f"{self.host}.job.fio": self.job, f"{self.host}.json": self.output}
        if self.stderr.strip():
            files[f"{self.host}.stderr.txt"] = self.stderr
        return files | ({f"{self.host}.{name}": text for name, text in self.logs.items()} if logs else {})


def point_command(fio: str, run_dir: str, *, readonly: bool, live: bool = False) -> str:
    """Return the shell command that runs one point; the job text comes on stdin.

    Args:
        fio: fio executable on the host.
        run_dir: directory on the host for job.fio, out.json and the interval logs (created;
            interval logs of an earlier attempt are removed first).
        readonly: pass ``--readonly`` so fio refuses to issue any write.
        live: fio writes its status report every second (``--status-interval=1``) through a pipe whose
            reader (:data:`.status.STATUS_AWK`) keeps the last one, the result, as ``out.json`` and
            prints the others on the command's standard output as they end (read by
            :class:`.status.StatusFeed`); else fio writes ``out.json`` itself. Its standard output
            goes to standard error either way.
    """
    readonly_flag = " --readonly" if readonly else ""
    setup = (f"mkdir -p {quote(run_dir)} && cd {quote(run_dir)} && rm -f {LOG_NAME}_*.log out.json {STATUS_PIPE} && "
             f"cat > job.fio && c0=$(head -n1 /proc/stat) && t0=$(date +%s%N 2>/dev/null || :) && ")
    logs = f"{LOG_NAME}_iops.*.log {LOG_NAME}_lat.*.log"
    if not live:
        return (setup + f"{quote(fio)} job.fio --output-format=json+ --output=out.json{readonly_flag} 1>&2; "
                + LEFTOVERS + _report(logs))
    return (setup + f"mkfifo {STATUS_PIPE} && {{ awk {quote(STATUS_AWK)} < {STATUS_PIPE} & reader=$!; }} && "
            f"{quote(fio)} job.fio --output-format=json+ --output={STATUS_PIPE} --status-interval=1{readonly_flag} 1>&2; "
            # a fio that never opened the pipe leaves its reader waiting for a writer: one comes and goes
            + LEFTOVERS + f"[ -p {STATUS_PIPE} ] && true <>{STATUS_PIPE}; wait $reader; rm -f {STATUS_PIPE}; "
            + _report(logs))


#: Right after fio: its exit status in ``rc``, then every process left in the point's directory
#: killed but those of the command's own session (its shell, any subshell a host's login shell or
#: a pipeline makes, the live point's reader). Those are fio's job processes, each in a session of
#: its own (fio's setsid: neither the command's process group nor a terminal's Ctrl-C reaches
#: them). When a signal killed fio, one not yet started waits for it forever and one in its I/O runs
#: on to the end of its runtime, each holding the point's output (and a live point's pipe) open, so
#: that the point would end only at its timeout; and a fio that ended on its own once left three,
#: its run done, waiting forever (a host frozen mid-point, then woken). After a fio that reaped its
#: jobs there is none. Shell builtins only (``test -ef`` on each process's working directory,
#: ``read`` of its /proc stat for its session; /proc/self is the shell that reads): nothing to
#: install on a host.
LEFTOVERS = ('rc=$?; read -r me < /proc/self/stat; set -- ${me##*) }; sid=$4; for p in /proc/[0-9]*; do '
             '[ "$p/cwd" -ef . ] && read -r st < "$p/stat" && set -- ${st##*) } && [ "$4" != "$sid" ] && '
             'kill -KILL "${p#/proc/}" 2>/dev/null; done; ')


#: the pipe a live point's fio writes its output to (:func:`point_command`)
STATUS_PIPE = "status.pipe"


def _report(logs: str) -> str:
    """The end of a point command, after fio and :data:`LEFTOVERS`: fio's exit status (``rc``), the CPU
    counters before and after, the host's clock before fio started and after it ended (``t0``, ``t1``),
    out.json (also after a failure: fio puts a job's errors there) and the ``logs`` files."""
    return (
        f"t1=$(date +%s%N 2>/dev/null || :); c1=$(head -n1 /proc/stat); "
        f"echo \"{MARK} rc $rc\"; echo \"{MARK} cpu0 $c0\"; echo \"{MARK} cpu1 $c1\"; "
        f"echo \"{MARK} clock ${{t0:-}} $t1\"; "
        f"echo \"{MARK} out\"; if [ $rc -ne 0 ]; then cat out.json 2>/dev/null; exit $rc; fi; cat out.json; "
        f"for f in {logs}; do [ -f \"$f\" ] && echo && echo \"{MARK} log $f\" && cat \"$f\"; done; exit 0"
    )


def split_point_output(stdout: str) -> tuple[int, str, str, str, dict[str, str], tuple[int, int] | None]:
    """Split a point command's stdout into (exit code, cpu before, cpu after, fio JSON, logs, the
    host's clock before and after fio in nanoseconds: None unless both are whole numbers, the
    first not after the second).

    Raises:
        ParseError: when the markers are missing (the command did not run to its end).
    """
    head, sep, body = stdout.partition(f"{MARK} out\n")
    if not sep:
        raise ParseError("the fio point command ended before printing its results")
    marks = {}
    for line in head.splitlines():
        if line.startswith(MARK + " "):
            key, _, value = line[len(MARK) + 1:].partition(" ")
            marks[key] = value
    output, *sections = body.split(f"{MARK} log ")
    logs = {}
    for section in sections:
        name, _, text = section.partition("\n")
        logs[name.strip()] = text
    try:
        return int(marks["rc"]), marks["cpu0"], marks["cpu1"], output, logs, _window(marks.get("clock", ""))
    except (KeyError, ValueError):
        raise ParseError("the fio point command printed incomplete markers") from None


def _window(clock: str) -> tuple[int, int] | None:
    """``t0 t1`` of a point command's clock marker as nanoseconds, or None (a ``date`` without ``%N``
    prints a letter; a clock stepped back mid-point gives no window)."""
    values = clock.split()
    if len(values) != 2 or not all(v.isascii() and v.isdigit() for v in values) or int(values[0]) > int(values[1]):
        return None
    return int(values[0]), int(values[1])


def run_fio_job(host, job: str, run_dir: str, *, readonly: bool, timeout_s: float, purpose: str,
                on_line: Callable[[str], None] | None = None) -> FioRun:
    """Run one fio job on ``host`` and return its output.

    Args:
        host: a :mod:`flashpoc.hosts.host` host.
        job: job file text.
        run_dir: directory on the host for the job and its output.
        readonly: run fio with ``--readonly``.
        timeout_s: seconds before the run is abandoned.
        purpose: words for error messages, e.g. "probe randread-4k 16 threads".
        on_line: called with each line fio's status reports print while it runs (a live point,
            :func:`point_command`; e.g. :class:`.status.StatusFeed`).

    Raises:
        RemoteError: naming the host and purpose, with fio's own error text.
    """
    start = time.perf_counter()
    command = point_command(host.params.fio, run_dir, readonly=readonly, live=on_line is not None)
    result: CommandResult = host.run(command, purpose=purpose, timeout_s=timeout_s, stdin=job, check=False,
                                     on_line=on_line)
    wall = time.perf_counter() - start
    stderr = {f"{host.name}.stderr.txt": result.stderr}  # a failed run's, kept even when empty
    try:
        rc, cpu0, cpu1, output, logs, window = split_point_output(result.stdout)
    except ParseError:
        detail = result.stderr.strip()[-2000:] or "(no output)"
        raise RemoteError(f"{host.name}: {purpose}: fio did not run (exit {result.exited}):\n{detail}",
                          files={f"{host.name}.job.fio": job, **stderr, f"{host.name}.stdout.txt": result.stdout}
                          ) from None
    run = FioRun(host.name, job, output, result.stderr, cpu0, cpu1, wall, logs, window)
    if rc != 0:
        detail = "\n".join(result.stderr.strip().splitlines()[-15:] + job_errors(output)) or "(no output)"
        raise RemoteError(f"{host.name}: {purpose}: fio exited {rc}:\n{detail}", files=run.files(logs=True) | stderr)
    return run


def job_errors(output: str) -> list[str]:
    """fio's per-job errors from its (JSON) output of a failed run: ``job NAME: error N
    (strerror)``; fio puts an open() or I/O failure there and often nowhere else."""
    try:
        document = json.loads(output[output.find("{"):])
        jobs = document.get("jobs") or document.get("client_stats") or []
    except (ValueError, AttributeError):
        return []
    return [f"job {job.get('jobname')}: error {job['error']} ({os.strerror(job['error'])})"
            for job in jobs if isinstance(job, dict) and isinstance(job.get("error"), int) and job["error"]]


def fio_version(host) -> str:
    """Return ``fio --version`` on ``host`` (e.g. ``fio-3.33``)."""
    return host.run(f"{quote(host.params.fio)} --version", purpose="read the fio version").stdout.strip()


SERVER_PIDFILE = "fio-server.pid"


def server_address(host) -> str:
    """The address fio's client dials for ``host`` (and its server listens on)."""
    return "127.0.0.1" if host.params.is_local else host.params.address


def start_server(host, port: int, *, readonly: bool) -> None:
    """(Re)start ``fio --server`` on ``host``, listening on its campaign address only.

    A server this workbook started earlier in the same work directory is stopped first; with
    ``readonly`` the server runs ``--readonly`` and refuses any job that writes.

    Raises:
        RemoteError: naming the host when the server does not start (fio missing, port taken).
    """
    workdir = host.params.workdir
    listen = f"{server_address(host)},{port}"
    host.run(
        f"mkdir -p {quote(workdir)} && cd {quote(workdir)} && {_STOP_SERVER} "
        f"{quote(host.params.fio)} --server={quote(listen)} --daemonize={quote(workdir + '/' + SERVER_PIDFILE)}"
        f"{' --readonly' if readonly else ''} && sleep 0.5 && kill -0 \"$(cat {SERVER_PIDFILE})\"",
        purpose=f"start fio --server on port {port}", timeout_s=_short(host))


def stop_server(host) -> None:
    """Stop the ``fio --server`` this workbook started on ``host`` (nothing when none runs)."""
    host.run(f"cd {quote(host.params.workdir)} 2>/dev/null && {_STOP_SERVER} true",
             purpose="stop fio --server", timeout_s=_short(host), check=False)


def start_servers(hosts: list, port: int, *, readonly: bool) -> None:
    """:func:`start_server` on every host at once.

    Raises:
        GroupError: naming every host whose server did not start (a point needs them all).
    """
    Group(hosts, strict=True).map(lambda host: start_server(host, port, readonly=readonly),
                                  purpose=f"start fio --server on port {port}")


def stop_servers(hosts: list) -> None:
    """:func:`stop_server` on every host at once, skipping the hosts that stopped answering
    (``silent``: the next :func:`start_server` there replaces the server). A host that fails to
    stop it is ignored on purpose: this runs while closing, and must not hide why."""
    Group([h for h in hosts if not h.silent]).map(stop_server, purpose="stop fio --server")


# The server's whole process group (--daemonize makes it a group leader): a connection's backend
# outlives the server (a host that hung mid-point) and keeps its listening socket, to which the
# kernel then hands the next server's connections (fio sets SO_REUSEPORT). Only fio processes of
# the group are ended (a stale pid may be anything's now), and waited for, at most 3 s.
_STOP_SERVER = (f"if [ -f {SERVER_PIDFILE} ]; then pid=$(cat {SERVER_PIDFILE}); pkill -g \"$pid\" -f fio; n=0; "
                "while pgrep -g \"$pid\" -f fio >/dev/null && [ $n -lt 30 ]; do sleep 0.1; n=$((n+1)); done; "
                f"pkill -KILL -g \"$pid\" -f fio; rm -f {SERVER_PIDFILE}; fi;")


def client_command(fio: str, run_dir: str, clients: list[tuple[str, str]], port: int) -> str:
    """The controller's command of one client/server point: ``fio --client=ADDR,PORT JOBFILE``
    per host (job files already in ``run_dir``), output and interval logs printed as
    :func:`point_command` prints them (fio names the logs it receives ``<log>.<address>``). fio 3.33's
    client writes nothing per second with a JSON output (no status line, and its ``--status-interval``
    reports only in the document it writes at the end): a live view gets such a point's seconds from
    the hosts' interval logs when it ends."""
    pairs = " ".join(f"--client={quote(f'{address},{port}')} {quote(job)}" for address, job in clients)
    return (
        f"cd {quote(run_dir)} && rm -f {LOG_NAME}_*.log* out.json && c0=$(head -n1 /proc/stat) && "
        f"{quote(fio)} {pairs} --output-format=json+ --output=out.json 1>&2; rc=$?; "
        + _report(f"{LOG_NAME}_iops.*.log.* {LOG_NAME}_lat.*.log.*")
    )


def run_clients(controller, hosts: list, jobs: dict[str, str], run_dir: str, port: int, *,
                timeout_s: float, purpose: str,
                during: contextlib.AbstractContextManager[Any] | None = None) -> tuple[list[FioRun], str]:
    """Run one point on every host at once through their fio servers: one :class:`FioRun` per
    host, and the whole ``fio --client`` output (every host's jobs and fio's ``All clients``
    aggregate).

    Args:
        controller: the local host that runs ``fio --client`` (its fio is used).
        hosts: the load hosts (connected), each running :func:`start_server`.
        jobs: host name -> its job file (job sections named ``<host>.<workload>``).
        run_dir: local directory for the job files, the output and the logs.
        port: the servers' port.
        timeout_s: seconds before the point is abandoned: the client's run, then, when it
            fails, asking each host whether it still answers (:func:`_answer_s` of them).
        purpose: words for error messages.
        during: a context entered while the client runs (the live view's device counters).
    Raises:
        RemoteError: naming the host(s) that did not answer or whose server refused the job.
    """
    answer_s = _answer_s(hosts, timeout_s)
    controller.run(f"mkdir -p {quote(run_dir)}", purpose="make the client's run directory")
    clients = []
    for host in hosts:
        name = f"job-{host.name}.fio"
        controller.put_text(jobs[host.name], f"{run_dir}/{name}", purpose="write a client job file")
        clients.append((server_address(host), name))

    def cpu(host) -> str:
        return host.run("head -n1 /proc/stat", purpose=f"{purpose}: read the CPU counters",
                        timeout_s=_short(host)).stdout.strip()

    group = Group(hosts, strict=True)  # a host whose counters cannot be read fails the point, every one named
    before = group.map(cpu, purpose=f"{purpose}: read the CPU counters")
    start = time.perf_counter()
    try:
        with during or contextlib.nullcontext():
            result = controller.run(client_command(controller.params.fio, run_dir, clients, port),
                                    purpose=purpose, timeout_s=timeout_s - answer_s, check=False)
    except RemoteError as error:
        raise RemoteError(_silent_hosts(group, purpose, answer_s) or str(error)) from None
    wall = time.perf_counter() - start
    rc, _, _, output, logs, _ = split_point_output(result.stdout)
    if rc != 0:
        detail = "\n".join(result.stderr.strip().splitlines()[-15:] + text_before_json(output) + job_errors(output))
        kept = {**{f"{host.name}.job.fio": jobs[host.name] for host in hosts}, "clients.json": output,
                "stderr.txt": result.stderr, **logs}  # the failed run's, kept
        raise RemoteError(_silent_hosts(group, purpose, answer_s)
                          or f"{purpose}: fio --client exited {rc}:\n{detail}", files=kept)
    try:
        per_host = split_client_output(output, [h.name for h in hosts])
    except ParseError as error:
        raise RemoteError(f"{purpose}: {error}") from None
    after = group.map(cpu, purpose=f"{purpose}: read the CPU counters")
    runs = []
    for host, cpu0, cpu1, (address, _) in zip(hosts, before, after, clients):
        suffix = f".{address}"
        host_logs = {name[: -len(suffix)]: text for name, text in logs.items() if name.endswith(suffix)}
        runs.append(FioRun(host.name, jobs[host.name], per_host[host.name], result.stderr, cpu0, cpu1, wall, host_logs))
    return runs, output


def _short(host) -> float:
    """Seconds for a quick command on ``host``: a minute, or less when its command timeout is shorter."""
    return min(60.0, host.params.command_timeout_s)


def _answer_s(hosts: list, timeout_s: float) -> float:
    """Seconds to ask the hosts whether they still answer after a failed point: their longest
    connect timeout, at most a quarter of the point's ``timeout_s``."""
    return min(max(h.params.connect_timeout_s for h in hosts), timeout_s / 4)


def _silent_hosts(group: Group, purpose: str, within_s: float) -> str | None:
    """Which hosts no longer answer (a short command each, at once, given ``within_s`` seconds),
    said as an error message; a host that does not answer is the answer here, not an error."""
    asked = group.run("true", purpose="see whether it answers", timeout_s=within_s, strict=False)
    silent = list(asked.failed)
    if not silent:
        return None
    return f"{', '.join(silent)}: {purpose}: no answer from {'this host' if len(silent) == 1 else 'these hosts'} " \
           f"within {within_s:g} s (down or hung, or its network is)"
