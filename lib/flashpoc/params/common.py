"""Parameter basics: limits, sizes, names, paths, the strict base model and the workbook root."""

from __future__ import annotations

import ipaddress
import os
import posixpath
import re
import unicodedata
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field


# Every pattern of the parameters is compiled with re.ASCII: without it \d takes '４' (a fullwidth digit) or
# '٤' (an Arabic-Indic one) and re.IGNORECASE takes the Kelvin sign for a k (tests/code checks it).
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", re.ASCII)
ADDRESS_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_-]{0,252}$", re.ASCII)
USER_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9._-]{0,31}$", re.ASCII)
SIZE_RE = re.compile(r"^(\d+)([kmgtp]?)(i?b)?$", re.IGNORECASE | re.ASCII)
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$", re.ASCII)  # an environment variable's name
STEADYSTATE_RE = re.compile(r"^(iops|bw)(_slope)?:\d+(\.\d+)?%?$", re.ASCII)
SIZE_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}
MAX_THREADS = 65536
DEFAULT_CURVE_PCT = (10.0, 50.0, 70.0, 80.0, 90.0, 100.0)
"""The rate-curve plan's default rates (% of the uncontrolled maximum), as vdbench's guides use."""
MAX_SIZE_BYTES = 1024**5  # 1 PiB: anything larger is a typo
MIN_WORKING_SET_BYTES = 1024**2  # a smaller working set measures caches, not the array
MAX_BLOCK_BYTES = 64 * 1024**2
MAX_TEXT = 4096  # characters of any one text value (paths, names, descriptions)
MAX_FILE_BYTES = 1024**2  # a parameters file is a few KiB; 1 MiB is far beyond any campaign
MAX_DEPTH = 16  # the schema nests 5 levels deep
MAX_VALUES = 100_000  # values in a parameters file, with YAML aliases expanded
#: Directories of the operating system: results, scratch files and job files never go there.
SYSTEM_DIRS = ("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/run", "/sbin",
               "/sys", "/usr", "/var")
SCRATCH_DIRS = ("/var/tmp",)  # under SYSTEM_DIRS, yet made for such files
LOCAL_ADDRESSES = ("localhost",)
WRITE_MODES = ("randwrite", "randrw", "write", "rw")
FIO_RW = Literal["randread", "randwrite", "randrw", "read", "write", "rw"]


def ascii_note(text: str) -> str:
    """`` ('４' is U+FF14 FULLWIDTH DIGIT FOUR, not one of the digits 0-9)`` for the first character of
    ``text`` that is not ASCII, where a number, a size or a rate is read (``" ('K' is U+212A KELVIN SIGN,
    not an ASCII letter)"``); ``""`` when it is all ASCII."""
    for ch in str(text):
        if not ch.isascii():
            what = "one of the digits 0-9" if unicodedata.numeric(ch, None) is not None else "an ASCII letter"
            return f" ({ch!r} is U+{ord(ch):04X} {unicodedata.name(ch, 'a character')}, not {what})"
    return ""


def parse_size(text: str | int) -> int:
    """Return a size in bytes from ``4k``, ``1g``, ``250GiB`` or a plain byte count.

    Raises:
        ValueError: on anything else, zero, or more than 1 PiB.
    """
    if isinstance(text, bool):
        raise ValueError("a size must be a number of bytes or a string like '4k' or '1g'")
    if isinstance(text, int):
        value = text
    else:
        match = SIZE_RE.match(str(text).strip())
        if not match:
            raise ValueError(f"{text!r} is not a size (use e.g. '4k', '128k', '1g', '250g'){ascii_note(text)}")
        value = int(match.group(1)) * SIZE_UNITS[match.group(2).lower()]
    if value <= 0:
        raise ValueError("a size must be greater than zero")
    if value > MAX_SIZE_BYTES:
        raise ValueError(f"{text!r} is larger than 1 PiB")
    return value


def _size_input(value: Any) -> Any:
    """A size as given: a plain whole number of bytes becomes its text; anything but text or a
    whole number is refused (``1e9`` and ``1.5g`` are not sizes: write ``1g`` or ``1536m``)."""
    if isinstance(value, bool):
        raise ValueError(f"{str(value).lower()} is a yes/no value, not a size (e.g. '4k', '1g')")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        raise ValueError(f"{value!r} is not a size: give whole bytes or a unit (e.g. '4k', '1g', '1536m')")
    return value


def check_address(value: str) -> str:
    """``value`` if it is a host name or IP address, else a ValueError saying why: ``db1:2222`` (a
    port after the name, not an IPv6 address) names the port's own key."""
    if not ADDRESS_RE.match(value):
        raise ValueError(f"{value!r} is not a host name or IP address")
    if ":" in value:
        try:
            ipaddress.IPv6Address(value)
        except ValueError:
            name, _, port = value.rpartition(":")
            if name and ":" not in name and port.isdigit():
                raise ValueError(f"{value!r} holds a port after the name: give {name!r} here and port: "
                                 f"{port}") from None
            raise ValueError(f"{value!r} is not a host name or IP address") from None
    return value


def _check_size(value: str) -> str:
    parse_size(value)
    return value


