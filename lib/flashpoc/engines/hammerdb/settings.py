"""The ``hammerdb:`` settings block: database, connection, schema and driver settings.

The defaults are a storage test's: the timed driver, every virtual user on all warehouses
(``all_warehouses``), keying and thinking off, the time profile on, no error allowed in a point
(``max_errors``), and no schema build unless ``build_schema`` asks for one (and the check refuses a
build over an existing schema). No password
is a setting: ``password_env`` and ``superuser_password_env`` NAME the environment variables that
hold them on the load host, where the HammerDB scripts read them.

:func:`settings_from_dict` validates a mapping and raises
:class:`~flashpoc.core.errors.ParameterError` with one line naming the key, before any I/O.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from flashpoc.core.errors import ParameterError
from flashpoc.params import EngineSettings, Flag, format_errors, StrictModel, check_address, value_problem
from flashpoc.params.paths import HostPath

#: a database, user or schema name HammerDB puts into SQL and connect strings
DB_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]{0,62}$", re.ASCII)
#: an Oracle net service: a TNS alias or an EZConnect ``host[:port]/service``
SERVICE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_/-]{0,252}$", re.ASCII)
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$", re.ASCII)
MAX_MINUTES = 7 * 24 * 60
#: the most virtual users a point runs on one load host (a timed run's script refuses more)
MAX_VIRTUAL_USERS = 10_000
#: the keys of the PostgreSQL connection (Oracle connects to ``service``)
POSTGRESQL_KEYS = ("host", "port", "sslmode", "dbname")


def _env_name(value: str | None) -> str | None:
    if value is not None and not ENV_NAME_RE.match(value):
        raise ValueError("give the NAME of an environment variable (letters, digits, '_'), not the password")
    return value


class HammerdbSettings(EngineSettings):
    """One campaign's HammerDB settings (the ``hammerdb:`` block)."""

    #: keys added later, left out of the measurement hash at their defaults (stored probes stay current)
    hash_defaults: ClassVar[dict[str, Any]] = {"max_errors": 0, "iterations": 1, "user_delay_ms": 500,
                                               "repeat_delay_ms": 500}

    database: Literal["oracle", "postgresql"] = Field(description="the database HammerDB drives")
    hammerdb_dir: HostPath = Field("/opt/hammerdb/HammerDB-6.0",
                              description="HammerDB's directory on the load hosts (holding hammerdbcli)")
    env_file: HostPath | None = Field(None, description="file sourced on the load host before HammerDB starts "
                                                   "(e.g. one exporting the password variables)")
    host: str = Field("127.0.0.1", description="PostgreSQL: the database server's host name or address")
    port: int = Field(5432, ge=1, le=65535, description="PostgreSQL: the server's port")
    sslmode: Literal["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] = Field(
        "disable", description="PostgreSQL: libpq sslmode")
    dbname: str = Field("tpcc", description="PostgreSQL: the TPROC-C database")
    service: str | None = Field(None, description="Oracle: the net service (TNS alias or EZConnect host:port/svc)")
    user: str = Field("tpcc", description="the TPROC-C schema owner HammerDB connects as")
    password_env: str = Field(description="NAME of the environment variable holding user's password")
    superuser: str | None = Field(None, description="PostgreSQL superuser (default postgres) / Oracle system "
                                                    "user (default system): builds the schema; on Oracle also "
                                                    "takes the AWR snapshots")
    superuser_password_env: str = Field(description="NAME of the environment variable holding the superuser's "
                                                    "password (the schema build and HammerDB's transaction "
                                                    "counter connect as the superuser)")
    tablespace: str | None = Field(None, description="tablespace of the schema (HammerDB's default if unset)")
    warehouses: int = Field(ge=1, le=100_000, description="TPROC-C warehouses (of the schema to build or in place)")
    build_schema: Flag = Field(False, description="build the schema first (never implied; the check refuses a "
                                                  "build over an existing schema)")
    build_virtual_users: int = Field(4, ge=1, le=1024, description="virtual users loading the schema")
    driver: Literal["timed", "test"] = Field(
        "timed", description="HammerDB's driver script: timed (a point is a timed run: NOPM over duration_minutes) "
                             "or test (a fixed work: every virtual user runs iterations of total_iterations "
                             "transactions; the point's headline is the test completion time)")
    rampup_minutes: int = Field(2, ge=0, le=MAX_MINUTES, description="whole minutes of rampup before counting "
                                                                     "(HammerDB's CLI takes whole minutes only)")
    duration_minutes: int = Field(5, ge=1, le=MAX_MINUTES, description="whole minutes counted")
    total_iterations: int = Field(10_000_000, ge=1, le=2**31 - 1,
                                  description="transactions per virtual user at most (the timed driver stops first); "
                                              "with driver test the transactions of each iteration")
    iterations: int = Field(1, ge=1, le=1_000_000, description="driver test: iterations each virtual user runs "
                                                                 "(HammerDB's vuset iterations)")
    user_delay_ms: int = Field(500, ge=0, le=3_600_000, description="driver test: ms each virtual user starts after "
                                                                      "the one before (HammerDB's User Delay)")
    repeat_delay_ms: int = Field(500, ge=0, le=3_600_000, description="driver test: ms a virtual user waits after "
                                                                        "each iteration (HammerDB's Repeat Delay)")
    time_profile: Flag = Field(True, description="per-transaction response times (xtprof)")
    all_warehouses: Flag = Field(True, description="every virtual user uses all warehouses")
    keying_and_thinking: Flag = Field(False, description="TPC-C keying and thinking times (off: a storage test)")
    max_errors: int = Field(0, ge=0, le=2**31 - 1,
                            description="error lines HammerDB may print in a point (all transactions) for it to "
                                        "stay a measurement; above it the point is refused (PostgreSQL only: on "
                                        "Oracle any error stops its virtual user and fails the point)")

    @model_validator(mode="before")
    @classmethod
    def _no_virtual_users(cls, values: Any) -> Any:
        if isinstance(values, dict):  # a password (any key naming one) is refused before: params.values
            if "virtual_users" in values:
                raise ValueError("virtual_users: the probe and the sweep choose each point's virtual users "
                                 "(probe.min_threads/max_threads, sweep.plan/max_threads count virtual users): "
                                 "leave virtual_users out")
        return values

    @classmethod
    def secret_env_key(cls, key: str) -> str | None:
        return "superuser_password_env" if "super" in key or "system" in key else "password_env"

    @field_validator("password_env", "superuser_password_env")
    @classmethod
    def _env(cls, value: str | None) -> str | None:
        return _env_name(value)

    @field_validator("dbname", "user", "superuser", "tablespace")
    @classmethod
    def _db_name(cls, value: str | None) -> str | None:
        if value is not None and not DB_NAME_RE.match(value):
            raise ValueError(f"{value!r} is not a database name (letters, digits, '_', '$'; at most 63)")
        return value

    @field_validator("host")
    @classmethod
    def _host(cls, value: str) -> str:
        return check_address(value)

    @field_validator("service")
    @classmethod
    def _service(cls, value: str | None) -> str | None:
        if value is not None and not SERVICE_RE.match(value):
            raise ValueError(f"{value!r} is not a net service name or EZConnect string (host:port/service)")
        return value

    @model_validator(mode="after")
    def _per_database(self) -> HammerdbSettings:
        if self.database == "oracle":
            if self.service is None:
                raise ValueError("service: required key is missing (the Oracle net service HammerDB connects to)")
            given = [k for k in POSTGRESQL_KEYS if getattr(self, k) != type(self).model_fields[k].default]
            if given:
                raise ValueError(f"{given[0]}: only for PostgreSQL (Oracle connects to service {self.service}): "
                                 f"leave {given[0]} out")
        elif self.service is not None:
            raise ValueError("service: only for Oracle (PostgreSQL uses host, port and dbname)")
        self._per_driver()
        if self.database == "oracle" and self.max_errors:
            raise ValueError("max_errors: HammerDB's Oracle driver prints an error only when it stops the virtual "
                             "user on it (raiseerror): with Oracle any error fails the point; leave max_errors at 0")
        return self

    def _per_driver(self) -> None:
        """The test driver's keys only with it; its work said, and the timed driver's keys left out.

        HammerDB's test driver has no monitor: no timed window (rampup, duration), no time profile
        (the monitor gathers it) and, as its all-warehouses code counts a monitor that is not
        there, no all_warehouses; both default to off with it. A key of the other driver is
        refused when it says other than its default (a dump of the settings holds every key)."""
        fields = type(self).model_fields
        changed = {k for k in self.model_fields_set if getattr(self, k) != fields[k].default}
        if self.driver == "timed":
            for key in ("iterations", "user_delay_ms", "repeat_delay_ms"):
                if key in changed:
                    raise ValueError(f"{key}: only with driver: test (the fixed-work driver); the timed driver runs "
                                     "for rampup_minutes and duration_minutes")
            return
        for key in ("rampup_minutes", "duration_minutes"):
            if key in changed:
                raise ValueError(f"{key}: not with driver: test, which runs a fixed work (iterations of "
                                 "total_iterations transactions per virtual user) to its end")
        if "total_iterations" not in self.model_fields_set:
            raise ValueError("total_iterations: with driver: test give the transactions of each iteration of each "
                             "virtual user (e.g. 1000)")
        for key, why in (("time_profile", "the time profile is gathered by the timed driver's monitor"),
                         ("all_warehouses", "its all-warehouses code counts a monitor the test driver has not "
                                            "(HammerDB divides by zero at 1 virtual user)")):
            if key in self.model_fields_set and getattr(self, key):
                raise ValueError(f"{key}: not with driver: test ({why}); leave it out")
            object.__setattr__(self, key, False)

    @property
    def fixed_work(self) -> bool:
        """Whether a point is a fixed work (HammerDB's test driver) rather than a timed run."""
        return self.driver == "test"

    @property
    def superuser_name(self) -> str:
        """The superuser (PostgreSQL) or system user (Oracle), with HammerDB's default."""
        return self.superuser or ("system" if self.database == "oracle" else "postgres")

    @property
    def password_variables(self) -> tuple[str, ...]:
        """Names of the environment variables a run reads on the load host."""
        return tuple(dict.fromkeys((self.password_env, self.superuser_password_env)))


