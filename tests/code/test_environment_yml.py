"""environment.yml (the conda environment) holds what pyproject.toml asks for, no more and no less."""

from __future__ import annotations

import tomllib

import yaml
from packaging.requirements import Requirement

from conftest import REPO


def _conda_requirements(environment: dict) -> dict[str, str]:
    """The conda packages of environment.yml, name -> version bounds (its pip block left aside)."""
    found = {}
    for entry in environment["dependencies"]:
        if isinstance(entry, str):
            requirement = Requirement(entry.replace(" ", ""))
            found[requirement.name.lower()] = str(requirement.specifier)
    return found


def test_environment_yml_matches_pyproject_dependencies_and_test_extras():
    """Every dependency and test extra of pyproject.toml, with its bounds, is in environment.yml, the Python
    version too; nothing else is (a package no code uses, as tqdm was, or pytest-xdist missing while
    pyproject.toml's ``--dist`` needs it)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = {Requirement(r).name.lower(): str(Requirement(r).specifier)
              for r in [*project["dependencies"], *project["optional-dependencies"]["test"]]}
    wanted["python"] = project["requires-python"]
    environment = yaml.safe_load((REPO / "environment.yml").read_text())
    found = _conda_requirements(environment)
    found.pop("pip")
    assert found == wanted
    pip = [e for e in environment["dependencies"] if isinstance(e, dict)]
    assert pip == [{"pip": ["-e ."]}]  # flashpoc itself (its dependencies are there from conda above)
