"""Campaign parameters: one pydantic schema for everything a POC campaign needs.

A campaign is read from a parameters/*.yaml file, or built from the variables of a
notebook's ``parameters`` cell (papermill injects the YAML's top-level keys there).
Everything is validated before any I/O: unknown keys and impossible values raise
:class:`~flashpoc.errors.ParameterError` naming the key path, e.g. ``hosts[1].port``.

Relative paths (``results_dir``, target paths, key files) are relative to the workbook
root: ``$FLASHPOC_ROOT`` when set, else the nearest directory at or above the current one
that holds both ``notebooks/`` and ``parameters/``, else the current directory.
``$FLASHPOC_RESULTS_DIR``, when set, replaces ``results_dir``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import posixpath
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, SerializeAsAny, ValidationError,
                      field_validator, model_serializer, model_validator)

from .errors import ParameterError

if TYPE_CHECKING:
    from .engines.slob.settings import SlobWorkload

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
ADDRESS_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_-]{0,252}$")
USER_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9._-]{0,31}$")
SIZE_RE = re.compile(r"^(\d+)([kmgtp]?)(i?b)?$", re.IGNORECASE)
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # an environment variable's name
STEADYSTATE_RE = re.compile(r"^(iops|bw)(_slope)?:\d+(\.\d+)?%?$")
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
            raise ValueError(f"{text!r} is not a size (use e.g. '4k', '128k', '1g', '250g')")
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


class _Strict(BaseModel):
    """Base of every parameter model: unknown keys are errors, and values are taken as they are
    written (no ``true`` as a count, no ``"64"`` as a number, no NaN or infinity, texts of at most
    :data:`MAX_TEXT` characters)."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True, strict=True,
                              allow_inf_nan=False, str_max_length=MAX_TEXT)


class HostParams(_Strict):
    """A load host. ``address: localhost`` runs locally; anything else over SSH."""

    name: Name = Field(description="short host name used in results and tables")
    address: str = Field("localhost", description="host name or IP; 'localhost' runs locally")
    user: str | None = Field(None, description="SSH user (default: the current user)")
    port: int = Field(22, ge=1, le=65535, description="SSH port")
    key_file: str | None = Field(None, description="SSH private key; else the SSH agent")
    key_passphrase_env: str | None = Field(
        None, description="NAME of the environment variable holding key_file's passphrase (never the passphrase; "
                          "or load the key into ssh-agent and leave this unset)")
    known_hosts: str | None = Field(None, description="known_hosts file (default ~/.ssh/known_hosts)")
    trust_unknown_host_key: Flag = Field(
        False, description="accept and record a host key not in known_hosts (first contact only)"
    )
    connect_timeout_s: float = Field(10.0, gt=0, le=600)
    command_timeout_s: float = Field(3600.0, gt=0, le=7 * 86400, description="upper bound for one command")
    fio: str = Field("fio", description="fio executable on this host")
    workdir: str = Field("/tmp/flashpoc", description="directory for job files on this host")
    vdbench: str | None = Field(None, description="vdbench install directory on this host (hd vdbench=)")
    jvms: int | None = Field(None, ge=1, le=256, description="vdbench slave JVMs on this host (hd jvms=)")

    @field_validator("address")
    @classmethod
    def _address(cls, value: str) -> str:
        if not ADDRESS_RE.match(value):
            raise ValueError(f"{value!r} is not a host name or IP address")
        return value

    @field_validator("user")
    @classmethod
    def _user(cls, value: str | None) -> str | None:
        if value is not None and not USER_RE.match(value):
            raise ValueError(f"{value!r} is not a valid user name")
        return value

    @field_validator("fio", "key_file", "known_hosts", "vdbench")
    @classmethod
    def _paths(cls, value: str | None) -> str | None:
        return None if value is None else _check_path(value)

    @field_validator("workdir")
    @classmethod
    def _workdir(cls, value: str) -> str:
        return _check_written_dir(value)

    @field_validator("key_passphrase_env")
    @classmethod
    def _passphrase_env(cls, value: str | None) -> str | None:
        return check_env_name(value)

    @model_validator(mode="after")
    def _passphrase_needs_key(self) -> HostParams:
        if self.key_passphrase_env and not self.key_file:
            raise ValueError("key_passphrase_env is the passphrase of key_file: give key_file too "
                             "(a key in ssh-agent needs neither)")
        return self

    @property
    def is_local(self) -> bool:
        """True when commands run on this machine without SSH."""
        return self.address in LOCAL_ADDRESSES


class TargetParams(_Strict):
    """A LUN, device or file the workloads run against."""

    name: Name
    path: str = Field(description="block device or file path on the hosts")
    size: Size | None = Field(None, description="working set, e.g. '1g' (required for files)")
    create: Flag = Field(False, description="create and fill the file if missing (scratch files)")
    allow_write: Flag = Field(
        False, description="write workloads may overwrite this target (implied by create)"
    )
    hosts: list[str] | None = Field(None, max_length=1024, description="hosts that use this target (default all)")

    @field_validator("path")
    @classmethod
    def _path(cls, value: str) -> str:
        return _check_path(value)

    @field_validator("size")
    @classmethod
    def _size(cls, value: str | None) -> str | None:
        size = None if value is None else parse_size(value)
        if size is not None and size < MIN_WORKING_SET_BYTES:
            raise ValueError(f"a working set of {size} bytes is too small: at least 1m (1 MiB), else the caches "
                             "answer, not the array")
        return value

    @field_validator("hosts")
    @classmethod
    def _hosts(cls, value: list[str] | None) -> list[str] | None:
        if value == []:
            raise ValueError("no host would use this target: leave hosts out for every host")
        return value

    @model_validator(mode="after")
    def _create_needs_size(self) -> TargetParams:
        if self.create and self.size is None:
            raise ValueError("a target with create: true needs a size")
        if self.path.startswith("/dev/") and self.create:
            raise ValueError("create: true is for files; a /dev path is never created")
        where = in_system_dir(self.path) if not self.path.startswith("/dev/") else None
        if where and self.writable:
            raise ValueError(f"path: {self.path!r} is {where}, and {'create' if self.create else 'allow_write'}: "
                             "true would write it; put scratch files in a directory of your own")
        return self

    @property
    def size_bytes(self) -> int | None:
        """Working-set size in bytes, or None (use the whole device)."""
        return None if self.size is None else parse_size(self.size)

    @property
    def writable(self) -> bool:
        """True when write workloads may run on this target."""
        return self.allow_write or self.create


