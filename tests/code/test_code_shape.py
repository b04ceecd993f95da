"""The shape of the library's code (issues 18 and 31): no function over about 60 lines without a reason in
its docstring, no module over 600 lines, and a parser of one big format no more than 1,000."""

from __future__ import annotations

import ast
from pathlib import Path

import flashpoc

LIB = Path(flashpoc.__file__).resolve().parent
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 600
MAX_PARSER_LINES = 1000
REASON = "Long because"
"""A function over :data:`MAX_FUNCTION_LINES` says why in its docstring, in a sentence starting so."""

BIG_FORMAT_PARSERS = {"engines/fio/parse.py"}
"""Modules allowed over :data:`MAX_MODULE_LINES`, up to :data:`MAX_PARSER_LINES`: each is the parser of one big
format that splitting would scatter (fio's JSON output: its jobs, clients, latency bins and histograms)."""


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


def test_no_module_is_over_600_lines_nor_a_parser_of_a_big_format_over_1000():
    offenders = []
    for module, path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        limit = MAX_PARSER_LINES if module in BIG_FORMAT_PARSERS else MAX_MODULE_LINES
        if lines > limit:
            offenders.append(f"{module} ({lines} lines, at most {limit})")
    assert not offenders, "modules over their limit: split them into a package by concern:\n" + "\n".join(offenders)


def test_no_engine_name_is_a_value_outside_the_engine_folders():
    """Issue 31: outside ``engines/`` and ``jobs/`` no code names an engine as a value (a string equal
    to a registered engine's name: a branch on it, a default, a dict key); words that name one in a
    text are the engines' to supply. The registered engines are found as the registry finds them."""
    from flashpoc.core.registry import engine_names

    names = set(engine_names())
    assert {"fio", "vdbench", "slob", "hammerdb", "sqlscript"} <= names  # the check looks for these at least
    found = []
    for module, path in _modules():
        if module.split("/")[0] in ("engines", "jobs"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower() in names:
                found.append(f"{module}:{node.lineno} {node.value!r}")
    assert found == []


ROUNDING_ALLOWED = {
    "core/tables.py": "the tables' formatters: a number becomes text there, rounded once",
}
"""Modules that may round a number to decimals, and why: everywhere else a figure is kept as computed
(:mod:`flashpoc.core.numbers`), so that it is rounded once, where it is printed."""


def _roundings(path: Path, root: Path = LIB) -> list[str]:
    """``file:line`` of each rounding to decimals in ``path``: ``round(x, n)`` (``n`` given) and the
    ``.round(n)`` of a frame, series or array (``.round()`` to whole numbers, as ``round(x)``, is a count)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        decimals = len(node.args) > 1 or any(k.arg in ("ndigits", "decimals") for k in node.keywords)
        named = isinstance(node.func, ast.Name) and node.func.id == "round"
        method = isinstance(node.func, ast.Attribute) and node.func.attr in ("round", "around")
        if (named and decimals) or (method and (node.args or node.keywords)):
            found.append(f"{path.relative_to(root).as_posix()}:{node.lineno}")
    return found


def test_no_figure_is_rounded_to_decimals_but_where_it_is_printed():
    """A figure rounded where it is computed and again where it is printed is rounded twice: a SNIA
    slope of 676.5505 IOPS per round was stored as 676.55 and printed "+676.5"."""
    offenders = [line for module, path in _modules() if module not in ROUNDING_ALLOWED for line in _roundings(path)]
    assert not offenders, ("keep these figures as computed and round them where they are printed "
                           "(flashpoc.core.tables; flashpoc.core.numbers.tidy drops binary noise only):\n" + "\n".join(offenders))


def test_the_rounding_check_finds_each_kind(tmp_path):
    (tmp_path / "m.py").write_text("a = round(x, 2)\nb = round(x)\nc = f.round(3)\nd = f.round()\ne = np.round(x, decimals=1)\n"
                                   "g = round(x, ndigits=1)\n")
    assert _roundings(tmp_path / "m.py", tmp_path) == ["m.py:1", "m.py:3", "m.py:5", "m.py:6"]
