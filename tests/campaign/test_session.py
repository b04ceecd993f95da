"""A campaign opened for running (flashpoc.campaign.session) and the phase modules split out of phases.py."""

from __future__ import annotations

import fcntl
import os

import pytest

from conftest import quick_campaign
from flashpoc import phases
from flashpoc.campaign import session
from flashpoc.params import campaign_from_dict
from flashpoc.core.store import LOCK_FILE, StoreError
from flashpoc.engines.fio.settings import SERVERS

PHASE_MODULES = ["campaign.session", "campaign.probe", "campaign.sweep", "campaign.results", "present.reporting", "phases"]
#: The modules of the packages that were one long module each (params, chart, document, summary, cli).
PACKAGE_MODULES = [*(f"params.{m}" for m in ("common", "models", "settings", "campaign", "reader")),
                   *(f"present.chart.{m}" for m in ("theme", "encodings", "sweep", "oracle", "detail")),
                   *(f"present.document.{m}" for m in ("base", "front", "back")),
                   *(f"present.summary.{m}" for m in ("frames", "display")),
                   *(f"cli.{m}" for m in ("notebooks", "commands"))]


def held(root) -> bool:
    """True when some open file of this or another process holds the campaign's lock (flock)."""
    fd = os.open(root / LOCK_FILE, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_a_failure_while_closing_still_releases_the_campaign(tmp_path):
    """Closing stops the fio servers on every host, connecting the hosts it has no connection to;
    when one cannot be connected (its known_hosts is a directory), the error is raised and the
    campaign is still released: another process may run it (a second open succeeds)."""
    hosts = [{"name": "local", "address": "localhost", "workdir": str(tmp_path / "work")},
             {"name": "broken", "address": "127.0.0.2", "known_hosts": str(tmp_path), "workdir": "/tmp/fp"}]
    cfg = campaign_from_dict(quick_campaign(tmp_path, hosts=hosts))
    root = tmp_path / "results" / "quick"
    wb = session.open_campaign(cfg)
    assert held(root)
    wb.host(cfg.hosts[0])
    wb.engine_state[SERVERS] = True  # as after starting them: close stops them
    with pytest.raises(IsADirectoryError):
        wb.close()
    assert not held(root) and wb.hosts == {}
    with phases.open_campaign(cfg) as again:
        assert held(root) and again.store.root == root
    assert not held(root)


def test_a_failure_while_opening_leaves_nothing_held(tmp_path):
    """A campaign whose results directory holds another format's results is refused, and nothing
    stays held: it opens once that is fixed."""
    cfg = campaign_from_dict(quick_campaign(tmp_path))
    root = tmp_path / "results" / "quick"
    root.mkdir(parents=True)
    (root / "manifest.json").write_text('{"format_version": 999}')
    with pytest.raises(StoreError, match="format version 999"):
        session.open_campaign(cfg)
    (root / "manifest.json").unlink()
    with session.open_campaign(cfg):
        assert held(root)
    assert not held(root)


@pytest.mark.parametrize("name", PHASE_MODULES + PACKAGE_MODULES)
def test_each_phase_module_imports_alone(name, import_server):
    """No import cycle: each phase module, and each module of a split package, imports first
    (tests/fresh_import.py)."""
    assert import_server.error(f"flashpoc.{name}") == ""


def test_phases_gathers_the_phase_modules_names():
    """phases re-exports each name from the module that defines it (no copies)."""
    import importlib

    for name in phases.__all__:
        value = getattr(phases, name)
        home = getattr(value, "__module__", None)
        if home and home.startswith("flashpoc."):
            assert getattr(importlib.import_module(home), name) is value