class _Block(StrictModel):
    """The block under its key, so that error messages name ``hammerdb.<key>``."""

    hammerdb: HammerdbSettings


def settings_from_dict(values: dict[str, Any], source: str = "parameters") -> HammerdbSettings:
    """Validate a ``hammerdb:`` mapping (keys whose value is None take their defaults).

    Raises:
        ParameterError: one line naming each bad key (``hammerdb.warehouses: ...``).
    """
    problem = value_problem({"hammerdb": values})
    if problem:
        raise ParameterError(f"invalid parameters in {source}: {problem}")
    if isinstance(values, dict):
        values = {k: v for k, v in values.items() if v is not None}
    try:
        return _Block.model_validate({"hammerdb": values}).hammerdb
    except ValidationError as error:
        raise ParameterError(format_errors(error, source)) from None


class HammerdbWorkload(StrictModel):
    """HammerDB's one workload: TPROC-C (its TPC-C-like OLTP mix), as the rows and the report name it."""

    name: str = "tprocc"
    description: str = "HammerDB TPROC-C (TPC-C-like OLTP: new order, payment, delivery, stock level, order status)"

    @property
    def rw(self) -> str:
        """Engine I/O mode column of the results: the benchmark."""
        return "tproc-c"

    @property
    def bs(self) -> None:
        """No block size of its own: the database's."""
        return None

    @property
    def rwmixread(self) -> None:
        """No fixed read share: the database's reads and writes follow from the transactions."""
        return None

    @property
    def writes(self) -> bool:
        """TPROC-C writes into its own schema, never into the campaign's targets."""
        return False


#: the settings model of ``engine: {hammerdb: ...}`` (:func:`flashpoc.engines.engine_settings`)
SETTINGS = HammerdbSettings
