"""Split a DBA's SQL*Plus script into statements python-oracledb can run (pure: text in, list out).

A DBA brings the script they would run with ``sqlplus user/pw @load.sql`` (INSERTs and a
COMMIT, a PL/SQL block looping inserts, some DDL); flashpoc runs it in N concurrent
sessions through python-oracledb, whose ``cursor.execute`` takes ONE statement: a SQL
statement without its trailing ``;``, or a PL/SQL block with its text up to ``END;``.
:func:`split_sql_script` cuts the script the way SQL*Plus would:

* A SQL statement ends with ``;`` as the last thing on a line (outside string literals
  and comments; a comment may follow it), or with a line holding only ``/``. The ``;``
  is removed. Two statements on one line (``INSERT ...; COMMIT;``) are refused, as
  SQL*Plus would send them to the server as one statement that fails.
* A PL/SQL block -- starting with ``DECLARE`` or ``BEGIN``, or ``CREATE [OR REPLACE]
  [EDITIONABLE|NONEDITIONABLE] FUNCTION|PROCEDURE|PACKAGE [BODY]|TRIGGER|TYPE [BODY]|
  LIBRARY|JAVA`` -- ends only at a line holding only ``/``; its text keeps the final
  ``END;``. ``WITH FUNCTION|PROCEDURE ...`` queries also end only at ``/`` (kind ``sql``).
* ``--`` and ``/* */`` comments inside a statement are kept (optimizer hints live
  there); comments and blank lines between statements are dropped, so each statement's
  text starts at its first keyword and ends at its last token (``line`` is that keyword's
  line). ``REM``/``REMARK`` lines between statements are dropped.
* String literals ``'...'`` (with ``''``), ``N'...'`` and q-quotes (``q'[...]'``,
  ``q'{...}'``, ``q'(...)'``, ``q'<...>'``, ``q'!...!'``) may hold ``;``, ``--``, ``/*``
  and span lines.
* SQL*Plus commands are recognised only at the start of a statement, on their own line
  (with SQL*Plus abbreviations, e.g. ``PRO``, ``COL``, ``SHO``, and ``-`` at the end of
  the line continuing the command on the next one). Display and session-formatting
  commands are dropped (see :data:`DROPPED_COMMANDS`; :func:`scan_sql_script` lists
  them); ``EXIT``/``QUIT`` ends the script as in SQL*Plus; ``EXEC[UTE] call`` becomes the
  block ``BEGIN call; END;``. Commands that would change what runs -- ``@``/``@@``/
  ``START``, ``CONNECT``/``DISCONNECT``, ``HOST``/``!``/``$``, ``DEFINE``/``UNDEFINE``/
  ``ACCEPT``/``VARIABLE``/``PRINT``, buffer and file commands (``RUN``, ``GET``...),
  ``STARTUP``/``SHUTDOWN``..., ``SET AUTOCOMMIT ON`` and ``SET SQLTERMINATOR``/
  ``BLOCKTERMINATOR``/``CMDSEP`` -- and any ``&var`` substitution variable outside
  literals and comments (after ``SET DEFINE OFF`` no longer; ``SET DEFINE ^`` moves it to
  ``^``) raise :class:`~flashpoc.core.errors.ParameterError` naming the source, the line and
  what to do.
* Two substitution variables are flashpoc's own, so one script runs in N sessions without
  its object names colliding (ORA-00955): ``&session`` (the session's number, 1 to N) and
  ``&session_name`` (``S0001`` ... : :func:`session_name`), e.g. ``CREATE TABLE
  t_&session_name (...)``. They are filled per session before the statement is sent
  (:meth:`Statement.for_session`), with ``&&`` and a ``.`` ending the name as in SQL*Plus,
  in literals and comments too (as SQL*Plus does), but not after ``SET DEFINE OFF``.
* A ``/`` line with no statement before it would make SQL*Plus run the previous
  statement a second time (``COMMIT;`` then ``/``), a ``.`` line ends a statement without
  running it: both are refused. A statement left without terminator at the end of the
  script is refused (SQL*Plus would not run it), as is an unterminated literal or comment.

Differences from SQL*Plus, on purpose: blank lines inside a SQL statement are kept (as
with ``SET SQLBLANKLINES ON``; by default SQL*Plus would silently drop such a statement);
any other ``&`` inside literals and comments is left alone (SQL*Plus would substitute it unless
``SET DEFINE OFF``); dropped commands are not checked for ``&``.

Error messages quote at most the first 60 characters of the offending line, and never the
arguments of ``CONNECT``/``PASSWORD``/``DEFINE``/``ACCEPT`` lines (they may hold a password).
"""

