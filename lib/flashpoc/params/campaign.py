"""The campaign model: everything that defines a POC campaign, and its engine block."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from pydantic import (BaseModel, Field, PrivateAttr, SerializeAsAny, ValidationError, field_validator,
                      model_serializer, model_validator)

from flashpoc.core.errors import ParameterError
from flashpoc.core.registry import campaign_keys, default_engine, engine_names, engine_settings, get_engine
from flashpoc.params.caveats import campaign_warnings
from flashpoc.params.common import Name, Size, StrictModel, parse_size, resolve_path
from flashpoc.params.models import (DatabaseParams, HostParams, OracleParams, SqlWorkloadParams, TargetParams, Workload,
                     standard_workloads)
from flashpoc.params.paths import ResultsPath, fold
from flashpoc.params.settings import ArraySettings, PreconditionSettings, ProbeSettings, ReportSettings, SweepSettings


class Campaign(StrictModel):
    """Everything that defines a POC campaign."""

    campaign: Name = Field(description="campaign name: results go to results_dir/campaign")
    description: str = ""
    engine: str = Field(default_factory=default_engine, description="the load generator and its settings: a name (fio, vdbench, slob, "
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
    results_dir: ResultsPath = "results"
    destroy_data_on: list[Name] = Field(default_factory=list, max_length=4096,
                                        description="targets (by name) whose existing data (file system, partition "
                                                    "table, LVM or ASM header) write workloads may destroy")
    #: the paths as given where this campaign holds them as expanded on their hosts
    #: (:func:`flashpoc.hosts.paths.with_paths`), by ``(hosts|targets, name, key)`` or ``(settings, key)``
    _given_paths: dict[tuple[str, ...], str] = PrivateAttr(default_factory=dict)

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
        return standard_workloads() if value is None else some_workloads(value)

    @field_validator("results_dir")
    @classmethod
    def _results(cls, value: str) -> str:
        if ".." in value.split("/"):
            raise ValueError(f"{value!r} climbs out with '..': give an absolute path for results outside the workbook")
        return value

    @model_validator(mode="after")
    def _cross_checks(self) -> Campaign:
        if self.settings is None:  # the engine block is wrong (see _engine_block): nothing to check against
            return self
        check_unique(self.hosts, "name", "hosts")
        check_unique(self.targets, "name", "targets")
        check_unique(self.workloads, "name", "workloads")
        host_names = {h.name for h in self.hosts}
        _check_compared(self)
        if self.sql_workload is not None and self.oracle is None:
            raise ValueError("sql_workload: needs oracle (dsn, user) to run the script and take AWR snapshots")
        engine = self.engine_object
        if self.sweep.plan == "rate-curve" and (why := engine.rate_curve_refusal(self)):
            raise ValueError(f"sweep.plan: engine {self.engine} {why}")
        if engine.data_elsewhere(self) is None and not self.targets:
            raise ValueError(f"targets: at least one target (LUN, device or file) is needed for engine {self.engine}")
        _check_targets(self, host_names)
        _check_names(self)
        engine.check_params(self, host_names)
        _check_unwritten(self)
        return self

    @property
    def warnings(self) -> list[str]:
        """What these parameters hold that is no reason to refuse them but worth a look, one line
        each, naming the key (:func:`.caveats.campaign_warnings`): ``flashpoc validate`` and ``flashpoc
        run`` print them, and the environment check shows them as ``warn`` rows."""
        return campaign_warnings(self)

    # -- derived values -------------------------------------------------------------
    @property
    def engine_object(self):
        """The campaign's engine (:func:`flashpoc.core.registry.get_engine`)."""
        return get_engine(self.engine)

    @property
    def job_objects(self) -> list[Any]:
        """The engines this campaign runs besides its own, each set by a top-level key of the parameters
        (:func:`flashpoc.core.registry.campaign_keys`: a DBA's job by ``sql_workload``)."""
        return [self.key_engine(key) for name, key in campaign_keys().items()
                if name != self.engine and getattr(self, key, None) is not None]

    def key_engine(self, key: str):
        """The engine that runs what the top-level key ``key`` of the parameters sets, whatever the
        campaign's engine (:func:`flashpoc.core.registry.campaign_keys`: a DBA's job for ``sql_workload``).

        Raises:
            KeyError: no engine runs ``key``.
        """
        found = [name for name, said in campaign_keys().items() if said == key]
        if not found:
            raise KeyError(f"no engine runs {key!r}")
        return get_engine(found[0])

    @property
    def engine_workloads(self) -> list[Any]:
        """The workloads of the campaign's engine (:class:`Workload`; ``slob.workloads`` for SLOB)."""
        return self.engine_object.workloads(self)

    @property
    def workload_names(self) -> list[str]:
        """Names of :attr:`engine_workloads`, in parameter order."""
        return [w.name for w in self.engine_workloads]

    @property
    def probe_workload(self) -> Any:
        """The workload the saturation probe uses (a :class:`Workload`, or SLOB's ``SlobWorkload``)."""
        name = self.probe.workload or self.workload_names[0]
        return self.workload(name)

    @property
    def sweep_workloads(self) -> list[Any]:
        """The workloads of the fine sweep, in parameter order."""
        names = self.sweep.workloads or self.workload_names
        return [self.workload(n) for n in names]

    def workload(self, name: str) -> Any:
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
        if self.engine_object.data_elsewhere(self) is not None:
            return False
        return target.create or (target.writable and (self.precondition.fill or any(w.writes for w in self.workloads)))

    def params_hash(self) -> str:
        """Short stable hash of every parameter (the campaign's identity in the manifest)."""
        if self._given_paths:  # its identity is that of the parameters as given
            return self.as_given().params_hash()
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
        if self._given_paths:
            return self.as_given().measurement_hash()
        include = {"engine", "hosts", "targets"} | ({"workloads"} - self.engine_object.manifest_exclude)
        dumped = self.model_dump(mode="json", include=include)
        dumped[self.engine] = self.settings.model_dump(mode="json")  # as when each engine had a top-level key
        # stored in the engine's block before database: existed (SLOB's datafiles)
        dumped[self.engine].update(self.engine_object.hashed_database(self))
        for key, default in self.settings.hash_defaults.items():  # keys added later, unset
            if dumped[self.engine].get(key, default) == default:
                dumped[self.engine].pop(key, None)
        for host in dumped["hosts"]:  # added later; unset, it leaves the hashes of earlier campaigns as they were
            if host.get("key_passphrase_env") is None:
                host.pop("key_passphrase_env", None)
        for key in self.settings.not_defining_a_point(len(self.hosts)):  # e.g. how hosts reach each other
            dumped[self.engine].pop(key, None)
        text = json.dumps(dumped, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def results_path(self) -> Path:
        """Absolute directory of this campaign's results."""
        base = os.environ.get("FLASHPOC_RESULTS_DIR") or self.results_dir
        return resolve_path(base) / self.campaign

    def results_roots(self) -> dict[str, Path]:
        """The results directory of this campaign and of each ``report.compare`` campaign, by its
        configuration label (the ``config`` of compared points); asked of the resolved campaign."""
        roots = {self.report.label or self.campaign: self.results_path()}
        roots.update({other.label or other.campaign: self.compared_root(other) for other in self.report.compare})
        return roots

    def compared_root(self, other) -> Path:
        """The results directory of ``other``, one of ``report.compare``: its own ``results_dir``, else
        this campaign's."""
        return (resolve_path(other.results_dir) if other.results_dir else self.results_path().parent) / other.campaign

    def as_given(self) -> Campaign:
        """This campaign with the paths it holds as expanded on their hosts put back as given (a
        copy of fewer hosts too: the paths are kept by host and target name)."""
        given = self._given_paths

        def back(model: BaseModel, *where: str) -> BaseModel:
            keys = {key: given[(*where, key)] for key in type(model).model_fields if (*where, key) in given}
            return model.model_copy(update=keys) if keys else model

        out = self.model_copy(update={"hosts": [back(h, "hosts", h.name) for h in self.hosts],
                                      "targets": [back(t, "targets", t.name) for t in self.targets],
                                      "settings": back(self.settings, "settings") if self.settings else None})
        out._given_paths = {}
        return out

    def resolved(self) -> Campaign:
        """A copy with relative target paths and key files made absolute (see module docstring); a
        target's ``~`` is expanded here only when no remote host uses it (its hosts expand it)."""
        remote = {h.name for h in self.hosts if not h.is_local}
        targets = [
            t.model_copy(update={"path": str(resolve_path(t.path))})
            if not Path(t.path).is_absolute() and not (t.path.startswith("~") and remote & set(t.hosts or remote))
            else t for t in self.targets
        ]
        hosts = [_resolved_host(h) for h in self.hosts]
        database = self.database if self.database.host is None else self.database.model_copy(
            update={"host": _resolved_host(self.database.host)})
        return self.model_copy(update={"targets": targets, "hosts": hosts, "database": database})


def _resolved_host(host: HostParams) -> HostParams:
    """``host`` with its key file and known_hosts made absolute."""
    return host.model_copy(update={k: str(resolve_path(getattr(host, k))) for k in ("key_file", "known_hosts")
                                   if getattr(host, k) and not Path(getattr(host, k)).expanduser().is_absolute()})


def _engine_choice(data: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Split the ``engine:`` block of ``data`` into ``engine`` (the name) and ``settings`` (the
    engine's settings model, validated); return the data and the problems found (pydantic's error
    records, each naming its key).

    ``engine`` is a name (the engine with its default settings) or a mapping of one name to its
    settings. Parameters of the earlier format, with the name in ``engine`` and the settings under a
    top-level key named after the engine (``fio:``, ``vdbench:``, ``slob:``), load the same; such a
    block of another engine is validated and left unused, as it always was.
    """
    problems: list[dict[str, Any]] = []

    def problem(loc: tuple[Any, ...], message: str) -> None:
        problems.append({"type": "value_error", "loc": loc, "input": None, "ctx": {"error": ValueError(message)}})

    if "settings" in data:
        problems.append({"type": "extra_forbidden", "loc": ("settings",), "input": data.pop("settings")})
    block = data.get("engine")
    name = default_engine()
    settings, where = None, ("engine", name)
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
    data["engine"] = name if name in names else default_engine()
    if name in names:
        data["settings"] = _engine_settings(name, settings, where, problems)
        if "hosts" not in data:  # an engine that needs no load host names its own (sqlscript: this machine)
            default = [dict(h) for h in get_engine(name).default_hosts]
            if default:
                data["hosts"] = default
    return data, problems


def _engine_settings(name: str, given: Any, where: tuple[Any, ...], problems: list[dict[str, Any]]) -> Any:
    """``given`` validated by engine ``name``'s settings model (None: its defaults); its problems,
    named under ``where``, are added to ``problems``."""
    try:
        return engine_settings(name).model_validate({} if given is None else given)
    except ValidationError as error:
        problems += [{**e, "loc": where + tuple(e["loc"])} for e in error.errors()]
        return None


def some_workloads(value: Any) -> Any:
    if value == []:
        raise ValueError("no workloads: leave workloads out for the standard ones, or list at least one")
    return value


def check_unique(items: list[BaseModel], attr: str, key: str) -> None:
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        value = getattr(item, attr)
        if value in seen:
            raise ValueError(f"{key}[{i}].{attr}: {value!r} is already used by {key}[{seen[value]}]")
        seen[value] = i


def _check_compared(cfg: Campaign) -> None:
    """The compared campaigns' labels are unique and none is this campaign."""
    labels = [cfg.report.label or cfg.campaign] + [c.label or c.campaign for c in cfg.report.compare]
    for i, label in enumerate(labels[1:]):
        if label in labels[: i + 1]:
            raise ValueError(f"report.compare[{i}]: the label {label!r} is already used; give each campaign "
                             f"its own label")
    for i, other in enumerate(cfg.report.compare):
        if other.campaign == cfg.campaign and (other.results_dir or cfg.results_dir) == cfg.results_dir:
            raise ValueError(f"report.compare[{i}].campaign: {other.campaign!r} is this campaign")


def _check_targets(cfg: Campaign, host_names: set[str]) -> None:
    """Each target's hosts exist, no two targets of a host share a path, and each holds a block of the
    largest block size (for an engine with targets)."""
    engine = cfg.engine_object
    for i, target in enumerate(cfg.targets):
        for name in target.hosts or []:
            if name not in host_names:
                raise ValueError(f"targets[{i}].hosts: no host named {name!r} (hosts: {sorted(host_names)})")
    by_path: dict[str, list[int]] = {}
    for i, target in enumerate(cfg.targets):
        path = fold(target.path)  # 'x.dat' and './x.dat' are one file
        for j in by_path.get(path, []):
            if set(cfg.targets[j].hosts or host_names) & set(target.hosts or host_names):
                raise ValueError(f"targets[{i}].path: {target.path!r} is the file of targets[{j}].path "
                                 f"({cfg.targets[j].path!r}): name each target once")
        by_path.setdefault(path, []).append(i)
    if engine.data_elsewhere(cfg) is None:
        largest = max(cfg.workloads, key=lambda w: parse_size(w.bs))
        for i, target in enumerate(cfg.targets):
            if target.size_bytes is not None and target.size_bytes < parse_size(largest.bs):
                raise ValueError(f"targets[{i}].size: {target.size} is smaller than the block size {largest.bs} "
                                 f"of workload {largest.name}")


def _check_unwritten(cfg: Campaign) -> None:
    """An engine that writes no target (its data is the database's) refuses what would write one."""
    elsewhere = cfg.engine_object.data_elsewhere(cfg)
    if elsewhere is None:
        return
    why = f"engine {cfg.engine} writes no target ({elsewhere})"
    if cfg.precondition.write_rounds:
        raise ValueError(f"precondition.write_rounds: {why}, so no round would run; leave write_rounds out")
    for i, target in enumerate(cfg.targets):
        if target.create:
            raise ValueError(f"targets[{i}].create: {why}, so no scratch file is created; leave create out")
    if cfg.destroy_data_on:
        raise ValueError(f"destroy_data_on: {why}: nothing would be destroyed")


def _check_names(cfg: Campaign) -> None:
    """The workloads and targets named elsewhere exist, and no workload writes where a target forbids it."""
    workload_names = cfg.workload_names
    if cfg.probe.workload is not None and cfg.probe.workload not in workload_names:
        raise ValueError(f"probe.workload: no workload named {cfg.probe.workload!r} (workloads: {workload_names})")
    for name in cfg.sweep.workloads or []:
        if name not in workload_names:
            raise ValueError(f"sweep.workloads: no workload named {name!r} (workloads: {workload_names})")
    target_names = [t.name for t in cfg.targets]
    for name in cfg.destroy_data_on:
        if name not in target_names:
            raise ValueError(f"destroy_data_on: no target named {name!r} (targets: {target_names})")
        if not next(t for t in cfg.targets if t.name == name).writable:
            raise ValueError(f"destroy_data_on: target {name!r} does not allow writes (allow_write: false): "
                             "nothing would be destroyed")
    for name in cfg.precondition.filled_elsewhere:
        if name not in target_names:
            raise ValueError(f"precondition.filled_elsewhere: no target named {name!r} (targets: {target_names})")
    read_only = [t.name for t in cfg.targets if not t.writable]
    if read_only and cfg.engine_object.data_elsewhere(cfg) is None:
        for i, workload in enumerate(cfg.workloads):
            if workload.writes:
                raise ValueError(
                    f"workloads[{i}] ({workload.name}) writes, but targets {read_only} do not allow writes: "
                    "set allow_write: true on a target only if its data may be destroyed"
                )