class Workload(_Strict):
    """One I/O pattern: a fio ``rw`` mode, block size, read mix and queue depth per thread."""

    name: Name
    rw: FIO_RW
    bs: Size = "4k"
    rwmixread: int | None = Field(None, ge=0, le=100, description="read % for randrw/rw")
    iodepth: int = Field(1, ge=1, le=4096, description="outstanding I/Os per thread")
    seekpct: float | Literal["seq", "sequential", "random", "eof"] | None = Field(
        None, description="vdbench seekpct (default 100 for random, 0 for sequential; the guides use 0.1)")
    skew: float | None = Field(None, gt=0, le=100, description="vdbench skew: % of the run's I/O")
    description: str = ""

    @field_validator("bs")
    @classmethod
    def _bs(cls, value: str) -> str:
        size = parse_size(value)
        if size % 512:
            raise ValueError("block size must be a multiple of 512 bytes")
        if size > MAX_BLOCK_BYTES:
            raise ValueError(f"a block size of {value} is above 64m")
        return value

    @model_validator(mode="after")
    def _mix(self) -> Workload:
        if self.rw in ("randrw", "rw") and self.rwmixread is None:
            raise ValueError(f"rw={self.rw} needs rwmixread (the read percentage)")
        if self.rw not in ("randrw", "rw") and self.rwmixread is not None:
            raise ValueError(f"rwmixread only applies to randrw/rw, not {self.rw}")
        return self

    @field_validator("seekpct")
    @classmethod
    def _seekpct(cls, value):
        if isinstance(value, float) and not 0 <= value <= 100:
            raise ValueError("seekpct is a percentage (0-100) or 'seq', 'random', 'eof'")
        return value

    @property
    def read_pct(self) -> int:
        """Share of reads in percent (vdbench rdpct)."""
        if self.rwmixread is not None:
            return self.rwmixread
        return 0 if self.rw in ("randwrite", "write") else 100

    @property
    def random(self) -> bool:
        """True for random access (fio rand*), False for sequential."""
        return self.rw.startswith("rand")

    @property
    def writes(self) -> bool:
        """True when the workload issues writes."""
        return self.rw in WRITE_MODES and self.rwmixread != 100


def standard_workloads() -> list[dict[str, Any]]:
    """The four workloads every POC runs unless the parameters name others."""
    return [
        {"name": "randread-4k", "rw": "randread", "bs": "4k",
         "description": "4K random read (index lookups, db file sequential read)"},
        {"name": "randwrite-4k", "rw": "randwrite", "bs": "4k",
         "description": "4K random write"},
        {"name": "oltp-8k-80r", "rw": "randrw", "bs": "8k", "rwmixread": 80,
         "description": "8K OLTP, 80% read / 20% write"},
        {"name": "seqread-128k", "rw": "read", "bs": "128k",
         "description": "128K sequential read (scans, backups)"},
    ]


def check_regex(value: str | None) -> str | None:
    """``value`` if it is a regular expression (or None), else a ValueError saying why."""
    if value is not None:
        try:
            re.compile(value)
        except re.error as error:
            raise ValueError(f"{value!r} is not a regular expression: {error}") from None
    return value


def check_env_name(value: str | None) -> str | None:
    """Refuse anything but the NAME of an environment variable (the value is never echoed:
    it may be a password typed in the wrong place)."""
    if value is not None and not ENV_NAME_RE.match(value):
        raise ValueError("must be the NAME of an environment variable (letters, digits, '_'), "
                         "not a password; the value given is not shown")
    return value


def slob_size_bytes(text: str) -> int:
    """Bytes of a SLOB size: ``8G``, ``655360M`` or a count of 8K blocks."""
    text = str(text).strip()
    units = {"M": 1024**2, "G": 1024**3}
    if text[-1:].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text) * 8192


class DatabaseParams(_Strict):
    """Where the database's datafiles are (``database:``): one fact of the database, read by every
    engine that runs against it (SLOB, a DBA's SQL job) and by the check and the report."""

    datafiles: Literal["local", "knfs", "dnfs"] | None = Field(
        None, description="where the datafiles are: 'local' (disks or LUNs: a SLOB point's time series is "
                          "iostat's), 'knfs' (NFS through the kernel's client: the NFS mounts' READ/WRITE from "
                          "/proc/self/mountstats), 'dnfs' (Oracle Direct NFS: neither sees its I/O, so SLOB "
                          "points keep no time series); the check compares it with v$dnfs_servers and the "
                          "report states it; unset counts as local and states nothing")
    nfs_mounts: str | None = Field(None, max_length=200,
                                   description="regular expression of the NFS mount points of the datafiles "
                                               "(datafiles: knfs; default every NFS mount)")

    @field_validator("nfs_mounts")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        return check_regex(value)


class CalibrateIOParams(_Strict):
    """``DBMS_RESOURCE_MANAGER.CALIBRATE_IO`` as a step of the check (``oracle.calibrate_io``)."""

    num_physical_disks: int = Field(ge=1, le=100000, description="physical disks (or SSDs) behind the data "
                                                                 "files, CALIBRATE_IO's num_physical_disks")
    max_latency_ms: int = Field(10, ge=10, le=10000, description="the largest latency (ms) allowed for "
                                                                 "db_block_size reads (CALIBRATE_IO's max_latency)")


