"""Talk to an Oracle database: facts, AWR (or Statspack) snapshots and the AWR rows between them.

This package is the only part of flashpoc that imports :mod:`oracledb`, always in thin mode (no Oracle
client libraries). Every query is a file in ``flashpoc/sql/`` run with bind variables, never
built by string formatting; :func:`load_sql` reads one.

Settings come from :class:`OracleSettings`; the password never does: ``password_env`` names
an environment variable that :func:`connect` reads at connect time, so the password is in no
settings object, repr, exception message or log. Nothing here prompts (a prompt would hang a
notebook run by papermill):

* a missing password variable raises :class:`~flashpoc.core.errors.ParameterError` naming the
  variable, before any network I/O;
* an unreachable or silent listener raises :class:`~flashpoc.core.errors.RemoteError` naming the
  DSN within about ``2 * connect_timeout_s``;
* the pool is always closed (``pool.close(force=True)``), whatever happens in the block.

python-oracledb's thin mode bounds only the TCP connect by ``tcp_connect_timeout``: a peer that
accepts the connection and then never answers would block the first connection forever. So
:func:`connect` first sends the listener a TNS ``(COMMAND=ping)`` connect packet (what
``tnsping`` sends; for ``tcps`` it does a TLS handshake instead) and requires an answer within
``connect_timeout_s``.

Typical use::

    settings = OracleSettings(dsn="db1:1521/pdb1", user="system")
    with connect(settings) as conn:
        facts = database_facts(conn)
        begin = create_snapshot(conn)
        ...  # run the workload
        end = create_snapshot(conn)
        rows = awr_rows(conn, facts["dbid"], begin, end, facts["instance_number"])
    metrics = flashpoc.oracle.metrics.compute_awr_metrics(rows, begin, end)
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from flashpoc.core.errors import ParameterError, RemoteError
from flashpoc.core.lazy import lazy_import

oracledb = lazy_import("oracledb")  # imported when a database is first reached

# Every name keeps its old path (flashpoc.oracle.db.X): the package re-exports its modules' names.
from flashpoc.oracle.db.listener import _tns_ping_packet, check_listener
from flashpoc.oracle.db.queries import (AWR_TABLES, KEY_PARAMETERS, SLOB_USER_PATTERN, _execute, _execute_snap, _interval_rows,
                      awr_report_text, awr_rows, calibrate_io, create_snapshot, database_facts, dbstat_sample,
                      diagnostics_pack_enabled, statspack_rows, statspack_snapshot, storage_facts)
from flashpoc.oracle.db.sessions import SessionResult, run_statements, session_text
from flashpoc.oracle.db.settings import DEFAULT_PASSWORD_ENV, OracleSettings, _endpoint, _read_secret, load_sql


def _scrub(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` with each of ``secrets`` replaced by ``***``, the longest first: a password that holds
    the other (the wallet's ``abc-1`` and the user's ``abc``) would otherwise leave its rest (``***-1``)."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, "***")
    return text


def scrub_secrets(settings: OracleSettings, text: str) -> str:
    """``text`` with the password and wallet password of ``settings`` (as their variables hold them
    now) replaced by ``***``: for a message that did not come through :func:`connect`."""
    names = (settings.password_env, settings.wallet_password_env)
    return _scrub(text, tuple(os.environ.get(name) or "" for name in names if name))


@contextlib.contextmanager
def connect(settings: OracleSettings) -> Iterator[Any]:
    """A connection from a fresh pool; the pool is closed (forcibly) when the block exits.

    Args:
        settings: Where to connect; the password is read from ``settings.password_env`` now.

    Yields:
        An ``oracledb.Connection``.

    Raises:
        ParameterError: The password variable (or wallet password variable) is unset, or the
            DSN cannot be parsed; raised before any network I/O.
        RemoteError: The listener or the database cannot be reached, or login failed; the
            message names the DSN and user, never the password.
    """
    password = _read_secret(settings.password_env)
    wallet_password = _read_secret(settings.wallet_password_env) if settings.wallet_password_env else None
    secrets = (password, wallet_password or "")
    check_listener(settings)
    where = f"Oracle {settings.user}@{settings.dsn}"
    wallet: dict[str, Any] = {}
    if settings.wallet_dir:
        wallet = {"config_dir": settings.wallet_dir, "wallet_location": settings.wallet_dir}
        if wallet_password:
            wallet["wallet_password"] = wallet_password
    pool = None
    error: str | None = None
    try:
        try:
            pool = oracledb.create_pool(
                user=settings.user,
                password=password,
                dsn=settings.dsn,
                min=settings.pool_min,
                max=settings.pool_max,
                increment=1,
                getmode=oracledb.POOL_GETMODE_TIMEDWAIT,
                wait_timeout=int(settings.acquire_timeout_s * 1000),
                tcp_connect_timeout=settings.connect_timeout_s,
                retry_count=0,
                **wallet,
            )
            conn = pool.acquire()
        except oracledb.Error as exc:
            error = f"{where}: cannot connect: {_scrub(str(exc), secrets)}"
        if error is not None:
            # Raised outside the except block: no __context__ keeps the driver's exception.
            raise RemoteError(error)
        try:
            yield conn
        finally:
            with contextlib.suppress(oracledb.Error):
                pool.release(conn)
    finally:
        if pool is not None:
            pool.close(force=True)


def run_sessions(settings: OracleSettings, statements: Sequence[Any], sessions: int, *,
                 connect: Callable[[OracleSettings], Any] = connect,
                 start_timeout_s: float = 300.0) -> tuple[float, list[SessionResult]]:
    """Run ``statements`` in ``sessions`` concurrent sessions, each its own connection.

    Every session logs in first; all start together (a barrier), run the statements in
    order and commit at the end. The elapsed time is from that common start to the end of
    the last session, the way a DBA times "20 sessions running the insert script".

    Args:
        settings: where to connect.
        statements: :class:`flashpoc.jobs.sqlscript.plan.Statement` objects (``text``, ``line``,
            ``verb``), run with ``cursor.execute(text)``; session ``n`` runs ``for_session(n)``
            of each when it has one (``&session``/``&session_name`` filled in).
        sessions: number of concurrent sessions (>= 1).
        connect: the context manager giving one connection (tests pass a replay double).
        start_timeout_s: seconds the sessions may take to log in before the run is abandoned.

    Returns:
        ``(elapsed_s, results)``: wall seconds of the whole run and one result per session.

    Raises:
        ParameterError: ``sessions`` < 1 or no statements.
        RemoteError: a session could not connect (no statement ran then) or the sessions
            did not all log in within ``start_timeout_s``.
    """
    if sessions < 1:
        raise ParameterError(f"sessions must be >= 1, got {sessions}")
    if not statements:
        raise ParameterError("no statements to run")
    start = [0.0]
    barrier = threading.Barrier(sessions + 1, action=lambda: start.__setitem__(0, time.perf_counter()))
    results: list[SessionResult | None] = [None] * sessions
    connect_errors: list[str] = []

    def session(number: int) -> None:
        try:
            with connect(settings) as conn:
                barrier.wait(timeout=start_timeout_s)
                results[number - 1] = run_statements(conn, statements, number, start[0])
        except (RemoteError, ParameterError) as error:
            connect_errors.append(f"session {number}: {error}")
            barrier.abort()
        except threading.BrokenBarrierError:
            results[number - 1] = SessionResult(number, None, 0, f"session {number}: not started")

    threads = [threading.Thread(target=session, args=(n,), name=f"flashpoc-sql-{n}") for n in range(1, sessions + 1)]
    for thread in threads:
        thread.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        barrier.wait(timeout=start_timeout_s)
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start[0]
    if connect_errors or start[0] == 0.0:
        raise RemoteError("the sessions could not all start: " + "; ".join(connect_errors or ["login timed out"]))
    return elapsed, [r for r in results if r is not None]
