"""SQL*Plus commands (those dropped, those that end the script, those refused) and PL/SQL block detection."""

from __future__ import annotations

import re
from collections.abc import Sequence

from flashpoc.jobs.sqlscript.plan.statements import StatementKind


# --------------------------------------------------------------------------------------
# SQL*Plus commands

_DROP = "drop"
_EXIT = "exit"
_EXEC = "exec"
_REM = "rem"
_SET = "set"
_INCLUDE = "include"
_CONNECT = "connect"
_HOST = "host"
_SUBST = "substitution"
_BIND = "bind"
_BUFFER = "buffer"
_ADMIN = "admin"


# (full name, shortest abbreviation SQL*Plus accepts, action)
_COMMANDS: tuple[tuple[str, int, str], ...] = (
    ("SET", 3, _SET),
    ("PROMPT", 3, _DROP),
    ("SPOOL", 3, _DROP),
    ("EXIT", 4, _EXIT),
    ("QUIT", 4, _EXIT),
    ("WHENEVER", 8, _DROP),
    ("SHOW", 3, _DROP),
    ("TIMING", 4, _DROP),
    ("COLUMN", 3, _DROP),
    ("TTITLE", 3, _DROP),
    ("BTITLE", 3, _DROP),
    ("REPHEADER", 4, _DROP),
    ("REPFOOTER", 4, _DROP),
    ("BREAK", 3, _DROP),
    ("COMPUTE", 4, _DROP),
    ("CLEAR", 2, _DROP),
    ("PAUSE", 3, _DROP),
    ("DESCRIBE", 4, _DROP),
    ("HELP", 4, _DROP),
    ("REMARK", 3, _REM),
    ("EXECUTE", 4, _EXEC),
    ("START", 3, _INCLUDE),
    ("CONNECT", 4, _CONNECT),
    ("DISCONNECT", 4, _CONNECT),
    ("PASSWORD", 5, _CONNECT),
    ("HOST", 2, _HOST),
    ("DEFINE", 3, _SUBST),
    ("UNDEFINE", 5, _SUBST),
    ("ACCEPT", 3, _SUBST),
    ("VARIABLE", 3, _BIND),
    ("PRINT", 3, _BIND),
    ("RUN", 1, _BUFFER),
    ("LIST", 1, _BUFFER),
    ("INPUT", 1, _BUFFER),
    ("APPEND", 1, _BUFFER),
    ("CHANGE", 1, _BUFFER),
    ("DEL", 3, _BUFFER),
    ("EDIT", 2, _BUFFER),
    ("GET", 3, _BUFFER),
    ("SAVE", 3, _BUFFER),
    ("STORE", 5, _BUFFER),
    ("STARTUP", 7, _ADMIN),
    ("SHUTDOWN", 8, _ADMIN),
    ("RECOVER", 7, _ADMIN),
    ("ARCHIVE", 7, _ADMIN),
    ("COPY", 4, _ADMIN),
    ("XQUERY", 6, _ADMIN),
)


DROPPED_COMMANDS: tuple[str, ...] = tuple(
    name for name, _, action in _COMMANDS if action in (_DROP, _SET, _EXIT)
)
"""SQL*Plus commands flashpoc drops (``EXIT``/``QUIT`` also end the script)."""


_REFUSAL: dict[str, tuple[str, str]] = {
    _INCLUDE: ("runs another script", "inline the included script (paste its statements here)"),
    _CONNECT: ("changes the connection",
               "remove the line (flashpoc opens the sessions itself, as the user of the run "
               "parameters)"),
    _HOST: ("runs an OS command", "remove the line (flashpoc runs SQL only)"),
    _SUBST: ("uses substitution variables",
             "remove the line and replace each &var by its value"),
    _BIND: ("uses bind variables",
            "remove the line and replace each :var by a literal or a PL/SQL local variable"),
    _BUFFER: ("edits or re-runs the SQL*Plus buffer or a file",
              "remove the line and write each statement out in full"),
    _ADMIN: ("is an administration command", "remove the line"),
}


_SQL_SET_WORDS = frozenset({"TRANSACTION", "ROLE", "CONSTRAINT", "CONSTRAINTS"})
"""``SET TRANSACTION|ROLE|CONSTRAINT[S]`` are SQL statements, not SQL*Plus ``SET``."""


_CMD_WORD_RE = re.compile(r"([A-Za-z]+)(?=$|[\s;])")


def _lookup_command(stripped: str) -> tuple[str, str, int] | None:
    """Return (full name, action, end of the command word) if a stripped line is a command."""
    m = _CMD_WORD_RE.match(stripped)
    if m is None:
        return None
    word = m.group(1).upper()
    for name, min_len, action in _COMMANDS:
        if len(word) >= min_len and name.startswith(word):
            rest = stripped[m.end():].split()
            if action == _SET and rest and rest[0].upper() in _SQL_SET_WORDS:
                return None  # SET TRANSACTION / ROLE / CONSTRAINT[S] is SQL
            return name, action, m.end()
    return None


def _would_run(stripped: str) -> bool:
    """True if a stripped line, read on its own between statements, holds something to run."""
    if not stripped or stripped.startswith(("--", "/*")):
        return False
    found = _lookup_command(stripped)
    return found is None or found[1] not in (_DROP, _SET, _REM)


# --------------------------------------------------------------------------------------
# PL/SQL block detection

_BLOCK_STARTS = frozenset({"DECLARE", "BEGIN"})
_CREATE_OPTIONAL = frozenset({"EDITIONABLE", "NONEDITIONABLE", "NOFORCE"})
_CREATE_BLOCKS = frozenset({"FUNCTION", "PROCEDURE", "PACKAGE", "TRIGGER", "TYPE",
                            "LIBRARY", "JAVA"})


def _classify(words: Sequence[str]) -> tuple[StatementKind, bool]:
    """Return (kind, ends only at '/') from a statement's first words (upper case)."""
    if not words:
        return "sql", False
    if words[0] in _BLOCK_STARTS:
        return "plsql", True
    if words[0] == "WITH":
        return "sql", len(words) > 1 and words[1] in ("FUNCTION", "PROCEDURE")
    if words[0] != "CREATE":
        return "sql", False
    i = 1
    if words[i:i + 2] == ["OR", "REPLACE"]:
        i += 2
    if words[i:i + 1] == ["AND"] and words[i + 1:i + 2] in (["RESOLVE"], ["COMPILE"]):
        i += 2
    while i < len(words) and words[i] in _CREATE_OPTIONAL:
        i += 1
    if i < len(words) and words[i] in _CREATE_BLOCKS:
        return "plsql", True
    return "sql", False
