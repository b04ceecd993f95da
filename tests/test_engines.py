"""The engine registry (flashpoc.engines): every engine the parameters accept is registered, and
the phases and the check ask the engine rather than compare its name (issue 18)."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from flashpoc import engines
from flashpoc.engines.base import Engine
from flashpoc.params import Campaign

LIB = Path(engines.__file__).resolve().parent.parent
NAME_COMPARISON = re.compile(r"engine *(==|!=|in)")


def test_every_engine_the_parameters_accept_is_registered_under_its_own_name():
    accepted = typing.get_args(Campaign.model_fields["engine"].annotation)
    assert set(accepted) <= set(engines.engine_names())
    for name in accepted:
        engine = engines.get_engine(name)
        assert isinstance(engine, Engine) and engine.name == name
        assert engines.get_engine(name) is engine  # imported once


def test_an_unknown_engine_is_a_key_error_naming_it():
    with pytest.raises(KeyError, match="orion"):
        engines.get_engine("orion")


def test_a_registered_engine_is_found_by_name(monkeypatch):
    class Example(Engine):
        name = "example"

    monkeypatch.setitem(engines._REGISTRY, "example", Example())
    assert engines.get_engine("example").name == "example"
    assert "example" in engines.engine_names()


def test_no_module_outside_the_engines_compares_the_engine_name():
    """Probe, sweep, check, report, cli and parameters ask the engine object (issue 18's grep)."""
    found = [f"{path.relative_to(LIB)}:{n}: {line.strip()}"
             for path in sorted(LIB.rglob("*.py")) if "engines" not in path.relative_to(LIB).parts
             for n, line in enumerate(path.read_text().splitlines(), 1) if NAME_COMPARISON.search(line)]
    assert found == []
