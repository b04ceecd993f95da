"""What a campaign runs on and runs: hosts, targets, workloads, the database and SQL settings."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, create_model, field_validator, model_validator

from flashpoc.core import registry
from flashpoc.core.errors import ParameterError
from flashpoc.params.common import (ENV_NAME_RE, FIO_RW, Flag, LOCAL_ADDRESSES, MAX_BLOCK_BYTES, MIN_WORKING_SET_BYTES,
                     Name, Size, USER_RE, WRITE_MODES, StrictModel, check_address, in_system_dir, parse_size)
from flashpoc.params.paths import (DEVICE_DIR, ControllerPath, HostCommand, HostPath, HostWrittenDir, KnownHostsPath, TargetPath,
                    fold)


class HostBase(StrictModel):
    """A load host. ``address: localhost`` runs locally; anything else over SSH. Each engine adds
    its own keys (:data:`HostParams`)."""

    name: Name = Field(description="short host name used in results and tables")
    address: str = Field("localhost", description="host name or IP; 'localhost' runs locally")
    user: str | None = Field(None, description="SSH user (default: the current user)")
    port: int = Field(22, ge=1, le=65535, description="SSH port")
    key_file: ControllerPath | None = Field(None, description="SSH private key; else the SSH agent")
    key_passphrase_env: str | None = Field(
        None, description="NAME of the environment variable holding key_file's passphrase (never the passphrase; "
                          "or load the key into ssh-agent and leave this unset)")
    known_hosts: KnownHostsPath | None = Field(None, description="known_hosts file (default ~/.ssh/known_hosts)")
    trust_unknown_host_key: Flag = Field(
        False, description="accept and record a host key not in known_hosts (first contact only)"
    )
    connect_timeout_s: float = Field(10.0, gt=0, le=600)
    command_timeout_s: float = Field(3600.0, gt=0, le=7 * 86400, description="upper bound for one command")
    workdir: HostWrittenDir = Field("/tmp/flashpoc", description="directory for job files on this host")

    @field_validator("address")
    @classmethod
    def _address(cls, value: str) -> str:
        return check_address(value)

    @field_validator("user")
    @classmethod
    def _user(cls, value: str | None) -> str | None:
        if value is not None and not USER_RE.match(value):
            raise ValueError(f"{value!r} is not a valid user name")
        return value

    @field_validator("key_passphrase_env")
    @classmethod
    def _passphrase_env(cls, value: str | None) -> str | None:
        return check_env_name(value)

    @model_validator(mode="after")
    def _passphrase_needs_key(self) -> HostBase:
        if self.key_passphrase_env and not self.key_file:
            raise ValueError("key_passphrase_env is the passphrase of key_file: give key_file too "
                             "(a key in ssh-agent needs neither)")
        return self

    @property
    def is_local(self) -> bool:
        """True when commands run on this machine without SSH."""
        return self.address in LOCAL_ADDRESSES


#: the kinds of key an engine may add to a host (its ``hostkeys.py``): what each holds
HOST_KEY_KINDS: dict[str, Any] = {
    "command": HostCommand,  # an executable on the host: a name found in its PATH, or a path
    "directory": HostPath | None,  # a directory on the host (an install), or none
    "count": int | None,  # a whole number (with ``limits``), or none
}


def _engine_host_fields() -> dict[str, Any]:
    """The pydantic fields of the keys the engines add to a host (:func:`flashpoc.core.registry.host_keys`)."""
    fields = {}
    for key, spec in registry.host_keys().items():
        if spec["kind"] not in HOST_KEY_KINDS:
            raise ValueError(f"hosts[].{key}: kind {spec['kind']!r} is not one of {sorted(HOST_KEY_KINDS)}")
        fields[key] = (HOST_KEY_KINDS[spec["kind"]],
                       Field(spec.get("default"), description=spec["description"], **spec.get("limits", {})))
    return fields


#: a load host: :class:`HostBase` and the keys each engine adds (e.g. its executable's path there)
HostParams = create_model("HostParams", __base__=HostBase, __module__=__name__, **_engine_host_fields())


class TargetParams(StrictModel):
    """A LUN, device or file the workloads run against."""

    name: Name
    path: TargetPath = Field(description="block device or file path on the hosts")
    size: Size | None = Field(None, description="working set, e.g. '1g' (required for files)")
    create: Flag = Field(False, description="create and fill the file if missing (scratch files)")
    allow_write: Flag = Field(
        False, description="write workloads may overwrite this target (implied by create)"
    )
    hosts: list[str] | None = Field(None, max_length=1024, description="hosts that use this target (default all)")

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
        folded = fold(self.path)  # '/dev/../boot/x.dat' is '/boot/x.dat'
        if folded.startswith(DEVICE_DIR) and self.create:
            raise ValueError(f"path: {self.path!r} is under /dev, which is never created (create: true is for "
                             "files)")
        where = in_system_dir(folded) if not folded.startswith(DEVICE_DIR) else None
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


class Workload(StrictModel):
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


def _pattern(value: str) -> re.Pattern[str]:
    """The user's regular expression ``value`` compiled (ASCII classes, as every pattern of the parameters),
    else a ValueError saying why: whatever ``re.compile`` raises (re.error, an OverflowError for
    ``a{4294967296}``, a RecursionError for thousands of nested groups) is one line."""
    try:
        return re.compile(value, re.ASCII)
    except Exception as error:  # noqa: BLE001 - anything re.compile raises is the pattern's fault
        shown = repr(value) if len(value) <= 60 else repr(value[:57]) + "..."
        reason = " ".join(str(error).split())[:120] or type(error).__name__
        raise ValueError(f"{shown} is not a regular expression flashpoc can use: {reason}") from None


def check_regex(value: str | None) -> str | None:
    """``value`` if it is a regular expression (or None), else a ValueError saying why (:func:`_pattern`)."""
    if value is not None:
        _pattern(value)
    return value


def compile_pattern(value: str, key: str) -> re.Pattern[str]:
    """The regular expression of the parameters ``key`` (e.g. ``database.nfs_mounts``) compiled where it
    is used, under the guard the validation used (:func:`check_regex`).

    Raises:
        ParameterError: naming ``key`` and why.
    """
    try:
        return _pattern(value)
    except ValueError as error:
        raise ParameterError(f"invalid parameters: {key}: {error}") from None


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


class DatabaseParams(StrictModel):
    """Where the database's datafiles are (``database:``): one fact of the database, read by every
    engine that runs against it (SLOB, a DBA's SQL job) and by the check and the report."""

    datafiles: Literal["local", "knfs", "dnfs"] | None = Field(
        None, description="where the datafiles are: 'local' (disks or LUNs: a SLOB point's time series is "
                          "iostat's), 'knfs' (NFS through the kernel's client: the NFS mounts' READ/WRITE from "
                          "/proc/self/mountstats), 'dnfs' (Oracle Direct NFS: neither sees its I/O, so a SLOB "
                          "point's series is the database's own counters, gv$sysstat and gv$system_event sampled "
                          "every 3 s through oracle:, and none without it); the check compares it with "
                          "v$dnfs_servers and the "
                          "report states it; unset counts as local and states nothing")
    nfs_mounts: str | None = Field(None, max_length=200,
                                   description="regular expression of the NFS mount points of the datafiles "
                                               "(datafiles: knfs; default every NFS mount)")
    host: HostParams | None = Field(None, description="the database's own host, reached like a host of hosts: "
                                                      "(never a load host): the check reads the transport, paths "
                                                      "and links of its ASM disks, datafiles' mounts or PostgreSQL "
                                                      "data directory there; default SLOB's db_host, or the load "
                                                      "host for HammerDB on a PostgreSQL at localhost")

    @field_validator("nfs_mounts")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        return check_regex(value)


class CalibrateIOParams(StrictModel):
    """``DBMS_RESOURCE_MANAGER.CALIBRATE_IO`` as a step of the check (``oracle.calibrate_io``)."""

    num_physical_disks: int = Field(ge=1, le=100000, description="physical disks (or SSDs) behind the data "
                                                                 "files, CALIBRATE_IO's num_physical_disks")
    max_latency_ms: int = Field(10, ge=10, le=10000, description="the largest latency (ms) allowed for "
                                                                 "db_block_size reads (CALIBRATE_IO's max_latency)")


class OracleParams(StrictModel):
    """How the workbook reaches the database through python-oracledb (thin); holds no secret.

    The password is read at connect time from the environment variable ``password_env`` of the
    machine running the workbook (or comes from the wallet); it is never a parameter.
    """

    dsn: str = Field(description="Easy Connect host:port/service, or a tnsnames alias with wallet_dir")
    user: str = Field("system", description="database user (AWR views need SELECT_CATALOG_ROLE)")
    password_env: str = Field("FLASHPOC_ORACLE_PASSWORD", description="NAME of the environment variable "
                                                                      "holding the password")
    wallet_dir: ControllerPath | None = None
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


class SqlWorkloadParams(StrictModel):
    """A DBA's own job: N concurrent sessions each running the same SQL*Plus script, timed,
    with AWR (or Statspack) snapshots around it; read through ``oracle``."""

    script: ControllerPath = Field(description="SQL*Plus script file (relative: to the workbook root)")
    sessions: int = Field(ge=1, le=1024, description="concurrent sessions, each running the whole script")
    label: Name = Field("run", description="name of this run in the comparison, e.g. 'undo-on-ssd'")
    description: str = ""
    awr_report: Literal["text", "html", "both"] = Field(
        "text", description="the AWR report stored with each run (generated through SQL with the Diagnostics Pack): "
                            "text (awr.txt), html (awr.html) or both")
    cpu_every_s: int = Field(5, ge=0, le=3600, description="seconds between the database host's vmstat samples "
                                                           "during the job (its CPU and iowait over time); 0: none")

