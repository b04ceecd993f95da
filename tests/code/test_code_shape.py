"""The shape of the library's code (issue 18): no function over about 60 lines without a reason in
its docstring, no module over 600 lines but the parsers of big formats."""

from __future__ import annotations

import ast
from pathlib import Path

import flashpoc

LIB = Path(flashpoc.__file__).resolve().parent
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 600
REASON = "Long because"
"""A function over :data:`MAX_FUNCTION_LINES` says why in its docstring, in a sentence starting so."""

BIG_FORMAT_PARSERS = {"engines/fio/parse.py", "oracle/awr.py"}
"""Modules allowed over :data:`MAX_MODULE_LINES` for good: each is the parser of one big format."""


def _modules() -> list[tuple[str, Path]]:
    return [(path.relative_to(LIB).as_posix(), path) for path in sorted(LIB.rglob("*.py"))]


def _long_functions(module: str, path: Path) -> list[str]:
    """``file:line name (N lines)`` for each function of ``path`` over the limit with no reason."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_FUNCTION_LINES and REASON not in (ast.get_docstring(node) or ""):
                found.append(f"{module}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_over_60_lines_without_a_reason_in_its_docstring():
    offenders = [line for module, path in _modules() for line in _long_functions(module, path)]
    assert not offenders, (f"functions over {MAX_FUNCTION_LINES} lines: split them into well-named helpers, "
                           f"or say why in the docstring ({REASON!r} ...):\n" + "\n".join(offenders))


def test_no_module_is_over_600_lines_but_the_parsers_of_big_formats():
    offenders = []
    for module, path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES and module not in BIG_FORMAT_PARSERS:
            offenders.append(f"{module} ({lines} lines)")
    assert not offenders, f"modules over {MAX_MODULE_LINES} lines: split them into a package:\n" + "\n".join(offenders)
