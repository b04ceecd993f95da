"""Path keys: which parameters name a path, where it lives, whether the workbook writes there, and
what is refused once the path is canonical (pure: no I/O).

Every parameter that names a path is typed with one of the annotated types below, whose
:class:`PathRole` says where the path lives (this machine, which runs the workbook, or a load
host), whether the workbook writes there and what a relative path is relative to.
:func:`path_values` lists every path of a campaign with its key (``targets[0].path``,
``hosts[1].workdir``, ``engine.slob.home``) and the hosts it lives on, found through those types,
so a new path key is covered as soon as it is typed as one (``tests/params/test_path_keys.py``
refuses a text key that is neither a path nor named as no path).

A path is judged once it is canonical: ``~`` and ``~user`` expanded, symbolic links resolved and
``.``, ``..`` and repeated slashes folded, on the host where it lives
(:func:`flashpoc.hosts.paths.canonical_paths`). Validation, which does no I/O, judges what the text
alone says (:func:`fold`: ``/dev/../boot/x.dat`` is ``/boot/x.dat``); the check phase and the
phases judge the canonical path on each host (:func:`refusal`, :func:`same_files`) before anything
is written there.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import AfterValidator, BaseModel

from flashpoc.params.common import USER_RE, _check_path, in_system_dir

DEVICE_DIR = "/dev/"
"""Block devices live here: a target under it may be written (never created); the data-safety check guards it."""


@dataclass(frozen=True)
class PathRole:
    """Where a path key lives and what the workbook does there (in the key's annotated type).

    ``lives``: ``controller`` (this machine, which runs the workbook) or ``host`` (each host that
    uses it). ``writes``: ``no``; ``yes``; ``target`` (a target: when the campaign writes it,
    :meth:`flashpoc.params.Campaign.written`); ``trusted`` (a known_hosts file: with
    ``trust_unknown_host_key``). ``base``: a relative path is relative to the workbook root or
    to the user's home. ``command``: a bare name is a command looked up in PATH, not a path.
    """

    lives: Literal["controller", "host"]
    writes: Literal["no", "yes", "target", "trusted"] = "no"
    base: Literal["root", "home"] = "root"
    command: bool = False


def _tilde(value: str) -> str:
    """A path may start with ``~`` or ``~user`` (a user name), nothing else after the ``~``."""
    if value.startswith("~"):
        user = value[1:].split("/", 1)[0]
        if user and not USER_RE.match(user):
            raise ValueError(f"{value!r}: '~' is followed by a user name or '/' (e.g. ~/poc, ~oracle/poc)")
    return value


def _path(value: str) -> str:
    return _tilde(_check_path(value))


def _written_path(value: str) -> str:
    """A path the workbook writes into: not a system directory, as far as the text says (:func:`fold`)."""
    where = in_system_dir(fold(_path(value)))
    if where:
        raise ValueError(f"{value!r} is {where}: the workbook writes there; choose a directory of your own")
    return value


#: a file or directory of this machine that the workbook reads (relative: to the workbook root)
ControllerPath = Annotated[str, PathRole("controller"), AfterValidator(_path)]
#: a known_hosts file of this machine, written with trust_unknown_host_key
KnownHostsPath = Annotated[str, PathRole("controller", "trusted"), AfterValidator(_path)]
#: a directory of this machine that the workbook writes into (results)
ResultsPath = Annotated[str, PathRole("controller", "yes"), AfterValidator(_written_path)]
#: a file or directory of a host that the workbook reads (relative: to the user's home there)
HostPath = Annotated[str, PathRole("host", base="home"), AfterValidator(_path)]
#: a directory of a host that the workbook writes into (job files, SLOB's slob.conf)
HostWrittenDir = Annotated[str, PathRole("host", "yes", "home"), AfterValidator(_written_path)]
#: an executable of a host: a name looked up in PATH, or a path
HostCommand = Annotated[str, PathRole("host", base="home", command=True), AfterValidator(_path)]
#: a target's device or file on its hosts (relative: to the workbook root)
TargetPath = Annotated[str, PathRole("host", "target"), AfterValidator(_path)]


def fold(path: str) -> str:
    """``path`` with ``.``, ``..`` and repeated slashes folded as far as the text says: a leading
    ``~`` or ``~user`` is kept (what it stands for is known on its host only) and a relative path
    stays relative (a ``..`` it starts with is kept). Symbolic links are not followed: the canonical
    path on its host (:func:`flashpoc.hosts.paths.canonical_paths`) follows them."""
    if path.startswith("/"):
        return "/" + posixpath.normpath(path).lstrip("/")  # normpath keeps a leading '//'
    if not path.startswith("~"):
        return posixpath.normpath(path)
    head, _, rest = path.partition("/")
    rest = rest.lstrip("/")
    folded = posixpath.normpath(rest) if rest else "."
    return head if folded == "." else f"{head}/{folded}"


@dataclass(frozen=True)
class PathValue:
    """One path of a campaign: its key, the value given, its role, the hosts it lives on (none: this
    machine), whether the campaign writes there and whether it creates it (a scratch file)."""

    key: str
    value: str
    role: PathRole
    hosts: tuple[str, ...]
    written: bool
    creates: bool = False

    @property
    def is_path(self) -> bool:
        """False for a command named without a path (``fio``: looked up in PATH)."""
        return not (self.role.command and "/" not in self.value and not self.value.startswith("~"))


def role_of(field: Any) -> PathRole | None:
    """The :class:`PathRole` of a pydantic field (its annotated type, alone or in an optional), or None."""
    found = [m for m in getattr(field, "metadata", ()) if isinstance(m, PathRole)]
    todo = [getattr(field, "annotation", None)]
    while todo and not found:
        annotation = todo.pop()
        if get_origin(annotation) is Annotated:
            found = [m for m in annotation.__metadata__ if isinstance(m, PathRole)]
        todo += get_args(annotation)
    return found[0] if found else None


def path_values(cfg: Any) -> list[PathValue]:
    """Every path of the campaign ``cfg`` (a :class:`flashpoc.params.Campaign`), in parameter order:
    ``hosts[i]``'s live on that host, ``targets[i]``'s on the hosts that use it, the engine's on
    the hosts its engine names (:meth:`flashpoc.engines.base.Engine.path_hosts`), the others on
    this machine or every host. ``$FLASHPOC_RESULTS_DIR``, when set, stands for ``results_dir``."""
    every = tuple(h.name for h in cfg.hosts)
    out: list[PathValue] = []
    for name in type(cfg).model_fields:
        value = getattr(cfg, name)
        if name == "hosts":
            for i, host in enumerate(value):
                _walk(cfg, host, f"hosts[{i}]", (host.name,), out)
        elif name == "targets":
            for i, target in enumerate(value):
                users = tuple(h for h in every if target.hosts is None or h in target.hosts)
                _walk(cfg, target, f"targets[{i}]", users, out)
        elif name == "settings":
            if value is not None:
                hosts = tuple(h.name for h in cfg.engine_object.path_hosts(cfg))
                _walk(cfg, value, f"engine.{cfg.engine}", hosts, out)
        else:
            _field(cfg, cfg, name, name, every, out)
    env = os.environ.get("FLASHPOC_RESULTS_DIR")
    return [PathValue("$FLASHPOC_RESULTS_DIR", env, p.role, p.hosts, p.written) if p.key == "results_dir" and env
            else p for p in out]


def _walk(cfg: Any, model: BaseModel, prefix: str, hosts: tuple[str, ...], out: list[PathValue]) -> None:
    for name in type(model).model_fields:
        _field(cfg, model, name, f"{prefix}.{name}", hosts, out)


def _field(cfg: Any, model: BaseModel, name: str, key: str, hosts: tuple[str, ...], out: list[PathValue]) -> None:
    """The paths of ``model``'s field ``name`` (a path, a model or a list of models), under ``key``."""
    value = getattr(model, name)
    role = role_of(type(model).model_fields[name])
    if role is not None and isinstance(value, str):
        written = {"no": False, "yes": True, "target": role.writes == "target" and cfg.written(model),
                   "trusted": bool(getattr(model, "trust_unknown_host_key", False))}[role.writes]
        creates = role.writes == "target" and written and bool(getattr(model, "create", False))
        out.append(PathValue(key, value, role, hosts if role.lives == "host" else (), written, creates))
    elif isinstance(value, BaseModel):
        _walk(cfg, value, key, hosts, out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, BaseModel):
                _walk(cfg, item, f"{key}[{i}]", hosts, out)


def refusal(found: PathValue, real: str, where: str) -> str | None:
    """Why the workbook may not write at the canonical path ``real`` of ``found`` (on ``where``, a
    host's name or ``this machine``), or None: a path it writes lies in a system directory
    (:func:`flashpoc.params.in_system_dir`); a target's device under /dev may be written (never
    created), the data-safety check guards it."""
    if not found.written:
        return None
    if found.role.writes == "target" and not found.creates and real.startswith(DEVICE_DIR):
        return None
    system = in_system_dir(real)
    if system is None:
        return None
    what = "creates" if found.creates else "writes"
    shown = found.value if real == found.value else f"{found.value} ({real} on {where})"
    return f"{found.key}: {shown} is {system}, and the workbook {what} there; choose a path of your own"


def same_files(values: list[PathValue], real: dict[str, str], where: str) -> list[str]:
    """One line for each target named twice on ``where``: two target paths whose canonical paths
    (``real``, by key) are one file (``x.dat`` and ``./x.dat``, a symbolic link and its file)."""
    seen: dict[str, str] = {}
    lines = []
    for found in values:
        if found.role.writes != "target" or found.key not in real:
            continue
        first = seen.setdefault(real[found.key], found.key)
        if first != found.key:
            lines.append(f"{found.key}: {found.value} is the file of {first} ({real[found.key]} on {where}): "
                         "name each target once")
    return lines
