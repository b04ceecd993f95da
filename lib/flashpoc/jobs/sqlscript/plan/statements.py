"""A script's statements and skipped commands, as :func:`scan_sql_script` returns them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Literal
from flashpoc.core.errors import ParameterError

from flashpoc.jobs.sqlscript.plan.lexer import _Lexer, _WORD, session_name


StatementKind = Literal["sql", "plsql"]


@dataclass(frozen=True)
class Statement:
    """One statement of a script, ready for ``cursor.execute(statement.text)``.

    Attributes:
        text: the statement text: SQL without its trailing ``;``, PL/SQL ending in ``END;``.
        kind: ``"sql"`` or ``"plsql"``.
        line: 1-based line of the script where the statement's first keyword is.
        define: the substitution character in force for the statement (``&``; None after
            ``SET DEFINE OFF``): :meth:`for_session` replaces ``&session`` and
            ``&session_name`` with it.
    """

    text: str
    kind: StatementKind
    line: int
    define: str | None = field(default="&", compare=False)

    def __post_init__(self) -> None:
        if self.kind not in ("sql", "plsql"):
            raise ParameterError(f"Statement.kind must be 'sql' or 'plsql', got {self.kind!r}")
        if not self.text.strip():
            raise ParameterError("Statement.text is empty")
        if self.line < 1:
            raise ParameterError(f"Statement.line must be >= 1, got {self.line}")

    def for_session(self, number: int) -> Statement:
        """The statement as session ``number`` (1-based) runs it: ``&session`` replaced by the
        number, ``&session_name`` by :func:`session_name` (``&&`` and a ``.`` ending the name
        as in SQL*Plus, any case; in literals and comments too, as SQL*Plus substitutes them)."""
        if self.define is None:
            return self
        pattern = re.compile(re.escape(self.define) + "{1,2}(session_name|session)(?![A-Za-z0-9_#$])[.]?",
                             re.IGNORECASE)
        values = {"session": str(number), "session_name": session_name(number)}
        text = pattern.sub(lambda m: values[m.group(1).lower()], self.text)
        return self if text == self.text else replace(self, text=text)

    @property
    def verb(self) -> str:
        """The statement's first keyword in upper case (``INSERT``, ``BEGIN``, ``CREATE``)."""
        lexer = _Lexer()
        for lineno, line in enumerate(self.text.split("\n"), start=1):
            for tok in lexer.scan(line, lineno, None, "statement"):
                if tok.kind == _WORD:
                    return tok.text.upper()
        return ""


@dataclass(frozen=True)
class SkippedCommand:
    """A SQL*Plus command of the script that flashpoc does not run.

    Attributes:
        line: 1-based line of the command in the script.
        command: the command's full name in upper case (``SET``, ``PROMPT``, ``EXIT``).
        text: the command line, at most its first 60 characters.
    """

    line: int
    command: str
    text: str


@dataclass(frozen=True)
class SqlScript:
    """What :func:`scan_sql_script` found in a script.

    Attributes:
        statements: the statements to run, in script order (at least one).
        skipped: the SQL*Plus commands dropped, in script order.
    """

    statements: tuple[Statement, ...]
    skipped: tuple[SkippedCommand, ...]
