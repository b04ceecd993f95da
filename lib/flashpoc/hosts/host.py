"""One interface for running commands on load hosts: locally or over SSH (fabric).

``connect(host_params)`` returns a :class:`LocalHost` for ``address: localhost`` and an
:class:`SSHHost` (a fabric ``Connection`` with key authentication, a checked host key,
connection reuse and timeouts) for anything else. Both offer ``run``, ``put_text`` and
``read_text``. Every value that goes into a shell command is quoted with :func:`quote`.
"""

from __future__ import annotations

import base64
import codecs
import contextlib
import io
import itertools
import logging
import math
import os
import re
import secrets
import select
import shlex
import signal
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from flashpoc.core.errors import FlashpocError, RemoteError
from flashpoc.core.processes import parent_pid
from flashpoc.params import HostParams
from flashpoc.core.store import write_atomic

_INLINE_STDIN_MAX = 64 * 1024  # bytes of stdin sent inside the command line

# paramiko logs transport tracebacks itself; keep them out of notebooks (errors are raised)
logging.getLogger("paramiko").addHandler(logging.NullHandler())


def quote(value: object) -> str:
    """Quote one value for a POSIX shell (``shlex.quote`` of its ``str``)."""
    return shlex.quote(str(value))


def join(argv: Iterable[object]) -> str:
    """Join an argument vector into one shell command, quoting every item."""
    return " ".join(quote(a) for a in argv)


@dataclass(frozen=True)
class CommandResult:
    """What a command printed and how it ended."""

    stdout: str
    stderr: str
    exited: int

    @property
    def ok(self) -> bool:
        """True when the command exited 0."""
        return self.exited == 0


def _tail(text: str, lines: int = 8) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


class _Host:
    """Shared behaviour of local and SSH hosts."""

    params: HostParams
    silent = False
    """True when the host's last command got no answer within its timeout (a hung host or network)."""

    @property
    def name(self) -> str:
        """The host's name from the parameters."""
        return self.params.name

    def run(self, command: str, *, purpose: str, timeout_s: float | None = None,
            check: bool = True, stdin: str | None = None,
            on_line: Callable[[str], None] | None = None) -> CommandResult:
        """Run a shell command and return its result.

        Args:
            command: shell command text; quote every value with :func:`quote`.
            purpose: a few words for error messages ("run fio point randread-4k t=8").
            timeout_s: seconds before the command is abandoned, connecting to the host and
                opening its SSH channel included (default: the host's ``command_timeout_s``).
            check: raise :class:`RemoteError` when the command exits non-zero.
            stdin: text fed to the command's standard input.
            on_line: called with each line of standard output as it arrives (progress).

        Raises:
            RemoteError: naming the host and purpose, on a timeout, a lost connection,
                or (with ``check``) a non-zero exit, with the tail of stderr.
        """
        timeout_s = timeout_s or self.params.command_timeout_s
        result = self._run(command, purpose=purpose, timeout_s=timeout_s, stdin=stdin, on_line=on_line)
        if check and not result.ok:
            detail = _tail(result.stderr) or _tail(result.stdout) or "(no output)"
            raise RemoteError(f"{self.name}: {purpose} failed (exit {result.exited}):\n{detail}")
        return result

    def put_text(self, text: str, path: str, *, purpose: str = "write a file") -> None:
        """Write ``text`` to ``path`` on the host (parent directory created)."""
        command = f"mkdir -p {quote(str(Path(path).parent))} && cat > {quote(path)}"
        self.run(command, purpose=purpose, stdin=text)

    def read_text(self, path: str, *, purpose: str = "read a file") -> str:
        """Return the text of ``path`` on the host."""
        return self.run(f"cat {quote(path)}", purpose=purpose).stdout

    def close(self) -> None:
        """Release the connection (no-op for local hosts)."""

    def __enter__(self) -> _Host:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, command: str, *, purpose: str, timeout_s: float, stdin: str | None,
             on_line: Callable[[str], None] | None) -> CommandResult:
        raise NotImplementedError


