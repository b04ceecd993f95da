"""Where and as whom to connect (:class:`OracleSettings`, the password read from the environment), and the SQL files."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from typing import Any

from flashpoc.core.errors import ParameterError
from flashpoc.core.lazy import lazy_import

oracledb = lazy_import("oracledb")  # imported when a database is first reached


DEFAULT_PASSWORD_ENV = "FLASHPOC_ORACLE_PASSWORD"
"""Environment variable read for the password unless :attr:`OracleSettings.password_env` says otherwise."""


@dataclass(frozen=True)
class OracleSettings:
    """Where and how to connect; holds no secret.

    Attributes:
        dsn: Easy Connect string ``host:port/service`` (``tcps://host:port/service`` for TLS)
            or a ``tnsnames.ora`` alias found in ``wallet_dir``.
        user: Database user (e.g. ``system``; AWR views need SELECT_CATALOG_ROLE or DBA).
        password_env: NAME of the environment variable holding the password (not the password).
        wallet_dir: Directory holding the wallet (``ewallet.pem`` / ``cwallet.sso``) and
            ``tnsnames.ora``/``sqlnet.ora`` for TCPS; ``None`` for plain TCP.
        wallet_password_env: NAME of the environment variable holding the wallet password, for
            an encrypted PEM wallet; ``None`` when the wallet needs none.
        connect_timeout_s: Bound on the TCP connect and on the listener's first answer.
        acquire_timeout_s: Bound on getting a connection from the pool (login included).
        pool_min: Connections the pool opens at start.
        pool_max: Most connections the pool opens.
    """

    dsn: str
    user: str
    password_env: str = DEFAULT_PASSWORD_ENV
    wallet_dir: str | None = None
    wallet_password_env: str | None = None
    connect_timeout_s: float = 5.0
    acquire_timeout_s: float = 30.0
    pool_min: int = 1
    pool_max: int = 2

    @classmethod
    def of(cls, params: Any) -> OracleSettings:
        """The settings of the ``oracle:`` parameters ``params`` (:class:`flashpoc.params.OracleParams`)."""
        return cls(dsn=params.dsn, user=params.user, password_env=params.password_env,
                   wallet_dir=params.wallet_dir, wallet_password_env=params.wallet_password_env,
                   connect_timeout_s=params.connect_timeout_s)

    def __post_init__(self) -> None:
        if not self.dsn or not self.dsn.strip():
            raise ParameterError("oracle.dsn: must not be empty (host:port/service)")
        if not self.user:
            raise ParameterError("oracle.user: must not be empty")
        if not self.password_env:
            raise ParameterError("oracle.password_env: must name an environment variable")
        if not self.connect_timeout_s > 0:
            raise ParameterError(f"oracle.connect_timeout_s: must be > 0, got {self.connect_timeout_s!r}")
        if not self.acquire_timeout_s > 0:
            raise ParameterError(f"oracle.acquire_timeout_s: must be > 0, got {self.acquire_timeout_s!r}")
        if self.pool_min < 0 or self.pool_max < 1 or self.pool_min > self.pool_max:
            raise ParameterError(
                f"oracle.pool_min/pool_max: need 0 <= pool_min <= pool_max >= 1, "
                f"got {self.pool_min}/{self.pool_max}"
            )

    @classmethod
    def from_env(cls, prefix: str = "FLASHPOC_ORACLE_", **overrides: Any) -> OracleSettings:
        """Settings from ``<prefix>DSN``, ``<prefix>USER``, ``<prefix>WALLET_DIR``, ``<prefix>CONNECT_TIMEOUT_S``.

        The password stays in ``<prefix>PASSWORD`` (the default ``password_env``) until
        :func:`connect` reads it.

        Args:
            prefix: Prefix of the environment variable names.
            **overrides: Fields given explicitly; they win over the environment.

        Raises:
            ParameterError: ``DSN`` or ``USER`` is missing, or a value is invalid.
        """
        values: dict[str, Any] = {}
        for field, cast in (("dsn", str), ("user", str), ("wallet_dir", str), ("connect_timeout_s", float)):
            name = prefix + field.upper()
            raw = os.environ.get(name)
            if raw:
                try:
                    values[field] = cast(raw)
                except ValueError:
                    raise ParameterError(f"{name}: not a {cast.__name__}: {raw!r}") from None
        values["password_env"] = prefix + "PASSWORD"
        values.update(overrides)
        for field in ("dsn", "user"):
            if not values.get(field):
                raise ParameterError(f"{prefix}{field.upper()}: environment variable is not set")
        return cls(**values)


def load_sql(name: str) -> str:
    """Text of ``flashpoc/sql/<name>.sql`` without its ``--`` comment lines, ready to execute.

    Raises:
        ParameterError: There is no such SQL file.
    """
    try:
        text = resources.files("flashpoc").joinpath("sql", f"{name}.sql").read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ParameterError(f"sql: no file flashpoc/sql/{name}.sql") from None
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("--")]
    return "\n".join(lines).strip()


def _read_secret(env_name: str) -> str:
    value = os.environ.get(env_name)
    if not value:
        raise ParameterError(
            f"oracle.password_env: environment variable {env_name} is not set or empty "
            f"(set it to the password; flashpoc never prompts)"
        )
    return value


def _endpoint(settings: OracleSettings) -> tuple[str, int, str]:
    """(host, port, protocol) of the first address of the DSN."""
    params = oracledb.ConnectParams(config_dir=settings.wallet_dir) if settings.wallet_dir else oracledb.ConnectParams()
    try:
        params.parse_connect_string(settings.dsn)
    except oracledb.Error as exc:
        raise ParameterError(f"oracle.dsn: cannot parse {settings.dsn!r}: {exc}") from None
    host, port, protocol = params.host, params.port, params.protocol
    if isinstance(host, list):
        host, port, protocol = host[0], port[0], protocol[0]
    return str(host), int(port), str(protocol or "tcp").lower()
