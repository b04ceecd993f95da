"""The modules split out of long ones (issues 18 and 31): each imports alone, and the old paths still work."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

#: the packages that were one long module each, and the modules they hold now
SPLIT = {"engines.vdbench.plan": ("checks", "rd", "parmfile", "hosts"),
         "engines.vdbench.measure": ("output", "fill"),
         "jobs.sqlscript.plan": ("statements", "commands", "lexer", "parser"),
         "oracle.awr_metrics": ("scopes", "events", "histograms"),
         "oracle.awr": ("reader", "instance", "rac"),
         "oracle.reportparse": ("values", "tables", "sections", "events", "iostats"),
         "engines.vdbench.parse": ("keys", "text", "files", "tables", "histogram", "crosscheck", "rows"),
         "campaign.precondition": ("fills", "rounds", "status"),
         "analysis": ("point", "fit", "saturation", "curve", "adaptive", "steady", "bounds"),
         "analysis.compare": ("table", "words"),
         "oracle.db": ("settings", "listener", "queries", "sessions"),
         "present.progress": ("texts", "closing"),
         "campaign.environment": ("sections",)}


@pytest.mark.parametrize("name", [f"{package}.{module}" for package, modules in SPLIT.items() for module in modules])
def test_each_split_module_imports_alone(name, import_server):
    """No import cycle: each module of a split package imports first (tests/fresh_import.py)."""
    assert import_server.error(f"flashpoc.{name}") == ""


def defined_names(path: Path) -> list[str]:
    """The names a module's own top-level statements define (not those it imports)."""
    names = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return names


@pytest.mark.parametrize("package", list(SPLIT))
def test_the_package_gathers_its_modules_names(package):
    """The package re-exports every public name its modules define (the old module's names, no
    copies); a private name is the module's own (issue 31: nothing private is exported, and a test
    imports it from where it lives)."""
    whole = importlib.import_module(f"flashpoc.{package}")
    for module in SPLIT[package]:
        part = importlib.import_module(f"flashpoc.{package}.{module}")
        for name in defined_names(Path(part.__file__)):
            if not name.startswith("_"):
                assert getattr(whole, name) is getattr(part, name), f"{package}.{name}"