from __future__ import annotations

from collections.abc import Iterable
from flashpoc.core.errors import ParameterError

# Every name keeps its old path (flashpoc.jobs.sqlscript.plan.X): the package re-exports its modules' names.
from flashpoc.jobs.sqlscript.plan.commands import (DROPPED_COMMANDS, _ADMIN, _BIND, _BLOCK_STARTS, _BUFFER, _CMD_WORD_RE, _COMMANDS, _CONNECT,
                       _CREATE_BLOCKS, _CREATE_OPTIONAL, _DROP, _EXEC, _EXIT, _HOST, _INCLUDE, _REFUSAL, _REM, _SET,
                       _SQL_SET_WORDS, _SUBST, _classify, _lookup_command, _would_run)
from flashpoc.jobs.sqlscript.plan.lexer import (QUOTE_MAX, SESSION_VARIABLES, _AMP, _LIT, _Lexer, _PUNCT, _Q_CLOSE, _SEMI, _Tok, _WORD,
                    _is_word_char, _plain_literal_end, _quote, _session_variable, session_name)
from flashpoc.jobs.sqlscript.plan.parser import _Parser, _Pending
from flashpoc.jobs.sqlscript.plan.statements import SkippedCommand, SqlScript, Statement, StatementKind


# --------------------------------------------------------------------------------------
# Public API


def scan_sql_script(text: str, *, source: str = "script") -> SqlScript:
    """Split a SQL*Plus script into statements, and list the SQL*Plus commands dropped.

    Args:
        text: the script's text (``\\n``, ``\\r\\n`` or ``\\r`` line ends; a BOM is ignored).
        source: how error messages name the script (e.g. its file name).

    Returns:
        The statements (at least one) and the dropped SQL*Plus commands.

    Raises:
        ParameterError: if the script holds no statement, a command or ``&var`` that would
            change what runs, an unterminated statement, block, literal or comment, or a
            stray ``/``, ``.`` or ``;``; the message names ``source``, the line and the fix.
    """
    if not isinstance(text, str):
        raise ParameterError(f"{source}: the script must be text (str), got {type(text).__name__}")
    return _Parser(source).run(text)


def split_sql_script(text: str, *, source: str = "script") -> list[Statement]:
    """Split a SQL*Plus script into the statements python-oracledb runs one by one.

    Args:
        text: the script's text (``\\n``, ``\\r\\n`` or ``\\r`` line ends; a BOM is ignored).
        source: how error messages name the script (e.g. its file name).

    Returns:
        The statements in script order: SQL without the trailing ``;``, PL/SQL blocks
        ending with ``END;``.

    Raises:
        ParameterError: see :func:`scan_sql_script`.
    """
    return list(scan_sql_script(text, source=source).statements)


def script_summary(statements: Iterable[Statement], *,
                   skipped: Iterable[SkippedCommand] | None = None) -> dict:
    """Count a script's statements for display (e.g. in a notebook).

    Args:
        statements: statements from :func:`split_sql_script`.
        skipped: dropped SQL*Plus commands from :func:`scan_sql_script`; when given, the
            result also has ``"skipped"``: counts by command name.

    Returns:
        ``{"statements": n, "sql": n_sql, "plsql": n_plsql, "verbs": {verb: count}}``, verbs
        (first keywords) in order of first appearance, e.g. ``{"statements": 3, "sql": 2,
        "plsql": 1, "verbs": {"INSERT": 1, "COMMIT": 1, "BEGIN": 1}}``.
    """
    stmts = list(statements)
    verbs: dict[str, int] = {}
    for stmt in stmts:
        verbs[stmt.verb] = verbs.get(stmt.verb, 0) + 1
    summary: dict = {
        "statements": len(stmts),
        "sql": sum(1 for s in stmts if s.kind == "sql"),
        "plsql": sum(1 for s in stmts if s.kind == "plsql"),
        "verbs": verbs,
    }
    if skipped is not None:
        counts: dict[str, int] = {}
        for cmd in skipped:
            counts[cmd.command] = counts.get(cmd.command, 0) + 1
        summary["skipped"] = counts
    return summary
