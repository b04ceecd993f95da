"""Building a campaign: readable errors, the parameters file reader and its YAML scan, notebook parameters."""

from __future__ import annotations

import contextlib
import os
import re
import stat
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.constructor import ConstructorError, SafeConstructor
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (AliasEvent, DocumentStartEvent, MappingEndEvent, MappingStartEvent, ScalarEvent,
                                SequenceEndEvent, SequenceStartEvent)
from ruamel.yaml.nodes import MappingNode, ScalarNode
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.resolver import BaseResolver

from flashpoc.core.errors import ParameterError
from flashpoc.core.registry import engine_names
from flashpoc.params.campaign import Campaign
from flashpoc.params.common import MAX_DEPTH, MAX_FILE_BYTES, MAX_VALUES, in_system_dir, resolve_path, under_workbook, workbook_root
from flashpoc.params.suggest import did_you_mean
from flashpoc.params.values import NUMBER, NumberSpelling, number_hint, path_text, read_number, value_problem


def _format_loc(loc: tuple[Any, ...]) -> str:
    """The key path of a pydantic error's ``loc`` (:func:`path_text`): the branches of a union (iorate:
    max, curve or a number) are one key."""
    return path_text(tuple(part for part in loc if isinstance(part, int) or not (
        str(part).startswith(("function-", "literal[")) or part in ("int", "float", "str", "list", "bool"))))


SUBKEY_RE = re.compile(r"^([a-z_]+)(?=: )", re.ASCII)
SECRET_KEY_RE = re.compile(r"(_env|password\w*)$", re.ASCII)
MAX_SHOWN_PROBLEMS = 3


def _format_problem(item: dict[str, Any]) -> tuple[str, str]:
    """``(key path, message)`` of one pydantic error."""
    loc = _format_loc(item["loc"])
    msg = item["msg"].removeprefix("Value error, ").replace("\n", " ")
    given = item.get("input")
    if item["type"] == "extra_forbidden":
        nearest = did_you_mean(tuple(item["loc"]))
        msg = (f"unknown key; did you mean {nearest}?" if nearest else
               "unknown key (check the spelling; see the notebooks' parameters cell)")
    elif item["type"] == "missing":
        msg = "required key is missing"
    elif isinstance(given, bool) and item["type"] in ("int_type", "float_type"):
        msg = f"expected a number, got {str(given).lower()} (a yes/no value)"
    elif isinstance(given, str) and item["type"] in ("int_type", "float_type") and number_hint(given):
        msg = f"expected a number, got {given[:40]!r} ({number_hint(given)})"
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


def format_errors(error: ValidationError, source: str) -> str:
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
    problem = value_problem(values)
    if problem:
        raise ParameterError(f"invalid parameters in {source}: {problem}")
    cleaned = {k: v for k, v in values.items() if v is not None}
    try:
        return Campaign.model_validate(cleaned)
    except ValidationError as error:
        raise ParameterError(format_errors(error, source)) from None
    except (ValueError, TypeError, RecursionError) as error:  # raised outside pydantic's wrapping
        raise ParameterError(f"invalid parameters in {source}: {error}") from None


#: the campaign's keys, as a parameters file and a notebook's parameters cell write them
PARAMETER_KEYS = [key for key, field in Campaign.model_fields.items() if not field.exclude]

#: the notebooks' parameter naming a parameters file (see :func:`campaign_from_parameters`)
PARAMETERS_FILE = "parameters_file"
#: the parameters file of a JupyterLab started by ``flashpoc lab FILE``: a notebook whose parameters cell
#: names none runs it
PARAMETERS_ENV = "FLASHPOC_PARAMETERS"


def notebook_parameters(values: dict[str, Any], parameters_file: str | Path | None = None,
                        root: Path | None = None) -> dict[str, Any]:
    """What a batch run injects into a notebook: ``parameters_file`` (the file ``values`` were read
    from: relative to ``root``, the workbook root the notebooks resolve it against, when it lies
    under it, so that the executed notebooks handed to a customer name no folder of this machine;
    else its absolute path), then every campaign key, None (the schema's default) for those
    ``values`` leaves out, so nothing of the notebook's own parameters cell is used."""
    path = None if parameters_file is None else Path(parameters_file).resolve()
    name = None if path is None else str(path) if root is None else under_workbook(path, root)
    return {PARAMETERS_FILE: name, **{key: values.get(key) for key in PARAMETER_KEYS}}


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
ALLOWED_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "seq", "map")}