class _LineWriter(io.TextIOBase):
    """A text stream that keeps everything written and calls ``on_line`` per complete line."""

    def __init__(self, on_line: Callable[[str], None] | None):
        self.on_line, self.parts, self._pending = on_line, [], ""

    def write(self, text: str) -> int:
        self.parts.append(text)
        if self.on_line is not None:
            self._pending += text
            *lines, self._pending = self._pending.split("\n")
            for line in lines:
                self.on_line(line)
        return len(text)

    def value(self) -> str:
        """Everything written so far."""
        return "".join(self.parts)


_CONTROLLER, _COMMANDS = f"{os.getpid()}-{secrets.token_hex(3)}", itertools.count(1)
"""This controller, and a number for each command it runs (:meth:`SSHHost._end_running` finds one on its
host by them)."""

_RUNNING: dict[int, Callable[[], None]] = {}
"""How to end each command running now, in any thread, by a number of its own (:func:`end_running_commands`)."""
_RUNNING_LOCK = threading.Lock()


@contextlib.contextmanager
def _running(end: Callable[[], None]) -> Iterator[None]:
    """Registers how to end the command that runs in the block."""
    key = next(_COMMANDS)
    with _RUNNING_LOCK:
        _RUNNING[key] = end
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            _RUNNING.pop(key, None)


