"""One session of a DBA's script: its statements run in order and committed, and its result."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flashpoc.core.lazy import lazy_import

oracledb = lazy_import("oracledb")  # imported when a database is first reached


@dataclass(frozen=True)
class SessionResult:
    """One session of :func:`run_sessions`.

    Attributes:
        session: 1-based session number.
        elapsed_s: seconds from the common start to this session's last commit (s).
        statements: statements executed.
        error: what failed (session, script line, first keyword, Oracle's message), or None.
    """

    session: int
    elapsed_s: float | None
    statements: int
    error: str | None = None


def session_text(statement: Any, number: int) -> str:
    """The text session ``number`` sends: ``statement.for_session(number).text`` when the
    statement fills per-session variables, else ``statement.text``."""
    for_session = getattr(statement, "for_session", None)
    return (for_session(number) if for_session is not None else statement).text


def run_statements(conn: Any, statements: Sequence[Any], number: int, start: float) -> SessionResult:
    """Session ``number`` runs ``statements`` on ``conn`` in order and commits: its result, timed
    from the sessions' common ``start`` (:func:`time.perf_counter`), or the statement that failed."""
    done = 0
    try:
        with conn.cursor() as cursor:
            for statement in statements:
                cursor.execute(session_text(statement, number))
                done += 1
        conn.commit()
    except oracledb.Error as exc:
        statement = statements[done]
        return SessionResult(
            number, None, done, f"session {number}: script line {statement.line} "
                                f"({statement.verb}): {str(exc).strip().splitlines()[0]}")
    return SessionResult(number, time.perf_counter() - start, done)
