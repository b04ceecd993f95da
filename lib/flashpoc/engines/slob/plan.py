"""SLOB 2.5 ``slob.conf`` from parameters, and back (pure: values in, text out).

``slob.conf`` is a list of shell variable assignments (``KEY=value``, ``KEY="text"``,
``# comments``, a comment after a value as in ``DATABASE_STATISTICS_TYPE=awr   # Permitted
values: [statspack|awr]``): SLOB's scripts source it with the shell rather than parse it.
That is what lets :func:`render_slob_conf` write ``SYSDBA_PASSWD`` as a reference to an
environment variable of the DB host (``"${FLASHPOC_SYSDBA_PASSWD:?...}"``), expanded when
``runit.sh`` / ``setup.sh`` source the file; the password itself is never written, and the
``:?`` form stops the sourcing shell with a message if the variable is not set.

Units: ``RUN_TIME`` seconds, ``THINK_TM_MIN`` / ``THINK_TM_MAX`` seconds (``.1``),
``SCALE`` / ``SCAN_TABLE_SZ`` a size with ``M`` or ``G`` (``8G``, ``655360M``) or a block
count, ``HOTSPOT_MB`` / ``HOTSPOT_OFFSET_MB`` MiB, ``*_PCT`` percent of operations.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flashpoc.core.errors import ParameterError
from flashpoc.params import ENV_NAME_RE, ascii_note

DEFAULT_PASSWD_ENV = "FLASHPOC_SYSDBA_PASSWD"
"""Environment variable on the DB host that holds the SYSDBA password, by default."""

REDACTED = "<literal password redacted>"
"""What :func:`parse_slob_conf` returns for a literal ``SYSDBA_PASSWD`` value."""

SIZE_RE = re.compile(r"^[1-9]\d*[MG]?$", re.ASCII)
"""A SLOB size: ``8G``, ``655360M`` or a count of 8K blocks."""
_DECIMAL_RE = re.compile(r"^(?:\d+\.?\d*|\.\d+)$", re.ASCII)
"""The name of an environment variable."""
_ENV_REF_RE = re.compile(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::\?[^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*))$", re.ASCII)
_SAFE_TEXT_RE = re.compile(r"^[A-Za-z0-9_.:/@()=,+-]+$", re.ASCII)
_ASSIGN_RE = re.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.ASCII)

INT_KEYS: tuple[str, ...] = (
    "UPDATE_PCT", "SCAN_PCT", "RUN_TIME", "WORK_LOOP", "WORK_UNIT", "LOAD_PARALLEL_DEGREE",
    "THREADS_PER_SCHEMA", "HOT_SCHEMA_FREQUENCY", "THINK_TM_FREQUENCY", "SQLNET_SERVICE_MAX",
    "HOTSPOT_MB", "HOTSPOT_OFFSET_MB", "HOTSPOT_FREQUENCY",
)
FLOAT_KEYS: tuple[str, ...] = ("THINK_TM_MIN", "THINK_TM_MAX")
BOOL_KEYS: tuple[str, ...] = ("DO_HOTSPOT", "OBFUSCATE_COLUMNS")
QUOTED_KEYS: tuple[str, ...] = (
    "ADMIN_SQLNET_SERVICE", "SQLNET_SERVICE_BASE", "DBA_PRIV_USER", "EXTERNAL_SCRIPT",
)
"""Keys rendered in double quotes, as the real slob.conf writes them."""


@dataclass(frozen=True)
class SlobConf:
    """The settings of one ``slob.conf``; field names are the slob.conf keys in lower case.

    ``None`` means "not written" (SLOB's own default applies). ``sysdba_passwd_env`` is the
    *name* of the DB host's environment variable holding the password, never the password.

    Raises:
        ParameterError: on construction, if a value is out of range or inconsistent.
    """

    update_pct: int
    scan_pct: int
    run_time: int
    work_loop: int
    scale: str
    work_unit: int
    redo_stress: str
    load_parallel_degree: int
    scan_table_sz: str | None = None
    threads_per_schema: int | None = None
    database_statistics_type: str | None = None
    admin_sqlnet_service: str | None = None
    sqlnet_service_base: str | None = None
    sqlnet_service_max: int | None = None
    dba_priv_user: str | None = None
    sysdba_passwd_env: str | None = None
    do_hotspot: bool | None = None
    hotspot_mb: int | None = None
    hotspot_offset_mb: int | None = None
    hotspot_frequency: int | None = None
    hot_schema_frequency: int | None = None
    think_tm_frequency: int | None = None
    think_tm_min: float | None = None
    think_tm_max: float | None = None
    external_script: str | None = None
    obfuscate_columns: bool | None = None

    def __post_init__(self) -> None:
        _validate(self)


def _check_int(name: str, value: Any, low: int, high: int | None = None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f">= {low}" if high is None else f"in {low}..{high}"
        raise ParameterError(f"{name} must be {bounds}, got {value}")


def _validate(conf: SlobConf) -> None:
    # The password rule first: a bad value here must never reach another message.
    env = conf.sysdba_passwd_env
    if env is not None and (not isinstance(env, str) or not ENV_NAME_RE.match(env)):
        raise ParameterError(
            "sysdba_passwd_env must be the name of an environment variable on the DB host "
            "(letters, digits, '_'), not a password; the value given is not shown")
    _validate_work(conf)
    _validate_options(conf)


def _validate_work(conf: SlobConf) -> None:
    """The rules of the work a run does: its mix, length, data sizes, work unit and redo stress."""
    _check_int("UPDATE_PCT", conf.update_pct, 0, 100)
    _check_int("SCAN_PCT", conf.scan_pct, 0, 100)
    if conf.update_pct + conf.scan_pct > 100:
        raise ParameterError(
            f"UPDATE_PCT + SCAN_PCT must be <= 100 (the rest are selects), got "
            f"{conf.update_pct} + {conf.scan_pct}")
    _check_int("RUN_TIME", conf.run_time, 0)
    _check_int("WORK_LOOP", conf.work_loop, 0)
    if conf.run_time == 0 and conf.work_loop == 0:
        raise ParameterError("RUN_TIME and WORK_LOOP are both 0: the run would never end")
    if conf.scale is None:
        raise ParameterError("SCALE is required")
    for name in ("scale", "scan_table_sz"):
        value = getattr(conf, name)
        if value is None:
            continue
        if not isinstance(value, str) or not SIZE_RE.match(value):
            raise ParameterError(
                f"{name.upper()} must be a size like 8G or 655360M, or a block count, "
                f"got {value!r}{ascii_note(value) if isinstance(value, str) else ''}")
    if conf.scan_pct > 0 and conf.scan_table_sz is None:
        raise ParameterError("SCAN_PCT > 0 needs SCAN_TABLE_SZ (the size of the scan table)")
    _check_int("WORK_UNIT", conf.work_unit, 1)
    if conf.redo_stress not in ("LITE", "HEAVY"):
        raise ParameterError(f"REDO_STRESS must be LITE or HEAVY, got {conf.redo_stress!r}")


def _validate_options(conf: SlobConf) -> None:
    """The rules of the other settings: load, sessions, hot spots, think time, services and scripts."""
    _check_int("LOAD_PARALLEL_DEGREE", conf.load_parallel_degree, 1)
    _check_int("THREADS_PER_SCHEMA", conf.threads_per_schema, 1)
    _check_int("SQLNET_SERVICE_MAX", conf.sqlnet_service_max, 1)
    for name in ("hotspot_mb", "hotspot_offset_mb", "hotspot_frequency",
                 "hot_schema_frequency", "think_tm_frequency"):
        _check_int(name.upper(), getattr(conf, name), 0)
    if conf.database_statistics_type not in (None, "awr", "statspack"):
        raise ParameterError(
            f"DATABASE_STATISTICS_TYPE must be awr or statspack, "
            f"got {conf.database_statistics_type!r}")
    for name in ("think_tm_min", "think_tm_max"):
        value = getattr(conf, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not value >= 0):
            raise ParameterError(f"{name.upper()} must be a number of seconds >= 0, got {value!r}")
    if (conf.think_tm_min is not None and conf.think_tm_max is not None
            and conf.think_tm_min > conf.think_tm_max):
        raise ParameterError(
            f"THINK_TM_MIN ({conf.think_tm_min}) must be <= THINK_TM_MAX ({conf.think_tm_max})")
    for name in ("do_hotspot", "obfuscate_columns"):
        value = getattr(conf, name)
        if value is not None and not isinstance(value, bool):
            raise ParameterError(f"{name.upper()} must be true or false, got {value!r}")
    for name in ("admin_sqlnet_service", "sqlnet_service_base", "dba_priv_user",
                 "external_script"):
        value = getattr(conf, name)
        if value is not None and (not isinstance(value, str) or not _SAFE_TEXT_RE.match(value)):
            raise ParameterError(
                f"{name.upper()} must be plain text (letters, digits, . : / @ ( ) = , + - _; "
                f"no quotes, spaces or '$'), got {value!r}")


def _format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _conf_line(conf: SlobConf, key: str) -> str | None:
    """The ``KEY=value`` line of ``key`` in slob.conf's syntax; None when its value is None."""
    value = getattr(conf, key.lower())
    if value is None:
        return None
    if key in BOOL_KEYS:
        text = "TRUE" if value else "FALSE"
    elif key in FLOAT_KEYS:
        text = _format_number(value)
    elif key in QUOTED_KEYS:
        text = f'"{value}"'
    else:
        text = str(value)
    suffix = "   # Permitted values: [statspack|awr]" if key == "DATABASE_STATISTICS_TYPE" else ""
    return f"{key}={text}{suffix}"


def render_slob_conf(conf: SlobConf, *, comment: str | None = None) -> str:
    """Return ``slob.conf`` text for ``conf``, in the syntax of SLOB 2.5's own file.

    Keys whose value is None are not written. ``SYSDBA_PASSWD`` is written only as a
    reference to the environment variable ``conf.sysdba_passwd_env`` of the DB host.

    Args:
        conf: validated settings.
        comment: one line written as a ``#`` comment under the heading (no newlines).

    Raises:
        ParameterError: if ``comment`` spans several lines.
    """
    if comment is not None and ("\n" in comment or "\r" in comment):
        raise ParameterError("comment must be a single line")
    lines = ["#### SLOB 2.5 slob.conf rendered by flashpoc"]
    if comment:
        lines.append(f"#### {comment}")
    lines.append("")

    def group(*keys: str) -> None:
        written = [line for line in (_conf_line(conf, key) for key in keys) if line is not None]
        if written:
            lines.extend([*written, ""])

    group("UPDATE_PCT", "SCAN_PCT", "RUN_TIME", "WORK_LOOP", "SCALE", "SCAN_TABLE_SZ",
          "WORK_UNIT", "REDO_STRESS", "LOAD_PARALLEL_DEGREE")
    group("THREADS_PER_SCHEMA")
    group("DATABASE_STATISTICS_TYPE")
    group("ADMIN_SQLNET_SERVICE", "SQLNET_SERVICE_BASE", "SQLNET_SERVICE_MAX", "DBA_PRIV_USER")
    if conf.sysdba_passwd_env is not None:
        env = conf.sysdba_passwd_env
        lines += [
            "#### slob.conf is sourced by SLOB's shell scripts: the password is read from the",
            f"#### environment of the DB host at run time (export {env} before runit.sh).",
            f'SYSDBA_PASSWD="${{{env}:?set {env} on the DB host}}"',
            "",
        ]
    group("DO_HOTSPOT", "HOTSPOT_MB", "HOTSPOT_OFFSET_MB", "HOTSPOT_FREQUENCY")
    group("HOT_SCHEMA_FREQUENCY")
    group("THINK_TM_FREQUENCY", "THINK_TM_MIN", "THINK_TM_MAX")
    group("EXTERNAL_SCRIPT", "OBFUSCATE_COLUMNS")
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"


def _split_value(raw: str, where: str) -> str:
    """Return the value of a ``KEY=...`` right-hand side, without quotes or trailing comment."""
    if raw[:1] in ('"', "'"):
        quote = raw[0]
        end = raw.find(quote, 1)
        if end < 0:
            raise ParameterError(f"{where}: unterminated {quote} quote")
        value, rest = raw[1:end], raw[end + 1:]
    else:
        parts = raw.split(None, 1) if raw and not raw[0].isspace() else ["", raw]
        value, rest = parts[0], (parts[1] if len(parts) > 1 else "")
        if rest and not raw[len(value)].isspace():
            raise ParameterError(f"{where}: unsupported shell syntax after the value")
    rest = rest.strip()
    if rest and not rest.startswith("#"):
        raise ParameterError(f"{where}: unsupported shell syntax after the value")
    return value


def parse_slob_conf(text: str) -> dict[str, str]:
    """Read the assignments of an existing ``slob.conf``.

    Comment and blank lines are skipped; quotes and trailing ``# comments`` are removed; a
    later assignment wins, as in the shell. A literal ``SYSDBA_PASSWD`` is replaced by
    :data:`REDACTED` so that it never travels further; a reference such as
    ``"${FLASHPOC_SYSDBA_PASSWD}"`` is kept.

    Args:
        text: the file's text.

    Returns:
        ``{KEY: value}`` in file order, values as strings.

    Raises:
        ParameterError: a line is neither a comment nor a simple ``KEY=value`` assignment
            (the message gives the line number; it never quotes a SYSDBA_PASSWD line).
    """
    values: dict[str, str] = {}
    for number, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line.startswith("#"):
            continue
        match = _ASSIGN_RE.match(line)
        if not match:
            shown = "" if "PASSWD" in line.upper() else f": {line[:60]!r}"
            raise ParameterError(f"slob.conf line {number}: not a KEY=value assignment{shown}")
        key, rhs = match.groups()
        value = _split_value(rhs, f"slob.conf line {number} ({key})")
        if key == "SYSDBA_PASSWD" and not _ENV_REF_RE.match(value):
            value = REDACTED
        values.pop(key, None)
        values[key] = value
    return values


def slob_conf_from_dict(values: Mapping[str, str]) -> SlobConf:
    """Build a validated :class:`SlobConf` from :func:`parse_slob_conf` output.

    Raises:
        ParameterError: an unknown key, a value of the wrong type or out of range, or a
            literal ``SYSDBA_PASSWD`` (never echoed; only an environment reference is allowed).
    """
    fields = {f.name for f in dataclasses.fields(SlobConf)}
    kwargs: dict[str, Any] = {}
    for key, text in values.items():
        if key == "SYSDBA_PASSWD":
            match = _ENV_REF_RE.match(text) if isinstance(text, str) else None
            if not match:
                raise ParameterError(
                    "SYSDBA_PASSWD holds a literal password: write it as a reference to an "
                    'environment variable of the DB host, e.g. SYSDBA_PASSWD="${'
                    f'{DEFAULT_PASSWD_ENV}}}" (the value given is not shown)')
            kwargs["sysdba_passwd_env"] = match.group(1) or match.group(2)
            continue
        name = key.lower()
        if name not in fields or name == "sysdba_passwd_env":
            raise ParameterError(f"slob.conf key {key!r} is not known to flashpoc")
        if key in INT_KEYS:
            if not re.fullmatch(r"\d+", text, re.ASCII):
                raise ParameterError(f"{key} must be a non-negative integer, got {text!r}")
            kwargs[name] = int(text)
        elif key in FLOAT_KEYS:
            if not _DECIMAL_RE.match(text):
                raise ParameterError(f"{key} must be a number of seconds, got {text!r}")
            kwargs[name] = float(text)
        elif key in BOOL_KEYS:
            if text.upper() not in ("TRUE", "FALSE"):
                raise ParameterError(f"{key} must be TRUE or FALSE, got {text!r}")
            kwargs[name] = text.upper() == "TRUE"
        else:
            kwargs[name] = text
    missing = [f.name.upper() for f in dataclasses.fields(SlobConf)
               if f.default is dataclasses.MISSING and f.name not in kwargs]
    if missing:
        raise ParameterError(f"slob.conf lacks required keys: {', '.join(missing)}")
    return SlobConf(**kwargs)


SEED_8020 = SlobConf(
    update_pct=20, scan_pct=0, run_time=600, work_loop=0, scale="75G", scan_table_sz="1M", work_unit=64,
    redo_stress="LITE", load_parallel_degree=12,
)
"""The seed: 80% select / 20% update random single-block I/O, SCAN_TABLE_SZ at SLOB 2.5's default 1M (unused with SCAN_PCT=0)."""

SEED_SCAN = SlobConf(
    update_pct=0, scan_pct=100, run_time=600, work_loop=0, scale="75G", scan_table_sz="50G",
    work_unit=64, redo_stress="LITE", load_parallel_degree=12,
)
"""ENGINES.md seed: 100% scan (the 80/20 seed with UPDATE_PCT=0 SCAN_PCT=100 SCAN_TABLE_SZ=50G)."""