class OracleParams(_Strict):
    """How the workbook reaches the database through python-oracledb (thin); holds no secret.

    The password is read at connect time from the environment variable ``password_env`` of the
    machine running the workbook (or comes from the wallet); it is never a parameter.
    """

    dsn: str = Field(description="Easy Connect host:port/service, or a tnsnames alias with wallet_dir")
    user: str = Field("system", description="database user (AWR views need SELECT_CATALOG_ROLE)")
    password_env: str = Field("FLASHPOC_ORACLE_PASSWORD", description="NAME of the environment variable "
                                                                      "holding the password")
    wallet_dir: str | None = None
    wallet_password_env: str | None = None
    connect_timeout_s: float = Field(5.0, gt=0, le=600)
    calibrate_io: CalibrateIOParams | None = Field(
        None, description="run DBMS_RESOURCE_MANAGER.CALIBRATE_IO in the check (off by default: it loads the "
                          "array with reads for several minutes, and needs asynchronous I/O to the data files)")

    @model_validator(mode="before")
    @classmethod
    def _moved(cls, data: Any) -> Any:
        if isinstance(data, dict) and "nfs_client" in data:
            raise ValueError("nfs_client: state it once as database.datafiles (local, knfs or dnfs)")
        return data

    @field_validator("password_env", "wallet_password_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        return check_env_name(value)

    @field_validator("wallet_dir")
    @classmethod
    def _wallet(cls, value: str | None) -> str | None:
        return None if value is None else _check_path(value)

    def settings(self):
        """The :class:`flashpoc.run.oracle.OracleSettings` of these parameters."""
        from .run.oracle import OracleSettings

        return OracleSettings(dsn=self.dsn, user=self.user, password_env=self.password_env,
                              wallet_dir=self.wallet_dir, wallet_password_env=self.wallet_password_env,
                              connect_timeout_s=self.connect_timeout_s)


class SqlWorkloadParams(_Strict):
    """A DBA's own job: N concurrent sessions each running the same SQL*Plus script, timed,
    with AWR (or Statspack) snapshots around it; read through ``oracle``."""

    script: str = Field(description="SQL*Plus script file (relative: to the workbook root)")
    sessions: int = Field(ge=1, le=1024, description="concurrent sessions, each running the whole script")
    label: Name = Field("run", description="name of this run in the comparison, e.g. 'undo-on-ssd'")
    description: str = ""

    @field_validator("script")
    @classmethod
    def _script(cls, value: str) -> str:
        return _check_path(value)


class ProbeSettings(_Strict):
    """Saturation probe: find the thread count beyond which IOPS stop rising."""

    workload: str | None = Field(None, description="workload to probe (default the first)")
    strategy: Literal["adaptive", "linear"] = "adaptive"
    min_threads: int = Field(1, ge=1, le=MAX_THREADS)
    max_threads: int = Field(256, ge=1, le=MAX_THREADS)
    step: int = Field(1, ge=1, le=MAX_THREADS, description="linear: the step; adaptive: refine granularity")
    gain_pct: float = Field(2.0, gt=0, lt=100, description="a gain below this % is no gain")
    runtime_s: int | None = Field(None, ge=1, le=86400, description="per point (default the engine's: fio.runtime_s, "
                                  "vdbench.elapsed_s, slob.run_time_s); with "
                                  "until_steady the longest a point runs")
    remeasure_unsteady: Flag = Field(True, description="measure a point again when fio's steady state was not attained")
    until_steady: Flag = Field(True, description="fio: a probe point ends once its IOPS are steady (fio steadystate, "
                               "fio.steadystate or iops:3% over 2 s), at most runtime_s")
    start_threads: int | None = Field(None, ge=1, le=MAX_THREADS, description="adaptive: the first count (default: "
                                      "the middle of min..max on a log scale, at least one thread per host CPU)")
    expected_iops: float | None = Field(None, gt=0, le=1e10, description="adaptive: the IOPS the array should reach "
                                        "(data sheet), if known: the doubling skips counts that cannot reach them")
    refine_points: int = Field(1, ge=0, le=50, description="adaptive: most points added to the doubling where the "
                               "answer is uncertain (bisections and repeats)")
    strict: Flag = Field(False, description="stop the run when the probe finds no saturation (default: the sweep "
                         "covers the probed range and the report says why there is no answer)")
    host_scaling: Flag = Field(
        True, description="several hosts: measure the plateau again on fewer hosts (1, half, all but one) to tell "
        "a host limit from an array limit")

    @model_validator(mode="after")
    def _range(self) -> ProbeSettings:
        if self.min_threads > self.max_threads:
            raise ValueError(f"min_threads ({self.min_threads}) is above max_threads ({self.max_threads})")
        if self.strategy == "linear" and (self.max_threads - self.min_threads) // self.step > 200:
            raise ValueError("a linear probe of more than 200 points: raise step")
        if self.start_threads is not None and not self.min_threads <= self.start_threads <= self.max_threads:
            raise ValueError(f"start_threads ({self.start_threads}) is outside min_threads..max_threads "
                             f"({self.min_threads}..{self.max_threads})")
        return self


class ExtendSettings(_Strict):
    """A sweep point not steady at its length measured again longer, up to ``max_s`` (:mod:`flashpoc.extend`)."""

    max_s: int = Field(..., ge=1, le=86400, description="the longest a point is run (s): lengths double up to it")


class SweepSettings(_Strict):
    """Fine thread sweep per workload, planned from the probe result."""

    plan: Literal["guide", "knee-dense", "rate-curve"] = "guide"
    max_threads: int | None = Field(None, ge=1, le=MAX_THREADS, description="default: the probe's answer")
    step: int | None = Field(None, ge=1, le=MAX_THREADS, description="guide plan step (default max/30)")
    points: int | None = Field(None, ge=2, le=500, description="knee-dense plan: number of points")
    extend_pct: float = Field(0.0, ge=0, le=400, description="also sweep this % beyond max_threads")
    workloads: list[str] | None = Field(None, max_length=256, description="workload names (default all)")
    runtime_s: int | None = Field(None, ge=1, le=86400, description="per point (default the engine's: fio.runtime_s, "
                                  "vdbench.elapsed_s, slob.run_time_s)")
    until_steady: Flag = Field(False, description="fio: a sweep point ends once its IOPS are steady, like the "
                               "probe's, at most runtime_s; the sweep then reuses the probe's points")
    curve_pct: list[float] | None = Field(None, min_length=1, max_length=50, description="rate-curve plan: the "
                                          "rates, in % of the uncontrolled maximum (default 10, 50, 70, 80, 90, 100)")
    stop_ms: float | None = Field(None, gt=0, le=100000, description="rate-curve plan: stop a curve once a step's "
                                  "mean latency passes this (ms)")
    extend_until_steady: ExtendSettings | None = Field(
        None, description="a point not steady at its length (fio's steadystate, else the SNIA PTS rule on its "
        "intervals) is measured again at twice its length, and so on up to max_s, e.g. {max_s: 600}")

    @field_validator("workloads")
    @classmethod
    def _some(cls, value: list[str] | None) -> list[str] | None:
        if value == []:
            raise ValueError("an empty list sweeps no workload: leave workloads out to sweep every workload")
        return value

    @model_validator(mode="after")
    def _plan_settings(self) -> SweepSettings:
        if self.plan == "guide" and self.points is not None:
            raise ValueError("points applies to the knee-dense plan; the guide plan uses step")
        for key in ("curve_pct", "stop_ms"):
            if self.plan != "rate-curve" and getattr(self, key) is not None:
                raise ValueError(f"{key} applies to the rate-curve plan (plan: rate-curve)")
        return self

    @field_validator("curve_pct")
    @classmethod
    def _rates(cls, values: list[float] | None) -> list[float] | None:
        for value in values or []:
            if not (math.isfinite(value) and 0 < value <= 100):
                raise ValueError(f"{value!r} is not a % of the maximum above 0 and at most 100")
        if values is not None and len(set(values)) != len(values):
            raise ValueError("a rate is named twice")
        return values

    @property
    def rate_steps(self) -> list[float]:
        """The rate-curve plan's rates in % of the uncontrolled maximum, ascending ([] for other plans)."""
        if self.plan != "rate-curve":
            return []
        return sorted(self.curve_pct or DEFAULT_CURVE_PCT)


class PreconditionSettings(_Strict):
    """Before the probe: fill every target once with the campaign's data (an all-flash array answers
    reads of never-written blocks from metadata), recorded per target (:mod:`flashpoc.precondition`)."""

    fill: Flag = Field(True, description="fill each target the campaign may write (create or allow_write) once, "
                       "sequentially in 1 MiB writes of the engine's data (fio buffer_compress_percentage/"
                       "dedupe_percentage, vdbench compratio/dedupratio), before the probe; again when it changed")
    unfilled: Literal["refuse", "warn"] = Field(
        "refuse", description="a read workload on a target never filled (not by flashpoc, not in "
        "filled_elsewhere): refuse before any I/O, or warn and go on")
    filled_elsewhere: list[Name] = Field(default_factory=list, max_length=4096,
                                         description="targets (by name) that hold data written outside flashpoc "
                                                     "(e.g. a copy of the database): their reads are not refused")
    write_rounds: int = Field(0, ge=0, le=100, description="write workloads: after the fill, at most this many rounds "
                              "of each (SNIA PTS workload-dependent preconditioning; SNIA's bound is 25) until its IOPS "
                              "are steady over 5 rounds; 0: none")
    round_s: int | None = Field(None, ge=1, le=86400, description="seconds per round (default the engine's point length)")
    threads: int = Field(16, ge=1, le=MAX_THREADS, description="threads of the rounds (per host; vdbench: per SD)")


class CompareWith(_Strict):
    """Another campaign whose stored sweep is overlaid on this one in the report."""

    campaign: Name = Field(description="the other campaign's name (its results are results_dir/campaign)")
    label: str | None = Field(None, min_length=1, max_length=60,
                              description="its name in charts and tables, e.g. 'C800 QLC' (default the campaign)")
    results_dir: str | None = Field(None, description="where its results are (default this campaign's results_dir)")

    @field_validator("results_dir")
    @classmethod
    def _results(cls, value: str | None) -> str | None:
        return None if value is None else _check_path(value)


class ReportSettings(_Strict):
    """What the report compares: this campaign against others, at equal latency and equal IOPS."""

    label: str | None = Field(None, min_length=1, max_length=60,
                              description="this campaign's name in comparisons (default the campaign)")
    compare: list[CompareWith] = Field(default_factory=list, max_length=7,
                                       description="other campaigns to overlay; this campaign is the baseline")
    latencies_ms: list[float] = Field(default_factory=list, max_length=10,
                                      description="latencies (ms) to compare IOPS at, besides slo_ms")
    iops_levels: list[float] = Field(default_factory=list, max_length=10,
                                     description="IOPS to compare latency and CPU at (default: half and all of "
                                                 "the lower max IOPS of each pair)")
    equal_threads: list[int] = Field(default_factory=list, max_length=10,
                                     description="thread counts (users) to compare the configurations at, equal load "
                                                 "(default: the highest both measured and the one nearest half of it)")
    detail_threads: int | None = Field(None, ge=1, le=100000,
                                       description="point shown in detail (time series, latency histogram): the "
                                                   "measured thread count nearest to this; default each workload's "
                                                   "max IOPS within slo_ms")

    @field_validator("equal_threads")
    @classmethod
    def _counts(cls, values: list[int]) -> list[int]:
        for value in values:
            if not 1 <= value <= MAX_THREADS:
                raise ValueError(f"{value!r} is not a thread count from 1 to {MAX_THREADS}")
        return sorted(set(values))

    @field_validator("latencies_ms", "iops_levels")
    @classmethod
    def _positive(cls, values: list[float], info) -> list[float]:
        top = 100_000 if info.field_name == "latencies_ms" else 10**9
        for value in values:
            if not (math.isfinite(value) and 0 < value <= top):
                raise ValueError(f"{value!r} is not a number above 0 and at most {top}")
        return sorted(set(values))


class ArraySettings(_Strict):
    """What is known of the array under test."""

    expected_iops: float | None = Field(None, gt=0, le=1e10, description="the IOPS the array should reach (its "
                                        "data sheet or the vendor's sizing): the report gives the share reached and "
                                        "the hosts-or-array verdict weighs it")


class Campaign(_Strict):
    """Everything that defines a POC campaign."""

    campaign: Name = Field(description="campaign name: results go to results_dir/campaign")
    description: str = ""
    engine: str = Field("fio", description="the load generator and its settings: a name (fio, vdbench, slob, "
                                           "sqlscript) or {name: {settings}}, e.g. {vdbench: {elapsed_s: 60}}")
    hosts: list[HostParams] = Field(min_length=1, max_length=1024)
    targets: list[TargetParams] = Field(default_factory=list, max_length=4096,
                                        description="LUNs/files (fio, vdbench; optional for slob)")
    settings: SerializeAsAny[BaseModel] | None = Field(None, exclude=True,
                                                       description="the engine's settings (from the engine block)")
    oracle: OracleParams | None = Field(None, description="database connection for checks and AWR through SQL")
    database: DatabaseParams = Field(DatabaseParams(), description="where the database's datafiles are (local, knfs, "
                                                                   "dnfs), for every engine, the check and the report")
    sql_workload: SqlWorkloadParams | None = Field(None, description="a DBA's SQL script run in N sessions")
    workloads: list[Workload] = Field(default_factory=lambda: [Workload(**w) for w in standard_workloads()],
                                      max_length=256)
    probe: ProbeSettings = ProbeSettings()
    sweep: SweepSettings = SweepSettings()
    precondition: PreconditionSettings = PreconditionSettings()
    slo_ms: float = Field(1.0, gt=0, le=10000, description="latency SLO for 'IOPS at SLO' (ms)")
    report: ReportSettings = ReportSettings()
    array_cache: Size | None = Field(None, description="array cache size, e.g. '512g': the working set "
                                                       "should be 10x larger")
    array: ArraySettings = ArraySettings()
    results_dir: str = "results"
    destroy_data_on: list[Name] = Field(default_factory=list, max_length=4096,
                                        description="targets (by name) whose existing data (file system, partition "
                                                    "table, LVM or ASM header) write workloads may destroy")

    @model_validator(mode="wrap")
    @classmethod
    def _engine_block(cls, data: Any, handler) -> Campaign:
        """Read the ``engine:`` block into :attr:`engine` (the name) and :attr:`settings` (see
        :func:`_engine_choice`); its problems are reported with the rest, each naming its key."""
        if not isinstance(data, dict):
            return handler(data)
        data, problems = _engine_choice(dict(data))
        try:
            campaign = handler(data)
        except ValidationError as error:
            problems += error.errors()
        else:
            if not problems:
                return campaign
        raise ValidationError.from_exception_data(cls.__name__, problems)

    @model_serializer(mode="wrap")
    def _dump(self, handler, info) -> dict[str, Any]:
        """A whole dump writes the engine block (``engine: {name: settings}``), which loads back."""
        out = handler(self)
        if "engine" in out and info.include is None and self.settings is not None:
            out["engine"] = {self.engine: self.settings.model_dump(mode=info.mode)}
        return out

    @field_validator("workloads", mode="before")
    @classmethod
    def _default_workloads(cls, value: Any) -> Any:
        return standard_workloads() if value is None else _some_workloads(value)

    @field_validator("results_dir")
    @classmethod
    def _results(cls, value: str) -> str:
        _check_written_dir(value)
        if ".." in value.split("/"):
            raise ValueError(f"{value!r} climbs out with '..': give an absolute path for results outside the workbook")
        return value

    @model_validator(mode="after")
    def _cross_checks(self) -> Campaign:
        if self.settings is None:  # the engine block is wrong (see _engine_block): nothing to check against
            return self
        _unique(self.hosts, "name", "hosts")
        _unique(self.targets, "name", "targets")
        _unique(self.workloads, "name", "workloads")
        host_names = {h.name for h in self.hosts}
        workload_names = self.workload_names
        labels = [self.report.label or self.campaign] + [c.label or c.campaign for c in self.report.compare]
        for i, label in enumerate(labels[1:]):
            if label in labels[: i + 1]:
                raise ValueError(f"report.compare[{i}]: the label {label!r} is already used; give each campaign "
                                 f"its own label")
        for i, other in enumerate(self.report.compare):
            if other.campaign == self.campaign and (other.results_dir or self.results_dir) == self.results_dir:
                raise ValueError(f"report.compare[{i}].campaign: {other.campaign!r} is this campaign")
        if self.sql_workload is not None and self.oracle is None:
            raise ValueError("sql_workload: needs oracle (dsn, user) to run the script and take AWR snapshots")
        engine = self.engine_object
        if self.sweep.plan == "rate-curve" and not engine.rate_curves:
            raise ValueError(f"sweep.plan: engine {self.engine} does not control its I/O rate; rate-curve needs one "
                             "that does")
        if engine.uses_targets and not self.targets:
            raise ValueError(f"targets: at least one target (LUN, device or file) is needed for engine {self.engine}")
        engine.check_params(self, host_names)
        for i, target in enumerate(self.targets):
            for name in target.hosts or []:
                if name not in host_names:
                    raise ValueError(f"targets[{i}].hosts: no host named {name!r} (hosts: {sorted(host_names)})")
        by_path: dict[str, list[int]] = {}
        for i, target in enumerate(self.targets):
            for j in by_path.get(target.path, []):
                if set(self.targets[j].hosts or host_names) & set(target.hosts or host_names):
                    raise ValueError(f"targets[{i}].path: {target.path!r} is already targets[{j}]")
            by_path.setdefault(target.path, []).append(i)
        if engine.uses_targets:
            largest = max(self.workloads, key=lambda w: parse_size(w.bs))
            for i, target in enumerate(self.targets):
                if target.size_bytes is not None and target.size_bytes < parse_size(largest.bs):
                    raise ValueError(f"targets[{i}].size: {target.size} is smaller than the block size {largest.bs} "
                                     f"of workload {largest.name}")
        if self.probe.workload is not None and self.probe.workload not in workload_names:
            raise ValueError(f"probe.workload: no workload named {self.probe.workload!r} (workloads: {workload_names})")
        for name in self.sweep.workloads or []:
            if name not in workload_names:
                raise ValueError(f"sweep.workloads: no workload named {name!r} (workloads: {workload_names})")
        target_names = [t.name for t in self.targets]
        for name in self.destroy_data_on:
            if name not in target_names:
                raise ValueError(f"destroy_data_on: no target named {name!r} (targets: {target_names})")
            if not next(t for t in self.targets if t.name == name).writable:
                raise ValueError(f"destroy_data_on: target {name!r} does not allow writes (allow_write: false): "
                                 "nothing would be destroyed")
        for name in self.precondition.filled_elsewhere:
            if name not in target_names:
                raise ValueError(f"precondition.filled_elsewhere: no target named {name!r} (targets: {target_names})")
        read_only = [t.name for t in self.targets if not t.writable]
        if read_only and engine.uses_targets:
            for i, workload in enumerate(self.workloads):
                if workload.writes:
                    raise ValueError(
                        f"workloads[{i}] ({workload.name}) writes, but targets {read_only} do not allow writes: "
                        "set allow_write: true on a target only if its data may be destroyed"
                    )
        return self

    # -- derived values -------------------------------------------------------------
    @property
    def engine_object(self):
        """The campaign's engine (:func:`flashpoc.engines.get_engine`)."""
        from .engines import get_engine

        return get_engine(self.engine)

    @property
    def engine_workloads(self) -> list[Workload] | list[SlobWorkload]:
        """The workloads of the campaign's engine (``slob.workloads`` for SLOB)."""
        return self.engine_object.workloads(self)

    @property
    def workload_names(self) -> list[str]:
        """Names of :attr:`engine_workloads`, in parameter order."""
        return [w.name for w in self.engine_workloads]

    @property
    def probe_workload(self) -> Workload | SlobWorkload:
        """The workload the saturation probe uses."""
        name = self.probe.workload or self.workload_names[0]
        return self.workload(name)

    @property
    def sweep_workloads(self) -> list[Workload] | list[SlobWorkload]:
        """The workloads of the fine sweep, in parameter order."""
        names = self.sweep.workloads or self.workload_names
        return [self.workload(n) for n in names]

    def workload(self, name: str) -> Workload | SlobWorkload:
        """Return the workload called ``name``."""
        for workload in self.engine_workloads:
            if workload.name == name:
                return workload
        raise ParameterError(f"no workload named {name!r}")

    @property
    def db_host(self) -> HostParams:
        """The host that runs the database's engine (its settings' ``db_host``, default the first host)."""
        name = getattr(self.settings, "db_host", None) or self.hosts[0].name
        return next(h for h in self.hosts if h.name == name)

    def targets_of(self, host: HostParams) -> list[TargetParams]:
        """Targets used by ``host``."""
        return [t for t in self.targets if t.hosts is None or host.name in t.hosts]

    def written(self, target: TargetParams) -> bool:
        """True when the campaign may write to ``target``: a write workload runs on it, the
        precondition fills it (``precondition.fill``, on a target that allows writing), or it is a
        scratch file the workbook lays out (SLOB campaigns write no target)."""
        if not self.engine_object.uses_targets:
            return False
        return target.create or (target.writable and (self.precondition.fill or any(w.writes for w in self.workloads)))

    def params_hash(self) -> str:
        """Short stable hash of every parameter (the campaign's identity in the manifest)."""
        dumped = self.model_dump(mode="json")
        if self.array == ArraySettings():  # added later; unset, it leaves the hashes of earlier campaigns as they were
            dumped.pop("array")
        if self.sweep.extend_until_steady is None:  # the same: added later
            dumped["sweep"].pop("extend_until_steady")
        if self.database == DatabaseParams():  # the same: added later
            dumped.pop("database")
        text = json.dumps(dumped, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def measurement_hash(self) -> str:
        """Short hash of what defines the measurements (engine, fio settings, hosts,
        targets, workloads), not of report-only settings such as the SLO."""
        include = {"engine", "hosts", "targets"} | ({"workloads"} - self.engine_object.manifest_exclude)
        dumped = self.model_dump(mode="json", include=include)
        dumped[self.engine] = self.settings.model_dump(mode="json")  # as when each engine had a top-level key
        if self.engine_object.datafiles_define_points:  # stored in the engine's block before database: existed
            dumped[self.engine].update(self.database.model_dump(mode="json"))
            dumped[self.engine]["datafiles"] = self.database.datafiles or "local"
        for key, default in getattr(self.settings, "hash_defaults", {}).items():  # keys added later, unset
            if dumped[self.engine].get(key, default) == default:
                dumped[self.engine].pop(key, None)
        for host in dumped["hosts"]:  # added later; unset, it leaves the hashes of earlier campaigns as they were
            if host.get("key_passphrase_env") is None:
                host.pop("key_passphrase_env", None)
        if "vdbench" in dumped:  # how vdbench's slaves reach the controller does not define a point
            dumped["vdbench"].pop("controller_address", None)
        if len(self.hosts) == 1 and "fio" in dumped:  # how several hosts run does not define a one-host point
            dumped["fio"].pop("multi_host", None)
            dumped["fio"].pop("server_port", None)
        text = json.dumps(dumped, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def results_path(self) -> Path:
        """Absolute directory of this campaign's results."""
        base = os.environ.get("FLASHPOC_RESULTS_DIR") or self.results_dir
        return resolve_path(base) / self.campaign

    def resolved(self) -> Campaign:
        """A copy with local target paths and key files made absolute (see module docstring)."""
        targets = [
            t.model_copy(update={"path": str(resolve_path(t.path))}) if not Path(t.path).is_absolute() else t
            for t in self.targets
        ]
        hosts = [
            h.model_copy(update={k: str(resolve_path(getattr(h, k)))
                                 for k in ("key_file", "known_hosts")
                                 if getattr(h, k) and not Path(getattr(h, k)).expanduser().is_absolute()})
            for h in self.hosts
        ]
        return self.model_copy(update={"targets": targets, "hosts": hosts})


def _engine_choice(data: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Split the ``engine:`` block of ``data`` into ``engine`` (the name) and ``settings`` (the
    engine's settings model, validated); return the data and the problems found (pydantic's error
    records, each naming its key).

    ``engine`` is a name (the engine with its default settings) or a mapping of one name to its
    settings. Parameters of the earlier format, with the name in ``engine`` and the settings under a
    top-level key named after the engine (``fio:``, ``vdbench:``, ``slob:``), load the same; such a
    block of another engine is validated and left unused, as it always was.
    """
    from .engines import engine_names

    problems: list[dict[str, Any]] = []

    def problem(loc: tuple[Any, ...], message: str) -> None:
        problems.append({"type": "value_error", "loc": loc, "input": None, "ctx": {"error": ValueError(message)}})

    if "settings" in data:
        problems.append({"type": "extra_forbidden", "loc": ("settings",), "input": data.pop("settings")})
    block = data.get("engine")
    name, settings, where = "fio", None, ("engine", "fio")
    if isinstance(block, str):
        name, where = block, ("engine", block)
    elif isinstance(block, dict) and len(block) == 1:
        (name, settings), = block.items()
        where = ("engine", name)
    elif block is not None:
        problem(("engine",), "name one engine, alone (e.g. fio) or with its settings (e.g. {fio: {runtime_s: 60}})")
    names = engine_names()
    if name not in names:
        problem(("engine",), f"unknown engine {name!r} (engines: {', '.join(names)})")
    for other in names:
        if other not in data:
            continue
        given = data.pop(other)
        if other == name and settings is None:
            settings, where = given, (other,)
        elif other == name:
            problem((other,), f"the {other} settings are given twice: keep them under engine.{other} only")
        else:
            _engine_settings(other, given, (other,), problems)
    data["engine"] = name if name in names else "fio"
    if name in names:
        data["settings"] = _engine_settings(name, settings, where, problems)
        if "hosts" not in data:  # an engine that needs no load host names its own (sqlscript: this machine)
            from .engines import get_engine

            default = [dict(h) for h in get_engine(name).default_hosts]
            if default:
                data["hosts"] = default
    return data, problems


def _engine_settings(name: str, given: Any, where: tuple[Any, ...], problems: list[dict[str, Any]]) -> Any:
    """``given`` validated by engine ``name``'s settings model (None: its defaults); its problems,
    named under ``where``, are added to ``problems``."""
    from .engines import engine_settings

    try:
        return engine_settings(name).model_validate({} if given is None else given)
    except ValidationError as error:
        problems += [{**e, "loc": where + tuple(e["loc"])} for e in error.errors()]
        return None


def _some_workloads(value: Any) -> Any:
    if value == []:
        raise ValueError("no workloads: leave workloads out for the standard ones, or list at least one")
    return value


def _unique(items: list[BaseModel], attr: str, key: str) -> None:
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        value = getattr(item, attr)
        if value in seen:
            raise ValueError(f"{key}[{i}].{attr}: {value!r} is already used by {key}[{seen[value]}]")
        seen[value] = i


def workbook_root() -> Path:
    """The directory relative paths are resolved against (see module docstring)."""
    env = os.environ.get("FLASHPOC_ROOT")
    if env:
        return Path(env).resolve()
    here = Path.cwd().resolve()
    for candidate in (here, *here.parents):
        if (candidate / "notebooks").is_dir() and (candidate / "parameters").is_dir():
            return candidate
    return here


def resolve_path(path: str | Path) -> Path:
    """Return ``path`` made absolute against :func:`workbook_root` (``~`` expanded)."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else workbook_root() / p


def _format_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part).startswith(("function-", "literal[")) or part in ("int", "float", "str", "list", "bool"):
            continue  # the branches of a union (iorate: max, curve or a number) are one key
        else:
            out += ("." if out else "") + str(part)
    return out


SUBKEY_RE = re.compile(r"^([a-z_]+)(?=: )")
SECRET_KEY_RE = re.compile(r"(_env|password\w*)$")
MAX_SHOWN_PROBLEMS = 3


def _format_problem(item: dict[str, Any]) -> tuple[str, str]:
    """``(key path, message)`` of one pydantic error."""
    loc = _format_loc(item["loc"])
    msg = item["msg"].removeprefix("Value error, ").replace("\n", " ")
    given = item.get("input")
    if item["type"] == "extra_forbidden":
        msg = "unknown key (check the spelling; see the notebooks' parameters cell)"
    elif item["type"] == "missing":
        msg = "required key is missing"
    elif isinstance(given, bool) and item["type"] in ("int_type", "float_type"):
        msg = f"expected a number, got {str(given).lower()} (a yes/no value)"
    elif item["type"] == "finite_number":
        msg = f"expected a finite number, got {given!r}"
    elif isinstance(given, (dict, list)) and item["type"].endswith("_type"):
        msg += f" (got a {'list' if isinstance(given, list) else 'mapping'})"
    elif (item["type"] != "value_error" and not isinstance(given, (dict, list))
          and not SECRET_KEY_RE.search(loc)):  # a password typed where a variable name goes is never echoed
        shown = repr(given)
        msg += f" (got {shown if len(shown) <= 60 else shown[:57] + '...'})"
    sub = SUBKEY_RE.match(msg) if loc else None  # a model's own check names the key it is about
    if sub:
        loc, msg = f"{loc}.{sub.group(1)}", msg[sub.end() + 2:]
    return loc, msg


def _format_errors(error: ValidationError, source: str) -> str:
    """One line: ``invalid parameters in SOURCE: key.path: message``, with the next problems after it
    (at most :data:`MAX_SHOWN_PROBLEMS`, then their count)."""
    problems: dict[str, str] = {}
    for item in error.errors():
        loc, msg = _format_problem(item)
        problems.setdefault(loc, msg)  # a union reports each branch: the first says enough
    shown = [f"{loc}: {msg}" if loc else msg for loc, msg in list(problems.items())[:MAX_SHOWN_PROBLEMS]]
    more = len(problems) - len(shown)
    return (f"invalid parameters in {source}: " + "; ".join(shown)
            + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""))


def campaign_from_dict(values: dict[str, Any], source: str = "parameters") -> Campaign:
    """Validate a parameter mapping and return the campaign.

    Keys whose value is None take their defaults (a notebook parameters cell uses None
    for "not set").

    Raises:
        ParameterError: one line naming the key path of each problem (the first few).
    """
    if not isinstance(values, dict):
        raise ParameterError(f"invalid parameters in {source}: expected a mapping of keys, got {type(values).__name__}")
    cleaned = {k: v for k, v in values.items() if v is not None}
    try:
        return Campaign.model_validate(cleaned)
    except ValidationError as error:
        raise ParameterError(_format_errors(error, source)) from None
    except (ValueError, TypeError, RecursionError) as error:  # raised outside pydantic's wrapping
        raise ParameterError(f"invalid parameters in {source}: {error}") from None


#: the campaign's keys, as a parameters file and a notebook's parameters cell write them
PARAMETER_KEYS = [key for key, field in Campaign.model_fields.items() if not field.exclude]

#: the notebooks' parameter naming a parameters file (see :func:`campaign_from_parameters`)
PARAMETERS_FILE = "parameters_file"


def notebook_parameters(values: dict[str, Any], parameters_file: str | Path | None = None) -> dict[str, Any]:
    """What a batch run injects into a notebook: ``parameters_file`` (the file ``values`` were read
    from: its absolute path), then every campaign key, None (the schema's default) for those
    ``values`` leaves out, so nothing of the notebook's own parameters cell is used."""
    return {PARAMETERS_FILE: None if parameters_file is None else str(Path(parameters_file).resolve()),
            **{key: values.get(key) for key in PARAMETER_KEYS}}


def check_results_dir(cfg: Campaign) -> Path:
    """Refuse a results directory the workbook must not write into, looking at this machine
    (read-only): a system directory once symbolic links are followed, a path through a file,
    or a directory it cannot create. Returns the campaign's results directory.

    Raises:
        ParameterError: naming ``results_dir`` (or ``$FLASHPOC_RESULTS_DIR`` when that is set).
    """
    key = "$FLASHPOC_RESULTS_DIR" if os.environ.get("FLASHPOC_RESULTS_DIR") else "results_dir"
    path = cfg.results_path()
    real = os.path.realpath(path)
    where = in_system_dir(real)
    if where:
        raise ParameterError(f"invalid parameters: {key}: {path.parent} is {where} (resolved: {Path(real).parent}); "
                             "choose a directory of your own")
    for existing in (path, *path.parents):
        if os.path.lexists(existing):
            break
    if not existing.is_dir():
        what = "a file" if existing.is_file() else "not a directory"
        raise ParameterError(f"invalid parameters: {key}: {existing} is {what}, so {path} cannot be created")
    if existing != path and not os.access(existing, os.W_OK | os.X_OK):
        raise ParameterError(f"invalid parameters: {key}: cannot create {path}: {existing} is not writable")
    return path


# -- parameters files ------------------------------------------------------------------------
_LoaderBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when present: 10x faster
ALLOWED_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "seq", "map")}


