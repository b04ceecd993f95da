"""The modules split out of long ones (issue 18): each imports alone, and the old paths still work."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: the packages that were one long module each, and the modules they hold now
SPLIT = {"engines.vdbench.plan": ("checks", "rd", "parmfile", "hosts")}


@pytest.mark.parametrize("name", [f"{package}.{module}" for package, modules in SPLIT.items() for module in modules])
def test_each_split_module_imports_alone(name):
    """No import cycle: each module of a split package imports first in a fresh interpreter."""
    subprocess.run([sys.executable, "-c", f"import flashpoc.{name}"], check=True, capture_output=True, text=True)


@pytest.mark.parametrize("package", list(SPLIT))
def test_the_package_gathers_its_modules_names(package):
    """The package re-exports every name its modules define (the old module's names, no copies)."""
    import importlib

    whole = importlib.import_module(f"flashpoc.{package}")
    for module in SPLIT[package]:
        part = importlib.import_module(f"flashpoc.{package}.{module}")
        own = [n for n, v in vars(part).items()
               if not n.startswith("__") and getattr(v, "__module__", part.__name__) == part.__name__
               and not isinstance(v, type(sys))]
        for name in own:
            assert getattr(whole, name) is getattr(part, name), f"{package}.{name}"
