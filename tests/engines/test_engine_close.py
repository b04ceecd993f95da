"""The engine's close hook: the session closes the campaign's engine when the campaign closes
(Engine.close; fio stops its servers there), and whatever the engine's close does, the host
connections are closed and the campaign is released."""

from __future__ import annotations

import pytest

import example_engine
from flashpoc.core import registry
from flashpoc.campaign import session
from flashpoc.engines.base import Engine
from flashpoc.params import campaign_from_dict
from test_session import held


class ClosingEngine(example_engine.DdEngine):
    """The example engine, recording what it finds when the campaign closes it (and failing when asked)."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.closed: list[tuple] = []

    def close(self, wb) -> None:
        self.closed.append((wb, held(wb.store.root), sorted(wb.hosts)))
        if self.fail:
            raise RuntimeError("the engine failed to close")


def campaign(tmp_path, monkeypatch, engine: Engine):
    """A small campaign of ``engine``, registered as ``ddread`` for the test."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register("ddread", engine)
    data = tmp_path / "data.img"
    data.write_bytes(bytes(1024 * 1024))
    return campaign_from_dict({
        "campaign": "closing", "engine": {"ddread": {"blocks": 1}},
        "hosts": [{"name": "local", "address": "localhost", "workdir": str(tmp_path / "work")}],
        "targets": [{"name": "data", "path": str(data), "size": "1m"}],
        "workloads": [{"name": "ddr", "rw": "read", "bs": "4k"}],
        "precondition": {"filled_elsewhere": ["data"]},
        "results_dir": str(tmp_path / "results"),
    })


def test_the_session_closes_the_campaign_s_engine_first(tmp_path, monkeypatch):
    """Closing the campaign closes its engine once, with the workbench, while the campaign is still
    held and its host connections still open; then the connections close and the campaign is released."""
    engine = ClosingEngine()
    cfg = campaign(tmp_path, monkeypatch, engine)
    wb = session.open_campaign(cfg)
    wb.host(cfg.hosts[0])
    wb.close()
    assert engine.closed == [(wb, True, ["local"])]
    assert wb.hosts == {} and not held(wb.store.root)


def test_an_engine_that_fails_to_close_still_leaves_the_campaign_released(tmp_path, monkeypatch):
    """The engine's error is raised, after the host connections were closed and the campaign released."""
    engine = ClosingEngine(fail=True)
    cfg = campaign(tmp_path, monkeypatch, engine)
    with pytest.raises(RuntimeError, match="the engine failed to close"):
        with session.open_campaign(cfg) as wb:
            wb.host(cfg.hosts[0])
    assert len(engine.closed) == 1 and wb.hosts == {} and not held(wb.store.root)
    engine.fail = False
    with session.open_campaign(cfg) as again:  # another run may open it
        assert held(again.store.root)