class _Loader(_LoaderBase):
    """The safe YAML loader with stricter mappings (:func:`_construct_mapping`); dates stay text."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _LoaderBase.yaml_implicit_resolvers.items()}


def _line(mark: Any) -> int:
    return mark.line + 1 if mark is not None else 0


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    """A mapping whose keys are words, each given once (YAML would keep the last); ``<<`` merges
    stay possible and their keys may be given again."""
    seen: set[str] = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        if not isinstance(key_node, yaml.ScalarNode):
            raise ParameterError(f"line {_line(key_node.start_mark)}: a list or mapping cannot be a key")
        key = loader.construct_object(key_node)
        if isinstance(key, bool):
            raise ParameterError(f"line {_line(key_node.start_mark)}: the key {key_node.value!r} reads as "
                                 f"{str(key).lower()} (YAML takes yes, no, on and off for true and false): "
                                 "keys are words such as campaign or hosts")
        if not isinstance(key, str):
            raise ParameterError(f"line {_line(key_node.start_mark)}: the key {key!r} is not a name "
                                 "(keys are words such as campaign or hosts)")
        if key in seen:
            raise ParameterError(f"duplicate key {key!r} at line {_line(key_node.start_mark)}")
        seen.add(key)
    loader.flatten_mapping(node)
    return {loader.construct_object(k, deep=deep): loader.construct_object(v, deep=deep) for k, v in node.value}


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _decode(data: bytes) -> str:
    """The text of a parameters file: UTF-8 (a byte-order mark is dropped).

    Raises:
        ValueError: saying why it is not (binary, UTF-16 or -32, another encoding).
    """
    head = data[:64]
    even, odd = head[0::2].count(0), head[1::2].count(0)  # UTF-16 without a mark: every other byte NUL
    if data.startswith((b"\xff\xfe", b"\xfe\xff", b"\0\0\xfe\xff")) or (min(even, odd) == 0 and max(even, odd) >= 8):
        raise ValueError("it is UTF-16 (or UTF-32) text: save it as UTF-8")
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise ValueError(f"it is not text (a NUL byte on line {line}): a parameters file is YAML text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise ValueError(f"it is not UTF-8 text (byte 0x{data[error.start]:02x} on line {line}): save it as "
                         "UTF-8") from None


def _yaml_problem(error: yaml.YAMLError, source: str) -> str:
    """One line of a YAML error in ``source``: where and what."""
    if isinstance(error, yaml.reader.ReaderError):  # a character YAML does not take
        line = source[:error.position].count("\n") + 1
        return f"line {line}: the control character U+{error.character:04X} is not allowed in YAML text"
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    context = getattr(error, "context", None)
    text = " ".join((f"{context}, {problem}" if context else problem).split())
    if mark is None:
        return text
    if 0 <= mark.index < len(source) and source[mark.index] == "\t":
        text += " (a tab: YAML indents with spaces)"
    return f"line {mark.line + 1}, column {mark.column + 1}: {text}"


def _scan(text: str) -> None:
    """Refuse, from the YAML events alone (before any value is built), what would take a parser's
    time, memory or stack: several documents, tags other than the plain ones, nesting deeper than
    :data:`MAX_DEPTH`, more than :data:`MAX_VALUES` values once aliases are expanded (an alias bomb).

    Raises:
        ValueError: saying what and on which line.
        yaml.YAMLError: the text is not YAML.
    """
    stack: list[list] = []  # open collections: [values, height, anchor]
    anchors: dict[str, tuple[int, int]] = {}  # anchor -> (values, height) of its node
    documents = 0

    def done(node: tuple[int, int], anchor: str | None, event: Any) -> None:
        if anchor:
            anchors[anchor] = node
        if not stack:
            return
        parent = stack[-1]
        parent[0] += node[0]
        parent[1] = max(parent[1], node[1])
        if len(stack) + node[1] > MAX_DEPTH:
            raise ValueError(f"line {_line(event.start_mark)}: nested more than {MAX_DEPTH} levels deep")
        if sum(level[0] for level in stack) > MAX_VALUES:
            raise ValueError(f"line {_line(event.start_mark)}: more than {MAX_VALUES} values once YAML aliases are "
                             "expanded (an alias bomb?)")

    for event in yaml.parse(text, Loader=_Loader):
        tag = getattr(event, "tag", None)
        if tag is not None and tag not in ALLOWED_TAGS:
            raise ValueError(f"line {_line(event.start_mark)}: the YAML tag {tag.replace('tag:yaml.org,2002:', '!!')} "
                             "is not allowed: parameters are plain values")
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise ValueError(f"line {_line(event.start_mark)}: a second YAML document ('---'): one campaign "
                                 "per file")
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            stack.append([1, 0, event.anchor])
            if len(stack) > MAX_DEPTH:
                raise ValueError(f"line {_line(event.start_mark)}: nested more than {MAX_DEPTH} levels deep")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            values, height, anchor = stack.pop()
            done((values, height + 1), anchor, event)
        elif isinstance(event, yaml.ScalarEvent):
            done((1, 0), event.anchor, event)
        elif isinstance(event, yaml.AliasEvent):
            done(anchors.get(event.anchor, (1, 0)), None, event)


@contextlib.contextmanager
def _closing(fd: int):
    """Close ``fd`` (not a regular file, so never read) on leaving."""
    try:
        yield None
    finally:
        os.close(fd)


def read_parameters_file(path: str | Path) -> dict[str, Any]:
    """Read a parameters YAML file into a mapping (not yet validated), refusing in a fraction of a
    second anything that is not a small UTF-8 YAML mapping (see :func:`_scan`).

    Raises:
        ParameterError: one line naming the file and what is wrong with it.
    """
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO must not block the open
    except OSError as error:
        raise ParameterError(f"cannot read parameters file {path}: {error.strerror}") from None
    with os.fdopen(fd, "rb", closefd=True) if stat.S_ISREG(os.fstat(fd).st_mode) else _closing(fd) as handle:
        mode, size = os.fstat(fd).st_mode, os.fstat(fd).st_size
        if stat.S_ISDIR(mode):
            raise ParameterError(f"cannot read parameters file {path}: it is a directory")
        if not stat.S_ISREG(mode):
            raise ParameterError(f"cannot read parameters file {path}: it is not a regular file (a device, pipe "
                                 "or socket)")
        data = b"" if size > MAX_FILE_BYTES else handle.read(MAX_FILE_BYTES + 1)
    if size > MAX_FILE_BYTES or len(data) > MAX_FILE_BYTES:
        raise ParameterError(f"cannot read parameters file {path}: it holds {max(size, len(data)):,} bytes; a "
                             f"parameters file is at most {MAX_FILE_BYTES // 1024**2} MiB")
    try:
        text = _decode(data)
    except ValueError as error:
        raise ParameterError(f"cannot read parameters file {path}: {error}") from None
    try:
        _scan(text)
        values = yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader (libyaml's or Python's)
    except ValueError as error:  # ParameterError too
        raise ParameterError(f"invalid parameters in {path}: {error}") from None
    except yaml.YAMLError as error:
        if "maximum nesting depth" in str(getattr(error, "problem", "")):  # PyYAML >= 6.0.4 stops deep nesting itself
            raise ParameterError(f"invalid parameters in {path}: line {_line(error.problem_mark)}: nested more than "
                                 f"{MAX_DEPTH} levels deep") from None
        raise ParameterError(f"{path} is not valid YAML: {_yaml_problem(error, text)}") from None
    if values is None:
        raise ParameterError(f"invalid parameters in {path}: the file is empty (expected a mapping of keys such as "
                             "campaign, hosts, targets)")
    if not isinstance(values, dict):
        raise ParameterError(f"invalid parameters in {path}: expected a mapping of keys at the top level, got "
                             f"{'a list' if isinstance(values, list) else 'a single value'}")
    return values


def load_campaign(path: str | Path, overrides: dict[str, Any] | None = None) -> Campaign:
    """Read, merge ``overrides`` (top-level keys) and validate a parameters file, and check that
    its results directory may be written (:func:`check_results_dir`)."""
    values = read_parameters_file(path)
    values.update(overrides or {})
    cfg = campaign_from_dict(values, source=str(path))
    _check_results_dir(cfg, str(path))
    return cfg


def _check_results_dir(cfg: Campaign, source: str) -> None:
    try:
        check_results_dir(cfg)
    except ParameterError as error:
        raise ParameterError(str(error).replace("invalid parameters:", f"invalid parameters in {source}:", 1)) from None


def campaign_from_parameters(namespace: dict[str, Any]) -> Campaign:
    """Build the campaign from a notebook's parameter variables (e.g. ``globals()``).

    ``parameters_file`` names a parameters file (relative to the workbook root, like every path
    of the parameters); every campaign key that is not None overrides the file's value of that
    key (a whole top-level key: ``sweep = {"points": 3}`` replaces the file's ``sweep:``). Without
    a file, None means the schema's default. ``flashpoc run`` injects ``parameters_file`` and
    every key (the file's values, None for those it leaves out).

    Raises:
        ParameterError: one line naming the key, the file or what is missing.
    """
    source = "the notebook's parameters"
    values: dict[str, Any] = {}
    name = namespace.get(PARAMETERS_FILE)
    if name is not None:
        if not isinstance(name, (str, Path)) or not str(name).strip():
            raise ParameterError(f"{PARAMETERS_FILE}: expected the path of a parameters file (YAML), got {name!r}")
        path = resolve_path(name)
        try:
            values = read_parameters_file(path)
        except ParameterError as error:
            absolute = Path(name).expanduser().is_absolute()
            where = "" if absolute else f" (relative to the workbook root {workbook_root()})"
            raise ParameterError(f"{PARAMETERS_FILE}: {error}{where}") from None
        source = f"{path} and the notebook's parameters"
    from .engines import engine_names

    given = {k: namespace[k] for k in [*PARAMETER_KEYS, *engine_names()] if namespace.get(k) is not None}
    if not values and not given:
        raise ParameterError(f"no parameters: set {PARAMETERS_FILE} in the parameters cell (e.g. "
                             "\"parameters/demo-local.yaml\", relative to the workbook root), or at least campaign, "
                             "hosts and targets")
    cfg = campaign_from_dict({**values, **given}, source=source)
    _check_results_dir(cfg, source)
    return cfg


_MOVED = {"FioSettings": "fio", "VdbenchSettings": "vdbench", "SlobSettings": "slob", "SlobWorkload": "slob",
          "slob_seed_workloads": "slob"}


def __getattr__(name: str) -> Any:
    """The engines' settings models, which live in their engine's folder (``engines/<name>/settings.py``)."""
    if name in _MOVED:
        import importlib

        return getattr(importlib.import_module(f"flashpoc.engines.{_MOVED[name]}.settings"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
