"""A campaign opened for running: its parameters, its host connections and its results store.

The :class:`Workbench` is what every phase and engine works with: :func:`flashpoc.campaign.session.open_campaign`
opens it (with the campaign's lock), the engines measure through it (:mod:`flashpoc.engines.loop`),
keeping what is their own between points in :attr:`Workbench.engine_state`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from flashpoc.core.store import CampaignStore
from flashpoc.hosts import host as hostlib
from flashpoc.params import Campaign, HostParams


@dataclass
class Workbench:
    """A campaign opened for running: parameters, host connections and its results store, and
    what :func:`open_campaign` opened (its lock), released by :meth:`close`."""

    cfg: Campaign
    store: CampaignStore
    hosts: dict[str, Any] = field(default_factory=dict)
    engine_versions: dict[str, str] = field(default_factory=dict)
    lock: Any = None
    engine_state: dict[str, Any] = field(default_factory=dict)  # the engine's own, between points (fio: its servers)
    opened: ExitStack = field(default_factory=ExitStack, repr=False)  # what open_campaign opened: the lock
    #: the campaign's engine, asked of the registry once here (:attr:`flashpoc.params.Campaign.engine_object`)
    #: and handed to every phase and helper that runs the campaign
    engine: Any = None
    #: steps run at :meth:`close` once the engine has stopped and while the connections are open
    #: (the record of what the phase left on the targets, :mod:`flashpoc.campaign.written`)
    after_engine: list[Callable[[], None]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if self.engine is None:
            self.engine = self.cfg.engine_object

    def host(self, params: HostParams):
        """The (cached) connection to ``params``."""
        if params.name not in self.hosts:
            self.hosts[params.name] = hostlib.connect(params)
        return self.hosts[params.name]

    def close(self) -> None:
        """Close the campaign's engine (:meth:`flashpoc.engines.base.Engine.close`: an engine stops
        what it keeps running, in its :attr:`engine_state`), close every host connection and release the campaign: each step runs even when
        one before it failed (a host that cannot be connected, a connection that fails to close),
        and the campaign is released last, whatever failed. The :attr:`after_engine` steps run between
        the engine's close and the connections'."""
        self.lock = None
        with self.opened as closing:  # what open_campaign opened (the lock): released last
            closing.callback(self._close_hosts)
            for step in reversed(self.after_engine):
                closing.callback(step)
            closing.callback(self.engine.close, self)  # first: it may use the connections

    def _close_hosts(self) -> None:
        """Close every host connection, each even when closing another fails."""
        hosts = list(self.hosts.values())
        self.hosts.clear()
        with ExitStack() as closing:
            for host in reversed(hosts):  # callbacks run last in, first out: closed in order
                closing.callback(host.close)

    def __enter__(self) -> Workbench:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