class _Resolver(BaseResolver):
    """YAML 1.2's core schema whatever a ``%YAML`` directive says (:func:`_scan` refuses one but 1.2):
    ``true``/``false``, ``null``/``~``, numbers (every spelling, for :func:`read_number`) and ``<<``
    merges; everything else is text (``yes``, ``on``, ``1:04``, dates)."""

    def __init__(self, version: Any = None, loader: Any = None, loadumper: Any = None) -> None:
        super().__init__(loader or loadumper)
        self._loader_version = version  # as ruamel.yaml's YAML expects of its resolver

    @property
    def processing_version(self) -> tuple[int, int]:
        return (1, 2)


for _tag, _regexp, _first in (
        ("bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$", re.ASCII), list("tTfF")),
        ("null", re.compile(r"^(?:~|null|Null|NULL|)$", re.ASCII), ["~", "n", "N", ""]),
        ("float", NUMBER, list("-+0123456789.")),  # ints too: read_number tells
        ("merge", re.compile(r"^(?:<<)$", re.ASCII), ["<"])):
    _Resolver.add_implicit_resolver_base(f"tag:yaml.org,2002:{_tag}", _regexp, _first)


def _line(mark: Any) -> int:
    return mark.line + 1 if mark is not None else 0


class _Constructor(SafeConstructor):
    """The safe constructor with numbers read as written (:func:`read_number`) and stricter mappings."""

    def construct_number(self, node: ScalarNode) -> Any:
        return read_number(self.construct_scalar(node))

    def construct_mapping(self, node: Any, deep: bool = False) -> dict:
        """A mapping whose keys are words, each given once (YAML would keep the last); ``<<`` merges
        stay possible and their keys may be given again."""
        if not isinstance(node, MappingNode):
            raise ConstructorError(None, None, f"expected a mapping, found {node.id}", node.start_mark)
        seen: set[str] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            if not isinstance(key_node, ScalarNode):
                raise ParameterError(f"line {_line(key_node.start_mark)}: a list or mapping cannot be a key")
            key = self.construct_object(key_node)
            if isinstance(key, bool):
                raise ParameterError(f"line {_line(key_node.start_mark)}: the key {key_node.value!r} reads as "
                                     f"{str(key).lower()}: keys are words such as campaign or hosts")
            if not isinstance(key, str) or isinstance(key, NumberSpelling):
                raise ParameterError(f"line {_line(key_node.start_mark)}: the key {key_node.value[:40]} is not a name "
                                     "(keys are words such as campaign or hosts)")
            if key in seen:
                raise ParameterError(f"duplicate key {key!r} at line {_line(key_node.start_mark)}")
            seen.add(key)
        self.flatten_mapping(node)
        return {self.construct_object(k, deep=deep): self.construct_object(v, deep=deep) for k, v in node.value}


for _tag in ("int", "float"):
    _Constructor.add_constructor(f"tag:yaml.org,2002:{_tag}", _Constructor.construct_number)


#: a text larger than this that libyaml's parser refuses is not read again by ruamel.yaml's own (slow) one
MAX_PURE_BYTES = 64 * 1024
#: characters YAML 1.1 (libyaml's parser) takes for line breaks and YAML 1.2 for text: refused
_BREAKS_1_1 = re.compile("[\x85\u2028\u2029]", re.ASCII)


def _yaml(pure: bool = False) -> YAML:
    """A YAML 1.2 reader of parameters (:class:`_Resolver`, :class:`_Constructor`): on libyaml's parser
    (ruamel.yaml.clib; ten times faster, and what it reads YAML 1.2 reads alike once NEL, LS and PS are
    refused), or with ``pure`` (or without the C extension) on ruamel.yaml's own YAML 1.2 parser."""
    reader = YAML(typ="safe", pure=pure)
    reader.Resolver = _Resolver
    reader.Constructor = _Constructor
    return reader


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


def _yaml_problem(error: YAMLError, source: str) -> str:
    """One line of a YAML error in ``source``: where and what."""
    if isinstance(error, ReaderError):  # a character YAML does not take
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