def end_running_commands() -> None:
    """End every command this controller runs now, on any host and in any thread, each as a Ctrl-C
    of its own would (:func:`_end_group`, :meth:`SSHHost._end_running`), the hosts side by side.
    For Ctrl-C while a group of hosts runs a point (:meth:`flashpoc.hosts.group.Group.map`): each
    host's command runs in a thread that the KeyboardInterrupt does not reach."""
    with _RUNNING_LOCK:
        ends = list(_RUNNING.values())
    threads = [threading.Thread(target=end, daemon=True) for end in ends]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _end_group(proc: subprocess.Popen) -> None:
    """End a local command (a timeout, Ctrl-C) with every process it started: its process group (its own
    session) and, beyond it, their descendants in sessions of their own. fio's job processes are such:
    a SIGKILL of the group alone ends fio and leaves them running their I/O to the end of the point's
    runtime (or, not yet started, waiting for ever)."""
    tree = _descendants(proc.pid)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    for pid in tree:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _descendants(root: int) -> list[int]:
    """The pids of ``root``'s descendants, from /proc (each process's parent)."""
    children: dict[int | None, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        children.setdefault(parent_pid(entry), []).append(int(entry))
    found, todo = [], [root]
    while todo:
        found += (kids := children.get(todo.pop(), []))
        todo += kids
    return found


class LocalHost(_Host):
    """Runs commands on this machine with ``/bin/sh -c`` (no SSH, minimal overhead)."""

    def __init__(self, params: HostParams):
        self.params = params

    def put_text(self, text: str, path: str, *, purpose: str = "write a file") -> None:
        """Write ``text`` to ``path`` here, atomically (parent directory created), without a shell:
        a point on 16 hosts writes 16 job files here."""
        try:
            write_atomic(path, text)
        except FlashpocError as error:
            raise RemoteError(f"{self.name}: {purpose} failed: {error}") from None

    def _run(self, command: str, *, purpose: str, timeout_s: float, stdin: str | None,
             on_line: Callable[[str], None] | None) -> CommandResult:
        proc = subprocess.Popen(["/bin/sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
        try:
            with _running(lambda: _end_group(proc)):
                if on_line is None:
                    out, err = proc.communicate(stdin if stdin is not None else "", timeout=timeout_s)
                else:
                    out, err = self._stream(proc, stdin, timeout_s, on_line)
        except BaseException:
            _end_group(proc)
            proc.wait()
            if isinstance(sys.exc_info()[1], subprocess.TimeoutExpired):
                raise RemoteError(f"{self.name}: {purpose} did not finish within {timeout_s:g} s") from None
            raise
        return CommandResult(out, err, proc.returncode)

    @staticmethod
    def _stream(proc: subprocess.Popen, stdin: str | None, timeout_s: float,
                on_line: Callable[[str], None]) -> tuple[str, str]:
        """Feed stdin, call ``on_line`` per stdout line, collect stderr in a thread. At ``timeout_s``
        it raises TimeoutExpired even when the command's output is still held open (by a process the
        command left behind), where reading the stream to its end would wait for that process."""
        errors: list[str] = []
        reader = threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True)
        reader.start()
        proc.stdin.write(stdin or "")
        proc.stdin.close()
        deadline = time.monotonic() + timeout_s
        writer = _LineWriter(on_line)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        fd = proc.stdout.fileno()
        while chunk := _read_by(fd, deadline, proc.args, timeout_s):
            writer.write(decoder.decode(chunk))
        writer.write(decoder.decode(b"", final=True))
        proc.wait(max(deadline - time.monotonic(), 0.001))
        reader.join(max(deadline - time.monotonic(), 0.001))
        if reader.is_alive():
            raise subprocess.TimeoutExpired(proc.args, timeout_s)
        return writer.value(), "".join(errors)


def _read_by(fd: int, deadline: float, args: object, timeout_s: float) -> bytes:
    """The next bytes of ``fd`` (empty at its end), or TimeoutExpired at ``deadline``."""
    while (left := deadline - time.monotonic()) > 0:
        if select.select([fd], [], [], left)[0]:
            return os.read(fd, 65536)
    raise subprocess.TimeoutExpired(args, timeout_s)


class SSHHost(_Host):
    """Runs commands over one reused SSH connection (fabric), with the host key checked.

    An unknown host key is refused unless ``trust_unknown_host_key`` is set, in which case
    it is accepted and recorded in the known_hosts file; a changed key is always refused.
    """

    def __init__(self, params: HostParams):
        import fabric
        import paramiko

        self.params = params
        self._local = threading.local()  # the tag of the command this thread runs now (_end_running)
        config = fabric.Config(overrides={"load_ssh_configs": False, "run": {"in_stream": False},
                                          "runners": {"remote": _ending_runner(self._end_running)}})
        connect_kwargs: dict[str, object] = {"allow_agent": True, "look_for_keys": params.key_file is None}
        if params.key_file:
            connect_kwargs["key_filename"] = str(Path(params.key_file).expanduser())
        # paramiko's own timeouts (fabric's connect_timeout truncates to whole seconds)
        connect_kwargs.update(timeout=params.connect_timeout_s, banner_timeout=params.connect_timeout_s,
                              auth_timeout=params.connect_timeout_s)
        self._conn = fabric.Connection(host=params.address, user=params.user, port=params.port, config=config,
                                       connect_kwargs=connect_kwargs)
        client = self._conn.client
        client.get_host_keys().clear()
        known_hosts = Path(params.known_hosts or "~/.ssh/known_hosts").expanduser()
        if known_hosts.exists():
            client.load_host_keys(str(known_hosts))
        elif params.trust_unknown_host_key:
            known_hosts.parent.mkdir(parents=True, exist_ok=True)
            known_hosts.touch(mode=0o600)
            client.load_host_keys(str(known_hosts))
        policy = paramiko.AutoAddPolicy() if params.trust_unknown_host_key else paramiko.RejectPolicy()
        client.set_missing_host_key_policy(policy)
        self._known_hosts = known_hosts

    def _open(self, purpose: str) -> None:
        import paramiko

        if self._conn.is_connected:
            return
        where = f"{self.params.address}:{self.params.port}"
        variable = self.params.key_passphrase_env
        if variable:
            if not os.environ.get(variable):
                raise RemoteError(f"{self.name}: the passphrase of {self.params.key_file} is read from the "
                                  f"environment variable {variable}, which is not set")
            self._conn.connect_kwargs["passphrase"] = os.environ[variable]  # read at connect time, kept nowhere else
        try:
            self._conn.open()
        except paramiko.PasswordRequiredException:
            raise RemoteError(
                f"{self.name}: the SSH key {self.params.key_file or '(default key)'} is protected by a passphrase: "
                "load it into ssh-agent (ssh-add), or set key_passphrase_env to the NAME of an environment "
                "variable holding the passphrase"
            ) from None
        except paramiko.BadHostKeyException:
            raise RemoteError(
                f"{self.name}: the SSH host key of {where} has CHANGED since it was recorded in "
                f"{self._known_hosts}; refusing to connect (check the host, then remove the old key)"
            ) from None
        except paramiko.SSHException as error:
            if "not found in known_hosts" in str(error):
                raise RemoteError(
                    f"{self.name}: the SSH host key of {where} is unknown (not in {self._known_hosts}); "
                    "add it with ssh-keyscan after verifying it, or set trust_unknown_host_key: true "
                    "for this host to record it on first contact"
                ) from None
            raise RemoteError(f"{self.name}: cannot connect to {where} to {purpose}: {error}") from None
        except OSError as error:
            reason = error.strerror or str(error) or type(error).__name__
            raise RemoteError(f"{self.name}: cannot connect to {where} to {purpose}: {reason}") from None

    def _run(self, command: str, *, purpose: str, timeout_s: float, stdin: str | None,
             on_line: Callable[[str], None] | None) -> CommandResult:
        import paramiko

        # One deadline for the whole command: connecting, sending its input, opening its channel and
        # running it. A host that stops answering (a hung or stopped sshd, a cut network) keeps its
        # TCP connection open and leaves every step waiting, so at the deadline a watchdog closes
        # the connection, whatever it waits on; coreutils timeout on the host ends the command
        # there too (closing the channel would not).
        fired = threading.Event()

        def give_up() -> None:
            fired.set()
            self.close()
            self._conn.client.close()  # also a connection still being opened (fabric closes only open ones)

        watchdog = threading.Timer(timeout_s, give_up)
        watchdog.daemon = True
        watchdog.start()
        # the command's name on the host, for ending it when the controller stops first (_end_running)
        self._local.tag = tag = f"flashpoc-{_CONTROLLER}-{next(_COMMANDS)}"
        try:
            self._open(purpose)
            command = self._with_input(command, stdin)
            wrapped = f"timeout -k 10 {math.ceil(timeout_s)} sh -c {quote(f': {tag}; {command}')}"
            stream = {"out_stream": _LineWriter(on_line)} if on_line is not None else {}
            with _running(lambda: self._end_tag(tag)):
                result = self._conn.run(wrapped, hide=True, warn=True, in_stream=False, **stream)
        except (RemoteError, OSError, EOFError, paramiko.SSHException) as error:
            self.close()
            self.silent = fired.is_set()
            if fired.is_set():
                raise self._timed_out(purpose, timeout_s) from None
            if isinstance(error, RemoteError):
                raise
            raise RemoteError(f"{self.name}: connection lost during {purpose}: {error or type(error).__name__}") from None
        finally:
            watchdog.cancel()
            self._local.tag = None
        self.silent = fired.is_set()
        if fired.is_set():  # the channel closed under the command: no exit status came
            raise self._timed_out(purpose, timeout_s)
        if result.exited == 124:
            raise RemoteError(f"{self.name}: {purpose} did not finish within {timeout_s:g} s (stopped on the host)")
        if result.exited is None or result.exited == -1:  # the channel closed without an exit status
            self.close()
            raise RemoteError(f"{self.name}: connection lost during {purpose} (the command ended without an "
                              f"exit status)")
        return CommandResult(result.stdout, result.stderr, result.exited)

    def _end_running(self) -> None:
        """End the command this thread runs now (fabric's Ctrl-C): :meth:`_end_tag` of its tag."""
        tag, self._local.tag = getattr(self._local, "tag", None), None
        if tag is not None:
            self._end_tag(tag)

    def _end_tag(self, tag: str) -> None:
        """End the command tagged ``tag``, which the controller stops waiting for (Ctrl-C; also from
        another thread, :func:`end_running_commands`; several commands may run on one host at once,
        each in a thread of its own): fabric would wait for its output to end, and closing its
        channel would leave it running on the host (no terminal, no SIGHUP), a fio point to the end
        of its runtime. SIGTERM to the command's ``timeout``, which passes it on to the command's
        process group (fio ends its job processes itself), over a channel of its own. Best effort,
        within the connect timeout: a host that does not answer, or has no pkill (the check warns
        of it), is left to the command's own ``timeout``."""
        pattern = f"[{tag[0]}]{tag[1:]}"  # never matches the pkill's own command line
        with contextlib.suppress(Exception):
            self._conn.run(f"pkill -TERM -f {quote(pattern)}", hide=True, warn=True, in_stream=False,
                           timeout=self.params.connect_timeout_s)

    def _with_input(self, command: str, stdin: str | None) -> str:
        """``command`` fed ``stdin``: invoke copies a stream one byte per 10 ms, so small input goes
        inside the command, large input as a file over SFTP (removed by the command)."""
        if stdin is None:
            return command
        if len(stdin) <= _INLINE_STDIN_MAX:
            return f"printf '%s' {quote(stdin)} | ( {command}\n)"
        remote_input = f"/tmp/.flashpoc-stdin-{os.getpid()}-{id(stdin):x}"
        self._conn.put(io.BytesIO(stdin.encode()), remote_input)
        return f"( {command}\n) < {quote(remote_input)}; rc=$?; rm -f {quote(remote_input)}; exit $rc"

    def _timed_out(self, purpose: str, timeout_s: float) -> RemoteError:
        return RemoteError(f"{self.name}: {purpose} did not finish within {timeout_s:g} s (no answer from the host "
                           "by then: it, its sshd or its network may be down or hung; the connection was closed)")

    def close(self) -> None:
        """Close the SSH connection."""
        self._conn.close()


def _ending_runner(end: Callable[[], None]) -> type:
    """fabric's runner of a remote command whose Ctrl-C calls ``end`` (:meth:`SSHHost._end_running`)
    before fabric waits for the command's output to end, then raises it as fabric does."""
    from fabric.runners import Remote

    class EndingRemote(Remote):
        def send_interrupt(self, interrupt: KeyboardInterrupt) -> None:
            end()
            raise interrupt

    return EndingRemote


EXIT_MARK = "@@flashpoc rc "
"""What a wrapped command prints with its exit status (``echo "@@flashpoc rc $?"``), at the end of a line."""
_EXIT_STATUS = re.compile(re.escape(EXIT_MARK) + r"(\d+)$", re.M)


def split_exit_status(stdout: str) -> tuple[int | None, str]:
    """The exit status the last :data:`EXIT_MARK` printed, and the output without it.

    The mark ends its line but need not begin it: an engine whose output does not end with a
    newline (HammerDB's stack trace cut off as it exits) leaves the mark on its last line, whose
    text stays in the output, ended. Returns ``(None, stdout)`` when no mark was printed (the
    command was cut short).
    """
    found = None
    for found in _EXIT_STATUS.finditer(stdout):
        pass
    if found is None:
        return None, stdout
    head, tail = stdout[:found.start()], stdout[found.end():].removeprefix("\n").rstrip("\n")
    lines = (head.removesuffix("\n").split("\n") if head else []) + (tail.split("\n") if tail else [])
    return int(found.group(1)), "\n".join(lines) + "\n"


def fetch_dir(host, directory: str, *, purpose: str, max_bytes: int = 512 * 1024**2) -> dict[str, bytes]:
    """Every regular file under ``directory`` on ``host`` as bytes, keyed by file name.

    The files travel as one base64-encoded gzip tar stream, so binary files (``.gz``) and
    local and SSH hosts work the same way. A missing directory gives ``{}``.

    Raises:
        RemoteError: the host cannot be reached, or the files exceed ``max_bytes``.
    """
    d = quote(directory)
    encoded = host.run(f"[ -d {d} ] && tar czf - -C {d} . | base64 -w0 || true", purpose=purpose).stdout.strip()
    if not encoded:
        return {}
    raw = base64.b64decode(encoded)
    if len(raw) > max_bytes:
        raise RemoteError(f"{host.name}: {purpose}: {directory} is larger than {max_bytes // 1024**2} MiB")
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:gz") as archive:
        for member in archive.getmembers():
            if member.isfile():
                files[Path(member.name).name] = archive.extractfile(member).read()
    return files


def connect(params: HostParams) -> LocalHost | SSHHost:
    """Return the host object for ``params`` (no network traffic until the first command)."""
    return LocalHost(params) if params.is_local else SSHHost(params)
