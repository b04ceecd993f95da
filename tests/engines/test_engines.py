"""The engine registry (flashpoc.engines): every engine the parameters accept is registered, and
the phases and the check ask the engine rather than compare its name (issue 18)."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import Field

from flashpoc.core import registry
from flashpoc.engines.base import Engine
from flashpoc.core.errors import ParameterError
from flashpoc.params import PARAMETER_KEYS, Campaign, StrictModel, campaign_from_dict

LIB = Path(registry.__file__).resolve().parent.parent
NAME_COMPARISON = re.compile(r"engine *(==|!=|in)")


def test_every_engine_the_parameters_accept_is_registered_under_its_own_name():
    assert {"fio", "vdbench", "slob", "hammerdb"} <= set(registry.engine_names())
    for name in registry.engine_names():
        settings = registry.engine_settings(name)  # before the engine is imported, as the parameters ask
        engine = registry.get_engine(name)
        assert isinstance(engine, Engine) and engine.name == name
        assert registry.get_engine(name) is engine  # imported once
        assert registry.engine_settings(name) is settings is engine.settings_model


def test_a_new_engine_brings_its_settings_without_a_new_key(monkeypatch):
    """The ``engine:`` block is the registered engine's settings model: a new engine needs no
    top-level key (nor a notebook edit), and its settings' problems name their key."""
    class ExampleSettings(StrictModel):
        speed: int = Field(1, ge=1)

    class Example(Engine):
        name = "example"
        settings_model = ExampleSettings

    monkeypatch.setitem(registry._REGISTRY, "example", Example())
    base = {"campaign": "c", "hosts": [{"name": "h", "address": "localhost"}],
            "targets": [{"name": "t", "path": "/dev/x", "size": "1g", "allow_write": True}]}
    cfg = campaign_from_dict({**base, "engine": {"example": {"speed": 3}}})
    assert cfg.engine == "example" and cfg.settings == ExampleSettings(speed=3)
    assert "example" not in Campaign.model_fields and "example" not in PARAMETER_KEYS
    with pytest.raises(ParameterError, match=r": engine\.example\.speed: Input should be greater than or equal to 1"):
        campaign_from_dict({**base, "engine": {"example": {"speed": 0}}})


def test_an_unknown_engine_is_a_key_error_naming_it():
    with pytest.raises(KeyError, match="orion"):
        registry.get_engine("orion")


def test_a_registered_engine_is_found_by_name(monkeypatch):
    class Example(Engine):
        name = "example"

    monkeypatch.setitem(registry._REGISTRY, "example", Example())
    assert registry.get_engine("example").name == "example"
    assert "example" in registry.engine_names()


def test_no_module_outside_the_engines_compares_the_engine_name():
    """Probe, sweep, check, report, cli and parameters ask the engine object (issue 18's grep)."""
    found = [f"{path.relative_to(LIB)}:{n}: {line.strip()}"
             for path in sorted(LIB.rglob("*.py")) if "engines" not in path.relative_to(LIB).parts
             for n, line in enumerate(path.read_text().splitlines(), 1) if NAME_COMPARISON.search(line)]
    assert found == []


def _imports(path: Path) -> set[str]:
    """The flashpoc modules ``path`` imports, at its top or inside a function."""
    module = "flashpoc." + ".".join(path.relative_to(LIB).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[: len(base) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            found |= {name} | {f"{name}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return {name for name in found if name.startswith("flashpoc")}


def test_the_present_layer_names_no_engine():
    """The report and the other views ask the campaign's engine object (its words, its report_view,
    its jobs' views) and never name an engine: no engine's name as a string, no import of an engine's
    or a job's folder (issue 31: an engine's report is data present renders)."""
    names = set(registry.engine_names())
    folders = {module.rsplit(".", 1)[0] for module in registry._FOUND.values()}
    found = []
    for path in sorted((LIB / "present").rglob("*.py")):
        said = [node.value for node in ast.walk(ast.parse(path.read_text()))
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names]
        imported = [m for m in _imports(path) if any(m == f or m.startswith(f + ".") for f in folders)]
        found += [f"{path.relative_to(LIB)}: {x}" for x in said + imported]
    assert found == []


def test_the_checks_import_each_other_one_way_only():
    """check_oracle and each engine's check use the check's rows; check.py imports none of them
    (it asks the engine object), so there is no import cycle among them."""
    checks = [LIB / "campaign" / "check_oracle.py", *sorted((LIB / "engines").glob("*/check.py"))]
    assert len(checks) >= 4
    of_check = _imports(LIB / "campaign" / "check.py")
    for path in checks:
        name = "flashpoc." + ".".join(path.relative_to(LIB).with_suffix("").parts)
        assert name not in of_check, f"check.py imports {name}"


def test_the_parameters_import_no_io_module_and_no_planner():
    """params imports no host I/O module and no planner; loading a campaign adds only its engine's
    settings and engine object (which imports its measuring code lazily), never a run, measure or
    check module. SLOB's settings validate a slob.conf through SLOB's pure plan."""
    code = ("import sys, flashpoc.params as p\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('flashpoc'))))\n"
            "p.load_campaign(sys.argv[1]).settings\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('flashpoc'))))")
    for name in ("demo-local.yaml", "vdbench-local.yaml", "slob-seed-8020.yaml", "hammerdb-postgres-local.yaml"):
        alone, loaded = subprocess.run([sys.executable, "-c", code, str(LIB.parent.parent / "parameters" / name)],
                                       capture_output=True, text=True, check=True,
                                       cwd=LIB.parent.parent).stdout.splitlines()
        assert [m for m in alone.split() if re.search(r"\.(run|plan)(\.|$)", m)] == []
        assert "flashpoc.params" in loaded and any(m.endswith(".settings") for m in loaded.split())
        io = [m for m in loaded.split() if re.search(r"\.(run|measure|check|check_oracle|phases)(\.|$)", m)]
        assert io == [], f"{name}: loading the parameters imported {io}"


OLD_PATHS = [f"flashpoc.{layer}.{name}" for layer in ("plan", "run", "parse") for name in ("fio", "vdbench", "slob")]
OLD_PATHS += ["flashpoc.plan.sqlscript", "flashpoc.phases_vdbench", "flashpoc.phases_slob", "flashpoc.phases_sql"]


def test_no_module_replaces_itself_in_sys_modules():
    """The engines' old module paths were aliases (``sys.modules[__name__] = moved``); issue 18
    dropped them, and no module under the library stands in for another that way again. The one
    entry the library makes is flashpoc.core.lazy's, of the module it imports, as ``import`` does."""
    found = [f"{path.relative_to(LIB)}:{node.lineno}" for path in sorted(LIB.rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
             for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
             if isinstance(target, ast.Subscript) and ast.unparse(target.value) == "sys.modules"]
    assert found == ["core/lazy.py:22"]
    assert "sys.modules[name] = module" in (LIB / "core" / "lazy.py").read_text().splitlines()[21]


@pytest.mark.parametrize("old", OLD_PATHS)
def test_an_old_engine_module_path_no_longer_imports(old):
    """Imports use flashpoc.engines.<name>.<plan|run|parse|measure>; the old path is not found."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
