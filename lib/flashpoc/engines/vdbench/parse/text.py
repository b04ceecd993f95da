"""The text of vdbench's files, as every table reads it: tags blanked, lines that end (a cut last line
refused), numbers as printed (unsigned, no exponent), a run's ``Starting RD`` line and its ``For loops:``
values, and which report a file is."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.engines.vdbench.parse.keys import LOOP_KEYS

_TAG = re.compile(  # the tags vdbench writes (and common HTML ones); no other '<...>' is a tag
    r"<\s*/?\s*(?:a|b|i|u|p|pre|title|br|hr|html|head|body|font|center|h[1-6])(?:\s[^<>]*)?\s*/?>",
    re.IGNORECASE,
)
_STARTING = re.compile(r"Starting RD=(?P<rd>[^;\s]+)(?P<rest>.*)$")
_DATA = re.compile(r"^\s*\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\s+(?P<label>\S+)(?:\s|$)")
_LABEL = re.compile(r"^(?P<kind>[a-z]+)_(?P<lo>\d+)-(?P<hi>\d+)$")
_INT = re.compile(r"^[-+]?\d+$")
_UNSIGNED_INT = re.compile(r"^\d+$")
_UNSIGNED_FLOAT = re.compile(r"^(?:\d+\.?\d*|\.\d+)$")


def _half_unit(token: str) -> float:
    """Half a unit of the last printed digit of ``token`` (``0.844`` -> 0.0005)."""
    decimals = len(token.partition(".")[2])
    return 0.5 * 10.0**-decimals


def _extra_loop_keys(context: Mapping[str, Any]) -> dict[str, Any]:
    """Return the loop keys of ``context['loop']`` that are not in :data:`LOOP_KEYS`."""
    return {key: value for key, value in context["loop"].items() if key not in LOOP_KEYS}


def _run_context(match: re.Match[str], run_index: int, name: str, number: int) -> dict[str, Any]:
    """Return the run context from a ``Starting RD=...`` line."""
    rest = match["rest"]
    loop: dict[str, Any] = {}
    loops = re.search(r"For loops:\s*(.*)$", rest)
    if loops:
        rest = rest[: loops.start()]
        loop = _parse_loops(loops.group(1), f"{name} line {number}")
    rate = re.search(r"I/O rate:\s*([^;]+?)\s*(?:;|$)", rest)
    fwdrate = re.search(r"fwdrate=(\S+?)\.?(?:\s|;|$)", rest)
    if rate:
        printed = rate.group(1).strip()
        setting: Any = {"uncontrolled max": "max", "controlled max": "controlled_max"}.get(
            printed.lower(), _loose_number(printed)
        )
        if isinstance(setting, str) and setting not in ("max", "controlled_max"):
            setting = setting.lower().replace(" ", "_")
    elif fwdrate:
        setting = _loose_number(fwdrate.group(1))
    else:
        setting = None
    elapsed = re.search(r"\belapsed=(\d+)(?=[;\s]|$)", rest)
    warmup = re.search(r"\bwarmup=(\d+)(?=[;\s]|$)", rest)
    context: dict[str, Any] = {"rd": match["rd"], "run_index": run_index, "loop": loop}
    for key in LOOP_KEYS:
        context[key] = loop.get(key)
    context.update(_extra_loop_keys(context))
    context["iorate_setting"] = setting
    context["elapsed_s"] = int(elapsed.group(1)) if elapsed else None
    context["warmup_s"] = int(warmup.group(1)) if warmup else None
    context["report_format"] = None
    return context


def _parse_loops(text: str, where: str) -> dict[str, Any]:
    """Return the ``For loops:`` values (``threads=8 rdpct=70``; ``None`` gives ``{}``)."""
    loop: dict[str, Any] = {}
    text = text.strip()
    if text and text != "None":
        for item in text.split():
            key, sep, value = item.partition("=")
            if not sep or not key or not value:
                raise ParseError(f"{where}: loop value {item!r} is not key=value")
            loop[key.lower()] = _loose_number(value)
    threads = loop.get("threads")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ParseError(f"{where}: threads={threads} is not a thread count (damaged line?)")
    return loop


def _report_kind(text: str) -> str | None:
    """Return ``"host"`` or ``"slave"`` from a report's first lines, else None."""
    head = text[:600]
    if "Host summary report(s) for host=" in head:
        return "host"
    if "Slave summary report for slave=" in head:
        return "slave"
    return None


def _lines(text: str, name: str) -> list[str]:
    """Split a file's text into lines; refuse non-text, empty and cut-off text."""
    if not isinstance(text, str):
        raise ParseError(f"{name} must be text (str), got {type(text).__name__}")
    if not text.strip():
        raise ParseError(f"{name} is empty: expected vdbench output")
    if "\x00" in text:
        raise ParseError(f"{name} contains NUL bytes: not a vdbench text report")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1].strip():
        raise ParseError(
            f"{name} ends in the middle of a line ({lines[-1][-60:]!r}): the file looks cut "
            "off, and its last number could be cut short"
        )
    return lines[:-1]


def _strip_tags(line: str) -> str:
    """Return ``line`` with its HTML tags blanked out, each by as many spaces, so that the
    columns keep their positions and a tag inside a number splits it rather than joining its
    halves (a ``<`` followed by a space, as in histograms, is no tag)."""
    return _TAG.sub(lambda m: " " * len(m.group()), line) if "<" in line else line


def _plain(text: str) -> str:
    """Return ``text`` with normalized line ends and no HTML tags (for messages)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(_TAG.sub("", line) for line in text.split("\n"))


def _number(token: str, key: str, where: str) -> int | float | None:
    """Return a printed number as int or float (``n/a`` -> None), else raise ParseError.

    vdbench prints every measured value unsigned and without exponent: a sign or an exponent
    is damage (a ``-`` over a digit would otherwise give another number)."""
    if token == "n/a":
        return None
    if _UNSIGNED_INT.match(token):
        return int(token)
    if not _UNSIGNED_FLOAT.match(token):
        raise ParseError(f"{where}: {key} is {token!r}, not a number")
    return float(token)


def _loose_number(token: str) -> Any:
    """Return ``token`` as int or float when it is a plain number, else unchanged."""
    if _INT.match(token):
        return int(token)
    if re.match(r"^[-+]?\d*\.\d+$", token):
        return float(token)
    return token


def _ms_to_us(text: str) -> int | float:
    """Convert a printed millisecond bound (``0.020``) to microseconds exactly (20)."""
    try:
        value = Decimal(text) * 1000
    except InvalidOperation:  # pragma: no cover - the regex admits digits only
        raise ParseError(f"histogram bound {text!r} is not a number") from None
    return int(value) if value == value.to_integral_value() else float(value)
