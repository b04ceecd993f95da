"""Every regular expression of the modules that read parameters is compiled with ``re.ASCII`` (issue 28):
without it ``\\d`` takes '４' (fullwidth) or '٤' (Arabic-Indic) for a digit and ``re.IGNORECASE`` the
Kelvin sign for a k, so ``bs: ４k`` validated and reached fio's job file."""

from __future__ import annotations

import ast
from pathlib import Path

import flashpoc

LIB = Path(flashpoc.__file__).resolve().parent
#: the modules that read the parameters: the schema and the engines' settings and plans
MODULES = sorted([*LIB.glob("params/*.py"), *LIB.glob("engines/*/settings.py"), *LIB.glob("engines/*/plan.py"),
                  LIB / "engines" / "vdbench" / "plan" / "checks.py"])
RE_FUNCTIONS = {"compile", "match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer"}


def _unflagged(path: Path, root: Path = LIB) -> list[str]:
    """``file:line`` of each ``re.<function>(...)`` call in ``path`` without ``re.ASCII`` (or ``re.A``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RE_FUNCTIONS
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"):
            flags = [n.attr for arg in [*node.args[1:], *(k.value for k in node.keywords)] for n in ast.walk(arg)
                     if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "re"]
            if not {"ASCII", "A"} & set(flags):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_the_modules_that_read_parameters_are_the_ones_checked():
    names = {p.relative_to(LIB).as_posix() for p in MODULES}
    assert {"params/common.py", "params/reader.py", "params/models.py", "engines/fio/settings.py",
            "engines/slob/plan.py", "engines/hammerdb/settings.py", "engines/vdbench/settings.py"} <= names


def test_every_parameter_pattern_is_compiled_with_re_ascii():
    offenders = [line for path in MODULES for line in _unflagged(path)]
    assert not offenders, "compile these with re.ASCII (a parameter takes the digits 0-9 only):\n" + "\n".join(offenders)


def test_the_check_finds_a_pattern_without_it(tmp_path):
    (tmp_path / "m.py").write_text('import re\nA = re.compile(r"\\d+", re.I)\nB = re.match(r"\\d", "1", re.ASCII)\n')
    assert _unflagged(tmp_path / "m.py", tmp_path) == ["m.py:2"]
