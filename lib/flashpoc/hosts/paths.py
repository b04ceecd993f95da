"""Paths made canonical on the host where they live, then judged, before anything is written there.

:func:`canonical_paths` is the one function that makes a path canonical: one read-only POSIX shell
command on the host (through the host interface, every value quoted, nothing evaluated) expands a
leading ``~`` (``$HOME``) or ``~user`` (the user's home from ``getent passwd``, else
``/etc/passwd``), makes a relative path absolute (against the user's home, or the base given),
then resolves symbolic links and folds ``.``, ``..`` and repeated slashes (``realpath -m``, else
``readlink -m``: a part that does not exist yet is kept, folded).

:func:`settle_host` does it for every path that lives on one host (:func:`flashpoc.params.paths.path_values`)
and judges the canonical paths (:func:`flashpoc.params.paths.refusal`: nothing written in a system
directory; :func:`~flashpoc.params.paths.same_files`: no file named as two targets);
:func:`settle_campaign` does it on every host (and on this machine for its own paths) and returns
the campaign with each path as expanded on its host (``~`` and ``~user`` replaced, nothing else), the
path the workbook then uses, keeping the hashes of the parameters as given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flashpoc.core.errors import CheckFailed, ParseError
from flashpoc.params import Campaign, HostParams, workbook_root
from flashpoc.params.paths import PathValue, path_values, refusal, same_files
from flashpoc.hosts.group import MAX_PARALLEL_HOSTS, Group
from flashpoc.hosts.host import LocalHost, quote

MARK = "@@flashpoc paths\0"
"""Printed before the answers: what a login shell prints before them is left out."""
THIS_MACHINE = "this machine"
"""Where the controller's paths (results, key files, the SQL script) are said to be."""

_SCRIPT = r"""
home_of() {
  if command -v getent >/dev/null 2>&1; then getent passwd "$1" | cut -d: -f6
  else awk -F: -v u="$1" '$1 == u { print $6; exit }' /etc/passwd; fi
}
out() { printf '%s\0%s\0%s\0' "$1" "$2" "$3"; }
canon() {
  p=$1; base=${2:-$HOME}
  case $p in
    \~|\~/*)
      h=${HOME:-$(home_of "$(id -un)")}
      [ -n "$h" ] || { out nohome "" ""; return; }
      p=$h${p#\~} ;;
    \~*)
      u=${p#\~}; u=${u%%/*}
      h=$(home_of "$u" | head -n 1)
      [ -n "$h" ] || { out nouser "$u" ""; return; }
      p=$h${p#\~"$u"} ;;
  esac
  case $p in
    /*) ;;
    *) [ -n "$base" ] || { out nohome "" ""; return; }; p=$base/$p ;;
  esac
  if r=$(realpath -m -- "$p" 2>&1); then out ok "$p" "$r"
  elif r=$(readlink -m -- "$p" 2>&1); then out ok "$p" "$r"
  else out unresolved "$p" "$r"; fi
}
"""


@dataclass(frozen=True)
class Canonical:
    """A path as given, as expanded on its host (``~`` and ``~user`` replaced, made absolute: what
    the workbook uses there) and canonical (symbolic links resolved, folded: what is judged);
    ``problem`` says why the host could not make it canonical (then ``real`` is None)."""

    given: str
    expanded: str | None
    real: str | None
    problem: str | None = None


def canonical_paths(host: Any, paths: list[tuple[str, str]]) -> list[Canonical]:
    """Make each ``(path, base)`` canonical on ``host`` in one read-only command: ``base`` is the
    directory a relative path is relative to ("": the user's home on the host).

    Raises:
        RemoteError: the host cannot be reached.
        ParseError: the host did not answer in the script's format.
    """
    if not paths:
        return []
    calls = "\n".join(f"canon {quote(path)} {quote(base)}" for path, base in paths)
    script = f"{_SCRIPT}printf '%s\\0' {quote(MARK[:-1])}\n{calls}"
    result = host.run(f"sh -c {quote(script)}", purpose="make the parameters' paths canonical")
    fields = result.stdout.partition(MARK)[2].split("\0")
    if MARK not in result.stdout or len(fields) != 3 * len(paths) + 1 or fields[-1]:
        raise ParseError(f"{host.name}: make the parameters' paths canonical: expected {len(paths)} answers, got "
                         f"{result.stdout[:200]!r}")
    out = []
    for (path, _), i in zip(paths, range(0, 3 * len(paths), 3)):
        status, expanded, real = fields[i:i + 3]
        if status == "ok":
            out.append(Canonical(path, expanded, real))
        elif status == "nouser":
            out.append(Canonical(path, None, None, f"no user {expanded} on the host, so {path} names nothing"))
        elif status == "nohome":
            out.append(Canonical(path, None, None, f"the host's user has no home directory to expand {path}"))
        else:
            why = real.strip() or "realpath failed"
            out.append(Canonical(path, expanded, None, f"cannot resolve {expanded}: {why}"))
    return out


