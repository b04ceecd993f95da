"""Several hosts at once, as fabric's ``Group``: every failure named, not only the first.

``Group(hosts).map(fn, purpose=...)`` calls ``fn(host)`` for every host concurrently (at most
:data:`MAX_PARALLEL_HOSTS` at a time) and returns a :class:`GroupResult`: what each host gave, and
the exception of each host that failed, both in the hosts' order (the parameters' order).
:meth:`GroupResult.raise_failed` (or ``strict=True``) raises one :class:`GroupError` whose message
names every failed host with its reason. ``Group.run`` runs one shell command everywhere.

Each caller says what a failure means at its site: a point fails when any host fails (strict), the
check turns an unreachable host into a row (its callable returns the row), stopping the fio servers
ignores the hosts that do not answer (the result is not raised).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, TypeVar

from flashpoc.core.errors import FlashpocError, RemoteError
from flashpoc.hosts.host import CommandResult, end_running_commands

MAX_PARALLEL_HOSTS = 32
"""Hosts served at the same time by one group call (threads; each mostly waits on its host)."""

T = TypeVar("T")


def _reason(name: str, error: BaseException) -> str:
    """The error's text naming the host once: flashpoc's errors already start ``<host>: ``, other
    exceptions get the host and their type (``db1: ValueError: ...``)."""
    text = str(error) if isinstance(error, FlashpocError) else f"{type(error).__name__}: {error}".rstrip(": ")
    text = text or type(error).__name__
    return text if text.startswith(f"{name}:") else f"{name}: {text}"


class GroupError(RemoteError):
    """One or more hosts of a group failed; the message names every one with its reason.

    Attributes:
        result: the :class:`GroupResult`, with what the other hosts gave.
        files: the failed hosts' runs' files together (:attr:`FlashpocError.files`; each host's
            named after it by its engine: ``h1.job.fio``).
    """

    def __init__(self, result: GroupResult):
        self.result = result
        reasons = [_reason(name, error) for name, error in result.failed.items()]
        if len(reasons) == 1:
            message = reasons[0]
        else:
            what = f"{result.purpose} failed" if result.purpose else "failed"
            items = ["- " + reason.replace("\n", "\n  ") for reason in reasons]
            message = (f"{what} on {len(reasons)} of {len(result.names)} hosts ({', '.join(result.failed)}):\n"
                       + "\n".join(items))
        failed = [e for e in result.failed.values() if isinstance(e, FlashpocError)]
        super().__init__(message, files={name: text for error in failed for name, text in error.files.items()},
                         kept_in=failed[0].kept_in if failed else "failed")


class GroupResult(Generic[T]):
    """What a group call gave on each host, in the hosts' order.

    ``result[name]`` is a host's value (or raises its exception); iterating gives the values of
    the hosts that succeeded, in order. ``succeeded`` and ``failed`` map host names to values and to
    exceptions.
    """

    def __init__(self, names: Iterable[str], outcomes: dict[str, tuple[bool, Any]], purpose: str = ""):
        self.names = tuple(names)
        self.purpose = purpose
        self.succeeded: dict[str, T] = {n: outcomes[n][1] for n in self.names if outcomes[n][0]}
        self.failed: dict[str, Exception] = {n: outcomes[n][1] for n in self.names if not outcomes[n][0]}

    @property
    def ok(self) -> bool:
        """True when no host failed."""
        return not self.failed

    def __getitem__(self, name: str) -> T:
        if name in self.failed:
            raise self.failed[name]
        return self.succeeded[name]

    def __iter__(self) -> Iterator[T]:
        return iter(self.succeeded.values())

    def __len__(self) -> int:
        return len(self.names)

    def raise_failed(self) -> GroupResult[T]:
        """Raise :class:`GroupError` when any host failed; else return this result.

        Raises:
            GroupError: naming every failed host and its reason.
        """
        if self.failed:
            raise GroupError(self)
        return self

    def __repr__(self) -> str:
        return f"<GroupResult {self.purpose!r}: {len(self.succeeded)} ok, failed: {list(self.failed)}>"


class Group:
    """Hosts (or anything with a ``name``, such as their parameters) worked on together.

    Args:
        hosts: the members, in the order results are given back.
        max_workers: at most this many members served at once.
        strict: every call raises :class:`GroupError` when any member failed.
    """

    def __init__(self, hosts: Iterable[Any], *, max_workers: int = MAX_PARALLEL_HOSTS, strict: bool = False):
        self.hosts = list(hosts)
        names = [h.name for h in self.hosts]
        if len(set(names)) != len(names):
            raise ValueError(f"a group's hosts need distinct names, got {names}")
        self.max_workers = max(1, max_workers)
        self.strict = strict

    @property
    def names(self) -> list[str]:
        """The members' names, in order."""
        return [h.name for h in self.hosts]

    def map(self, fn: Callable[[Any], T], *, purpose: str = "", strict: bool | None = None) -> GroupResult[T]:
        """Call ``fn(host)`` for every member at once and collect what each gave or raised.

        Args:
            fn: called once per member, in a worker thread (directly when there is one member).
            purpose: a few words for the error message ("start fio --server").
            strict: raise :class:`GroupError` when any member failed (default: the group's).

        Raises:
            GroupError: with ``strict``, naming every member that failed.
        """
        def outcome(host: Any) -> tuple[bool, Any]:
            try:
                return True, fn(host)
            except Exception as error:  # noqa: BLE001 - one host's failure must not hide the others'
                return False, error

        if len(self.hosts) <= 1:
            outcomes = [outcome(h) for h in self.hosts]
        else:
            workers = min(len(self.hosts), self.max_workers)
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="flashpoc-group") as pool:
                try:
                    outcomes = list(pool.map(outcome, self.hosts))
                except KeyboardInterrupt:  # Ctrl-C reaches this thread only: the hosts' commands end here
                    end_running_commands()
                    raise
        result: GroupResult[T] = GroupResult(self.names, dict(zip(self.names, outcomes)), purpose)
        if self.strict if strict is None else strict:
            result.raise_failed()
        return result

    def run(self, command: str, *, purpose: str, strict: bool | None = None,
            **kwargs: Any) -> GroupResult[CommandResult]:
        """Run one shell ``command`` on every member (``host.run(command, purpose=..., **kwargs)``)."""
        return self.map(lambda host: host.run(command, purpose=purpose, **kwargs), purpose=purpose, strict=strict)

    def close(self) -> None:
        """Close every member's connection."""
        for host in self.hosts:
            host.close()

    def __enter__(self) -> Group:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
