"""The ``engine: {slob: ...}`` settings block (:class:`SlobSettings`), validated by :class:`flashpoc.params.Campaign`."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from flashpoc.params import (EngineSettings, Flag, Name, some_workloads, StrictModel, ascii_note, check_env_name, check_regex,
                       slob_size_bytes)
from flashpoc.params.paths import HostPath, HostWrittenDir
from flashpoc.engines.slob.plan import SIZE_RE as SLOB_SIZE_RE
from flashpoc.engines.slob.plan import SlobConf


class SlobWorkload(StrictModel):
    """One SLOB workload: the slob.conf keys that make one I/O mix (the rest are in ``slob``).

    SLOB sessions run single-block (8K) random reads through the buffer cache; UPDATE_PCT of
    the operations are updates (DBWR writes and redo), SCAN_PCT full scans of a table of
    SCAN_TABLE_SZ per schema (multiblock reads).
    """

    name: Name
    update_pct: int = Field(ge=0, le=100, description="UPDATE_PCT: % of operations that update")
    scan_pct: int = Field(0, ge=0, le=100, description="SCAN_PCT: % of operations that scan")
    scan_table_sz: str | None = Field(None, description="SCAN_TABLE_SZ, e.g. '50G' (needed with scan_pct)")
    work_unit: int | None = Field(None, ge=1, le=1024, description="WORK_UNIT (default slob.work_unit)")
    redo_stress: Literal["LITE", "HEAVY"] | None = Field(None, description="REDO_STRESS (default slob.redo_stress)")
    description: str = ""

    @model_validator(mode="after")
    def _mix(self) -> SlobWorkload:
        if self.update_pct + self.scan_pct > 100:
            raise ValueError(f"update_pct + scan_pct must be <= 100 (the rest are selects), "
                             f"got {self.update_pct} + {self.scan_pct}")
        if self.scan_pct and self.scan_table_sz is None:
            raise ValueError("scan_pct > 0 needs scan_table_sz (the scan table's size, e.g. '50G')")
        return self

    @property
    def rw(self) -> str:
        """Engine I/O mode column of the results: always ``slob``."""
        return "slob"

    @property
    def bs(self) -> str:
        """Oracle's block size SLOB reads and writes (8K)."""
        return "8k"

    @property
    def rwmixread(self) -> None:
        """Not a fixed read share: writes depend on DBWR and redo, so the measured split is reported."""
        return None

    @property
    def writes(self) -> bool:
        """True when the workload updates (DBWR and redo writes)."""
        return self.update_pct > 0


def slob_seed_workloads() -> list[dict[str, Any]]:
    """The SLOB workloads used unless the parameters name others (ENGINES.md seeds)."""
    return [
        {"name": "slob-8020", "update_pct": 20,
         "description": "SLOB 80% select / 20% update, random single-block I/O"},
        {"name": "slob-read", "update_pct": 0,
         "description": "SLOB 100% select, random single-block reads"},
    ]


