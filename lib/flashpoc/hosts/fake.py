"""A host for tests that answers scripted commands, as invoke's ``MockContext`` (shipped with the library).

    host = FakeHost("db1", commands={
        "head -n1 /proc/stat": "cpu  10 0 5 100 0 0 0 0 0 0\\n",
        re.compile(r"fio --version$"): Reply("fio-3.33\\n"),
        re.compile(r"^cat "): Reply(stderr="cat: no such file", exited=1),
        "true": RemoteError("db1: see whether it answers: no answer"),
    })

A key is the exact command text or a compiled regular expression (searched in the command); its
answer is a :class:`Reply` (or :class:`~flashpoc.hosts.host.CommandResult`), a string (standard
output, exit 0), an exception (raised, as by an unreachable host) or a callable given the command
and its standard input that returns any of these. The first key that matches answers. Every call is
recorded in :attr:`FakeHost.calls`; a command no key matches raises :class:`UnexpectedCommand`.
``put_text`` and ``read_text`` work on an in-memory :attr:`FakeHost.files`. ``run`` behaves as a
real host's (:meth:`flashpoc.hosts.host.LocalHost.run`): with ``check`` a non-zero exit raises
:class:`~flashpoc.core.errors.RemoteError` naming the host and purpose.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Union

from flashpoc.core.errors import RemoteError
from flashpoc.params import HostParams
from flashpoc.hosts.host import CommandResult, _Host


@dataclass(frozen=True)
class Reply:
    """A scripted answer: what the command prints and its exit status."""

    stdout: str = ""
    stderr: str = ""
    exited: int = 0


@dataclass(frozen=True)
class Call:
    """One command a :class:`FakeHost` was given."""

    command: str
    purpose: str
    stdin: str | None = None
    timeout_s: float | None = None


Answer = Union[Reply, CommandResult, str, BaseException, Callable[[str, Union[str, None]], Any]]


class UnexpectedCommand(BaseException):
    """A :class:`FakeHost` was given a command no script answers.

    A ``BaseException`` on purpose: code that turns a host's ``Exception`` into a result (a check
    row, a :class:`~flashpoc.hosts.group.GroupResult` failure) must not hide it from the test.
    """


class FakeHost(_Host):
    """The host interface (``name``, ``params``, ``run``, ``put_text``, ``read_text``, ``silent``,
    ``close``) answering scripted commands, recording every one.

    Args:
        name: the host's name (``params.name``), unless ``params`` are given.
        commands: exact command text or compiled regex -> :data:`Answer`, tried in order.
        files: path -> text the host holds (``read_text``; ``put_text`` adds to it).
        params: the host's parameters (default: ``HostParams(name=name)``, a local address).
    """

    def __init__(self, name: str = "fake", *, commands: Mapping[str | re.Pattern, Answer] | None = None,
                 files: Mapping[str, str] | None = None, params: HostParams | None = None):
        self.params = params or HostParams(name=name)
        self.commands = dict(commands or {})
        self.files = dict(files or {})
        self.calls: list[Call] = []
        self.closed = 0

    @property
    def commands_run(self) -> list[str]:
        """The command texts given to ``run``, in order."""
        return [c.command for c in self.calls]

    def _answer(self, command: str) -> Answer:
        for key, answer in self.commands.items():
            if (key.search(command) if isinstance(key, re.Pattern) else key == command):
                return answer
        scripted = ", ".join(k.pattern if isinstance(k, re.Pattern) else repr(k) for k in self.commands) or "none"
        raise UnexpectedCommand(f"{self.name}: no scripted answer for {command!r} (scripted: {scripted})")

    def _run(self, command: str, *, purpose: str, timeout_s: float, stdin: str | None,
             on_line: Callable[[str], None] | None) -> CommandResult:
        self.calls.append(Call(command, purpose, stdin, timeout_s))
        answer = self._answer(command)
        if callable(answer) and not isinstance(answer, BaseException):
            answer = answer(command, stdin)
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, str):
            answer = Reply(answer)
        if not isinstance(answer, (Reply, CommandResult)):
            raise TypeError(f"{self.name}: the answer to {command!r} is a {type(answer).__name__}, "
                            "not a Reply, CommandResult, str or exception")
        if on_line is not None:
            for line in answer.stdout.splitlines():
                on_line(line)
        return CommandResult(answer.stdout, answer.stderr, answer.exited)

    def put_text(self, text: str, path: str, *, purpose: str = "write a file") -> None:
        """Keep ``text`` as the file ``path`` (recorded as a call)."""
        self.calls.append(Call(f"put {path}", purpose, text))
        self.files[path] = text

    def read_text(self, path: str, *, purpose: str = "read a file") -> str:
        """The text of the file ``path``.

        Raises:
            RemoteError: the host holds no such file.
        """
        self.calls.append(Call(f"read {path}", purpose))
        if path not in self.files:
            raise RemoteError(f"{self.name}: {purpose} failed (exit 1):\ncat: {path}: No such file or directory")
        return self.files[path]

    def close(self) -> None:
        """Count the close (a fake has no connection)."""
        self.closed += 1