@dataclass
class Settled:
    """The paths of one host (or of this machine): each key's expanded path where the workbook uses
    it instead of the value given, and why any path is refused (one line each, naming its key)."""

    where: str
    expanded: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def settle_host(cfg: Campaign, host: Any, *, own: bool = False) -> Settled:
    """Make every path that lives on ``host`` canonical there (:func:`canonical_paths`, one command)
    and judge it: a path the workbook writes in a system directory, a path the host cannot make
    canonical and a file named as two targets are problems, each one line naming its key. With
    ``own``, ``host`` is this machine and the paths judged are its own (results, key files, the SQL
    script), which the workbook uses as given (:func:`flashpoc.params.resolve_path`).

    Raises:
        RemoteError: the host cannot be reached.
    """
    values = [v for v in path_values(cfg)
              if v.is_path and (v.role.lives == "controller" if own else host.name in v.hosts)]
    where = THIS_MACHINE if own else f"host {host.name}"
    root = str(workbook_root())
    found = canonical_paths(host, [(v.value, root if v.role.base == "root" else "") for v in values])
    settled, real = Settled(where), {}
    for value, canonical in zip(values, found):
        if canonical.real is None:
            settled.problems.append(f"{value.key}: {canonical.problem} ({where})")
            continue
        real[value.key] = canonical.real
        if not own and _expands(value.value, host):
            settled.expanded[value.key] = canonical.expanded
        line = refusal(value, canonical.real, where)
        if line:
            settled.problems.append(line)
    settled.problems += same_files(values, real, where)
    return settled


def _expands(value: str, host: Any) -> bool:
    """True when the workbook uses ``value`` as expanded on ``host``: it starts with ``~``, or it is
    relative on a local host (whose commands do not start in the user's home, as an SSH login's do)."""
    return value.startswith("~") or (not value.startswith("/") and host.params.is_local)


def controller() -> LocalHost:
    """This machine as a host, for its own paths (results, key files, the SQL script)."""
    return LocalHost(HostParams(name="controller", command_timeout_s=60))


def settle_campaign(cfg: Campaign, hosts: dict[str, Any]) -> Campaign:
    """``cfg`` with every path as expanded on the host where it lives, once each is canonical and
    judged there (:func:`settle_host`, on every host in parallel, and on this machine); its hashes
    stay those of ``cfg``. ``hosts`` maps each host's name to its connection.

    Raises:
        CheckFailed: one line per refused path, each naming its key, before anything is written.
        RemoteError: a host cannot be reached.
    """
    settled = [settle_host(cfg, controller(), own=True)]
    settled += list(Group(cfg.hosts, max_workers=MAX_PARALLEL_HOSTS).map(
        lambda params: settle_host(cfg, hosts[params.name]), purpose="make the parameters' paths canonical"
    ).raise_failed())
    campaign, conflicts = merged(cfg, settled)
    problems = [line for s in settled for line in s.problems] + conflicts
    if problems:
        raise CheckFailed("nothing was written: a path of the parameters is refused:\n- " + "\n- ".join(problems))
    return campaign


def merged(cfg: Campaign, settled: list[Settled]) -> tuple[Campaign, list[str]]:
    """``cfg`` with the expanded paths of every host in ``settled``, and the paths that expand to
    different paths on two hosts (a target's ``~`` on hosts with other homes), one line each."""
    values: dict[str, dict[str, str]] = {}
    for s in settled:
        for key, value in s.expanded.items():
            values.setdefault(key, {})[s.where] = value
    updates, conflicts = {}, []
    for key, by_host in values.items():
        if len(set(by_host.values())) > 1:
            shown = " and ".join(f"{v} on {w}" for w, v in by_host.items())
            conflicts.append(f"{key}: {_get(cfg, key)} is {shown}: give one path that names the same place on "
                             "every host")
        else:
            updates[key] = next(iter(by_host.values()))
    return with_paths(cfg, updates), conflicts


def with_paths(cfg: Campaign, updates: dict[str, str]) -> Campaign:
    """``cfg`` with the paths of ``updates`` (a host's, a target's or the engine's key, as
    :func:`~flashpoc.params.paths.path_values` names it: value) replaced, keeping the hashes of the
    parameters as given (:meth:`flashpoc.params.Campaign.as_given`)."""
    changed = {k: v for k, v in updates.items() if v != _get(cfg, k)}
    if not changed:
        return cfg
    out, given = cfg, dict(cfg._given_paths)
    for key, value in changed.items():
        parts = _parts(cfg, key)  # ["hosts", 0, "workdir"] or ["settings", "home"]
        named = parts if parts[0] == "settings" else [parts[0], getattr(cfg, parts[0])[parts[1]].name, parts[2]]
        given.setdefault(tuple(named), _get(cfg, key))
        out = _set(out, parts, value)
    out._given_paths = given
    return out


def _parts(cfg: Campaign, key: str) -> list[str | int]:
    """``hosts[1].workdir`` as ``["hosts", 1, "workdir"]``; ``engine.<name>`` is the ``settings`` field."""
    if key.startswith(f"engine.{cfg.engine}."):
        key = "settings." + key[len(f"engine.{cfg.engine}."):]
    parts: list[str | int] = []
    for part in key.split("."):
        name, _, index = part.partition("[")
        parts.append(name)
        if index:
            parts.append(int(index.rstrip("]")))
    return parts


def _get(cfg: Any, key: str) -> Any:
    value = cfg
    for part in _parts(cfg, key):
        value = value[part] if isinstance(part, int) else getattr(value, part)
    return value


def _set(model: Any, parts: list[str | int], value: str) -> Any:
    """A copy of ``model`` (a pydantic model, or a list of them) with the value at ``parts`` replaced."""
    head, rest = parts[0], parts[1:]
    if isinstance(head, int):
        items = list(model)
        items[head] = _set(items[head], rest, value) if rest else value
        return items
    new = _set(getattr(model, head), rest, value) if rest else value
    return model.model_copy(update={head: new})