class SlobSettings(EngineSettings):
    """The SLOB engine: where SLOB lives on the DB host and the slob.conf shared by every point.

    Threads of the probe and sweep are SLOB's threads per schema (``runit.sh -t``); every run
    uses all ``schemas`` (``runit.sh -s``), so the working set stays the whole SLOB data set.
    """

    db_host: str | None = Field(None, description="host that runs runit.sh (default the first host)")
    home: HostWrittenDir = Field("SLOB", description="SLOB directory on the DB host (relative: to the user's home; "
                                                     "flashpoc writes its slob.conf there)")
    env_file: HostPath | None = Field(None, description="file sourced before runit.sh (ORACLE_HOME, ORACLE_SID, PATH)")
    schemas: int | None = Field(None, ge=1, le=4096, description="SLOB schemas loaded by setup.sh (all are used)")
    scale: str | None = Field(None, description="SCALE per schema, e.g. '8G' or '655360M'")
    run_time_s: int = Field(300, ge=10, le=86400, description="RUN_TIME (s) per point")
    work_loop: int = Field(0, ge=0, le=10**9, description="WORK_LOOP (0: run for RUN_TIME)")
    work_unit: int = Field(64, ge=1, le=1024, description="WORK_UNIT")
    redo_stress: Literal["LITE", "HEAVY"] = "LITE"
    load_parallel_degree: int = Field(4, ge=1, le=1024, description="LOAD_PARALLEL_DEGREE (setup.sh)")
    database_statistics_type: Literal["awr", "statspack"] = "awr"
    admin_sqlnet_service: str | None = None
    sqlnet_service_base: str | None = None
    sqlnet_service_max: int | None = Field(None, ge=1, le=4096)
    dba_priv_user: str | None = None
    sysdba_passwd_env: str | None = Field(
        None, description="NAME of the DB host's environment variable holding SYSDBA_PASSWD (never the password)")
    do_hotspot: Flag | None = None
    hotspot_mb: int | None = Field(None, ge=0, le=10**9)
    hotspot_offset_mb: int | None = Field(None, ge=0, le=10**9)
    hotspot_frequency: int | None = Field(None, ge=0, le=10**9)
    hot_schema_frequency: int | None = Field(None, ge=0, le=10**9)
    think_tm_frequency: int | None = Field(None, ge=0, le=10**9)
    think_tm_min: float | None = Field(None, ge=0, le=86400)
    think_tm_max: float | None = Field(None, ge=0, le=86400)
    obfuscate_columns: Flag | None = Field(None, description="OBFUSCATE_COLUMNS: realistic data for arrays that compress")
    iostat_devices: str | None = Field(None, max_length=200,
                                       description="regular expression of the DB host's devices whose iostat I/O makes "
                                                   "each point's time series (default: whole sd/nvme/vd disks, no dm or "
                                                   "md devices, which would count multipath or LVM I/O twice)")
    #: keys added later, left out of the measurement hash at these values so that the campaigns
    #: measured before them keep their hash (and their stored points); ``database.datafiles`` and
    #: ``nfs_mounts`` are hashed in this block (Engine.hashed_database), where they were first
    hash_defaults: ClassVar[dict[str, Any]] = {"datafiles": "local", "nfs_mounts": None}
    workloads: list[SlobWorkload] = Field(default_factory=lambda: [SlobWorkload(**w) for w in slob_seed_workloads()],
                                          max_length=256)

    @classmethod
    def secret_env_key(cls, key: str) -> str | None:
        return "sysdba_passwd_env"

    @field_validator("sysdba_passwd_env")
    @classmethod
    def _passwd_env(cls, value: str | None) -> str | None:
        return check_env_name(value)

    @model_validator(mode="before")
    @classmethod
    def _moved(cls, data: Any) -> Any:
        moved = [key for key in ("datafiles", "nfs_mounts") if isinstance(data, dict) and key in data]
        if moved:
            raise ValueError(f"{moved[0]}: state it once as database.{moved[0]} (the database's, read by every engine)")
        return data

    @field_validator("iostat_devices")
    @classmethod
    def _devices(cls, value: str | None) -> str | None:
        return check_regex(value)

    @field_validator("scale")
    @classmethod
    def _scale(cls, value: str | None) -> str | None:
        if value is not None and not SLOB_SIZE_RE.match(value):
            raise ValueError(f"{value!r} is not a SLOB size (e.g. '8G', '655360M' or a count of 8K blocks)"
                             f"{ascii_note(value)}")
        return value

    @field_validator("workloads", mode="before")
    @classmethod
    def _default_workloads(cls, value: Any) -> Any:
        return slob_seed_workloads() if value is None else some_workloads(value)

    def conf(self, workload: SlobWorkload, threads: int | None = None):
        """The validated :class:`~flashpoc.engines.slob.plan.SlobConf` of ``workload`` (THREADS_PER_SCHEMA ``threads``).

        Raises:
            ParameterError: the combination is not a valid slob.conf.
        """
        return SlobConf(
            update_pct=workload.update_pct, scan_pct=workload.scan_pct, run_time=self.run_time_s,
            work_loop=self.work_loop, scale=self.scale, scan_table_sz=workload.scan_table_sz,
            work_unit=workload.work_unit or self.work_unit, redo_stress=workload.redo_stress or self.redo_stress,
            load_parallel_degree=self.load_parallel_degree, threads_per_schema=threads,
            database_statistics_type=self.database_statistics_type,
            admin_sqlnet_service=self.admin_sqlnet_service, sqlnet_service_base=self.sqlnet_service_base,
            sqlnet_service_max=self.sqlnet_service_max, dba_priv_user=self.dba_priv_user,
            sysdba_passwd_env=self.sysdba_passwd_env, do_hotspot=self.do_hotspot, hotspot_mb=self.hotspot_mb,
            hotspot_offset_mb=self.hotspot_offset_mb, hotspot_frequency=self.hotspot_frequency,
            hot_schema_frequency=self.hot_schema_frequency, think_tm_frequency=self.think_tm_frequency,
            think_tm_min=self.think_tm_min, think_tm_max=self.think_tm_max,
            obfuscate_columns=self.obfuscate_columns)

    @property
    def scale_bytes(self) -> int | None:
        """SCALE in bytes (a plain number is a count of 8K blocks, as SLOB reads it), or None."""
        return None if self.scale is None else slob_size_bytes(self.scale)


SETTINGS = SlobSettings