def _scan(text: str, pure: bool = False) -> None:
    """Refuse, from the YAML events alone (before any value is built), what would take a parser's
    time, memory or stack: several documents, tags other than the plain ones, nesting deeper than
    :data:`MAX_DEPTH`, more than :data:`MAX_VALUES` values once aliases are expanded (an alias bomb);
    and a ``%YAML`` directive but 1.2 (the file is read as YAML 1.2 whatever it says). ``pure``: on
    ruamel.yaml's own parser (:func:`_yaml`).

    Raises:
        ValueError: saying what and on which line.
        YAMLError: the text is not YAML.
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

    for event in _yaml(pure).parse(text):
        tag = None if getattr(event, "tag", None) is None else str(event.tag)
        if tag is not None and tag not in ALLOWED_TAGS:
            raise ValueError(f"line {_line(event.start_mark)}: the YAML tag {tag.replace('tag:yaml.org,2002:', '!!')} "
                             "is not allowed: parameters are plain values")
        if isinstance(event, DocumentStartEvent):
            if event.version not in (None, (1, 2)):
                raise ValueError(f"%YAML {'.'.join(map(str, event.version))}: parameters are read as YAML 1.2 "
                                 "(010 is 10, yes is a word): remove the directive")
            documents += 1
            if documents > 1:
                raise ValueError(f"line {_line(event.start_mark)}: a second YAML document ('---'): one campaign "
                                 "per file")
        elif isinstance(event, (MappingStartEvent, SequenceStartEvent)):
            stack.append([1, 0, event.anchor])
            if len(stack) > MAX_DEPTH:
                raise ValueError(f"line {_line(event.start_mark)}: nested more than {MAX_DEPTH} levels deep")
        elif isinstance(event, (MappingEndEvent, SequenceEndEvent)):
            values, height, anchor = stack.pop()
            done((values, height + 1), anchor, event)
        elif isinstance(event, ScalarEvent):
            done((1, 0), event.anchor, event)
        elif isinstance(event, AliasEvent):
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
    return read_parameters_text(text, str(path))


def _load(text: str) -> Any:
    """The value of YAML ``text`` once :func:`_scan` has passed it, read on libyaml's parser, and again on
    ruamel.yaml's own where libyaml (YAML 1.1's grammar) refuses what YAML 1.2's may take (``{a: 1:04}``),
    for a text of at most :data:`MAX_PURE_BYTES`.

    Raises:
        ValueError: :func:`_scan`'s refusals, a YAML 1.1 line break.
        YAMLError: the text is not YAML 1.2.
    """
    found = _BREAKS_1_1.search(text)
    if found:
        raise ValueError(f"line {text.count(chr(10), 0, found.start()) + 1}: the character U+{ord(found.group()):04X} "
                         "breaks a line to YAML 1.1 and not to YAML 1.2: a parameters file has none")
    try:
        _scan(text)
        return _yaml().load(text)
    except YAMLError:
        if len(text) > MAX_PURE_BYTES:
            raise
    _scan(text, pure=True)
    return _yaml(pure=True).load(text)


def read_parameters_text(text: str, source: str = "parameters") -> dict[str, Any]:
    """The mapping of parameters YAML ``text`` (not yet validated), read as YAML 1.2 (:class:`_Resolver`,
    numbers by :func:`~flashpoc.params.values.read_number`) once :func:`_scan` has passed it.

    Raises:
        ParameterError: one line naming ``source`` and what is wrong, with the line where YAML says.
    """
    try:
        values = _load(text)
    except ValueError as error:  # ParameterError too
        raise ParameterError(f"invalid parameters in {source}: {error}") from None
    except YAMLError as error:
        raise ParameterError(f"{source} is not valid YAML: {_yaml_problem(error, text)}") from None
    if values is None:
        raise ParameterError(f"invalid parameters in {source}: the file is empty (expected a mapping of keys such as "
                             "campaign, hosts, targets)")
    if not isinstance(values, dict):
        raise ParameterError(f"invalid parameters in {source}: expected a mapping of keys at the top level, got "
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
    of the parameters; when None, ``$FLASHPOC_PARAMETERS``, which ``flashpoc lab FILE`` sets); every
    campaign key that is not None overrides the file's value of that key (a whole top-level key:
    ``sweep = {"points": 3}`` replaces the file's ``sweep:``). Without a file, None means the
    schema's default. ``flashpoc run`` injects ``parameters_file`` and
    every key (the file's values, None for those it leaves out).

    Raises:
        ParameterError: one line naming the key, the file or what is missing.
    """
    source = "the notebook's parameters"
    values: dict[str, Any] = {}
    name = namespace.get(PARAMETERS_FILE)
    if name is None and os.environ.get(PARAMETERS_ENV):  # JupyterLab started by `flashpoc lab FILE`
        name = os.environ[PARAMETERS_ENV]
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
    given = {k: namespace[k] for k in [*PARAMETER_KEYS, *engine_names()] if namespace.get(k) is not None}
    if not values and not given:
        raise ParameterError(f"no parameters: set {PARAMETERS_FILE} in the parameters cell (e.g. "
                             "\"parameters/demo-local.yaml\", relative to the workbook root), or at least campaign, "
                             "hosts and targets")
    cfg = campaign_from_dict({**values, **given}, source=source)
    _check_results_dir(cfg, source)
    return cfg
