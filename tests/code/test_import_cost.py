"""What importing flashpoc costs each process that runs it (every notebook kernel of a run)."""

import subprocess
import sys

import pytest

pytest.importorskip("rfc3987_syntax")


def test_altair_after_flashpoc_does_not_compile_the_iri_grammar_and_iri_checks_stay():
    """jsonschema (through altair and nbformat) imports rfc3987_syntax, which compiles its IRI grammar
    on import (seconds of CPU): after ``import flashpoc`` it is compiled only when an IRI is checked,
    and jsonschema's ``iri`` format check still tells a valid IRI from an invalid one."""
    code = """
import sys
import flashpoc, altair, jsonschema
print("lark" in sys.modules)
from jsonschema import Draft202012Validator as V
checker = V({"format": "iri"}, format_checker=V.FORMAT_CHECKER)
print(checker.is_valid("https://example.com/a?b=c#d"), checker.is_valid("no scheme here"))
import rfc3987_syntax
print(type(rfc3987_syntax).__name__, rfc3987_syntax.is_valid_syntax("iri_reference", "../a b"))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True", "False", "module", "False"]