#: yes or no: ``true``/``false`` (``1``/``0`` too, as fio writes ``direct=1``)
Flag = Annotated[bool, Field(strict=False)]

#: a size in bytes: ``4k``, ``1g``, ``250GiB`` or a whole number of bytes (kept as text)
Size = Annotated[str, BeforeValidator(_size_input), AfterValidator(_check_size)]


def _check_name(value: str) -> str:
    if not NAME_RE.match(value):
        raise ValueError("use letters, digits, '.', '_' or '-' (at most 64)")
    return value


#: a name used in file names and tables (hosts, targets, workloads, campaigns)
Name = Annotated[str, AfterValidator(_check_name)]


#: Characters a path may not hold: shell syntax and whitespace. Every remote command quotes its
#: values anyway; a device or file path of a POC never needs them, so a path that has them is a
#: mistake (or an attack) and is refused before anything runs.
PATH_FORBIDDEN = set("$`;|&<>(){}*?[]!\"'\\#") | set(" \t")


def system_dir(path: str) -> str | None:
    """The operating-system directory (:data:`SYSTEM_DIRS`, or ``/``) that absolute ``path`` is or is
    under, or None (textual: ``..`` is folded, symbolic links are not followed)."""
    if not path.startswith("/"):
        return None
    norm = posixpath.normpath(path)
    norm = "/" + norm.lstrip("/")  # normpath keeps a leading '//'
    if norm == "/":
        return "/"
    if any(norm == d or norm.startswith(d + "/") for d in SCRATCH_DIRS):
        return None
    return next((d for d in SYSTEM_DIRS if norm == d or norm.startswith(d + "/")), None)


def in_system_dir(path: str) -> str | None:
    """Where :func:`system_dir` finds ``path``, in words (``in the system directory /etc``), or None."""
    found = system_dir(path)
    return None if found is None else "the root directory" if found == "/" else f"in the system directory {found}"


def _check_written_dir(value: str) -> str:
    """A directory the workbook writes into: an ordinary path, not a system directory."""
    _check_path(value)
    where = in_system_dir(value)
    if where:
        raise ValueError(f"{value!r} is {where}: the workbook writes there; choose a directory of your own")
    return value


def _check_path(value: str) -> str:
    if not value or any(ch in value for ch in "\n\r\0"):
        raise ValueError("a path must be non-empty and on one line")
    if ":" in value:
        raise ValueError("a path may not contain ':' (fio uses it to separate file names)")
    bad = sorted({ch for ch in value if ch in PATH_FORBIDDEN})
    if bad:
        shown = " ".join("space" if ch == " " else "tab" if ch == "\t" else ch for ch in bad)
        raise ValueError(f"a path may not contain shell syntax or spaces (found {shown})")
    return value


class StrictModel(BaseModel):
    """Base of every parameter model: unknown keys are errors, and values are taken as they are
    written (no ``true`` as a count, no ``"64"`` as a number, no NaN or infinity, texts of at most
    :data:`MAX_TEXT` characters)."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True, strict=True,
                              allow_inf_nan=False, str_max_length=MAX_TEXT)


class EngineSettings(StrictModel):
    """Base of an engine's settings block (``engine: {name: {...}}``, its folder's ``settings.SETTINGS``):
    what the campaign asks of every engine's settings, each engine answering for its own keys."""

    hash_defaults: ClassVar[dict[str, Any]] = {}
    """Keys added after campaigns were measured, with their defaults: left at them, they leave the
    measurement hash of those campaigns as it was (their stored points are reused)."""

    def not_defining_a_point(self, n_hosts: int) -> tuple[str, ...]:
        """The keys that do not change what a point on ``n_hosts`` load hosts measures (left out of
        the measurement hash): none, unless the engine says otherwise."""
        return ()

    @classmethod
    def secret_env_key(cls, key: str) -> str | None:
        """The key of this block that names the environment variable holding the secret a user wrote
        under ``key`` (lower case) instead, for the message that refuses it; None: no such key."""
        return None


def workbook_root(start: Path | None = None) -> Path:
    """The directory relative paths are resolved against (see module docstring), as a process
    working in ``start`` (default: the current directory) finds it."""
    env = os.environ.get("FLASHPOC_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    return find_workbook(here) or here


def find_workbook(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` that holds both ``notebooks/`` and ``parameters/``, or None."""
    here = Path(start).resolve()
    return next((c for c in (here, *here.parents) if (c / "notebooks").is_dir() and (c / "parameters").is_dir()), None)


def under_workbook(path: str | Path, root: Path | None = None) -> str:
    """``path`` relative to the workbook root (``root``, else :func:`workbook_root`) when it lies
    under it, else as given: how a path is shown to a customer, without a folder of the machine
    that ran the campaign (a scratch file, the parameters file); a device or any other path as it is."""
    base = workbook_root() if root is None else Path(root).resolve()
    return Path(path).relative_to(base).as_posix() if Path(path).is_relative_to(base) else str(path)


def resolve_path(path: str | Path) -> Path:
    """Return ``path`` made absolute against :func:`workbook_root` (``~`` expanded)."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else workbook_root() / p
