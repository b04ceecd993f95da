"""Generated damage to real engine outputs, and the one invariant every reader keeps.

A damaged output is refused in one line (a ParseError), or read to exactly the clean output's
numbers, or read with a *named* loss: a number the clean read had is missing or None only where
the result's ``damaged`` text (:data:`flashpoc.core.damage.DAMAGED`, anywhere in the result) names
the damaged file. A number is never changed.

The damage is drawn by hypothesis (``st.data()``), so a failure shrinks to the smallest one:
- :func:`damage_text`: one file's text cut at any offset or at a line's end, emptied, a line
  removed, duplicated or swapped with the next, or a span overwritten by bytes that cannot turn
  one printed number into another (:data:`conftest.NOT_IN_A_NUMBER`: no parser could tell a
  digit changed into another digit, except where the engine prints the figure twice, which the
  readers cross-check: test those by hand); with :data:`SIGN`, a minus sign put before a number;
- :func:`damage_files`: one file of an output folder removed or damaged as above.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import strategies as st

from conftest import NOT_IN_A_NUMBER, flat_numbers
from flashpoc.core.damage import DAMAGED
from flashpoc.core.errors import ParseError

TEXT_DAMAGE = ("cut", "cut at a line end", "emptied", "line removed", "line repeated", "lines swapped",
               "bytes overwritten")
SIGN = "a minus sign before a number"
"""A damage not in :data:`TEXT_DAMAGE` (pass ``kinds=TEXT_DAMAGE + (SIGN,)``): the character before a
printed number (a space, a colon) overwritten by ``-``, which makes the number negative, not
invalid, wherever a number may be signed (JSON): the one byte of :data:`conftest.NOT_IN_A_NUMBER`
that can make another number, drawn where it does."""


def damage_text(data: Any, text: str, kinds: tuple[str, ...] = TEXT_DAMAGE) -> tuple[str, str]:
    """``(damaged text, what was done)``: one damage of ``kinds`` drawn by hypothesis."""
    kind = data.draw(st.sampled_from(kinds), label="damage")
    lines = text.splitlines(keepends=True)
    if kind == "cut":
        at = data.draw(st.integers(0, max(len(text) - 1, 0)), label="cut at")
        return text[:at], f"cut at character {at}"
    if kind == "cut at a line end" and lines:
        keep = data.draw(st.integers(0, len(lines) - 1), label="lines kept")
        return "".join(lines[:keep]), f"cut after line {keep}"
    if kind == "emptied" or not lines:
        return "", "emptied"
    if kind == SIGN:
        before = [m.start() for m in re.finditer(r"[^\w.\-+](?=\d)", text)]
        if before:
            at = before[data.draw(st.integers(0, len(before) - 1), label="number")]
            return text[:at] + "-" + text[at + 1:], f"a minus sign at {at}"
    at = data.draw(st.integers(0, len(lines) - 1), label="line")
    if kind == "line removed":
        return "".join(lines[:at] + lines[at + 1:]), f"line {at + 1} removed"
    if kind == "line repeated":
        return "".join(lines[:at + 1] + lines[at:]), f"line {at + 1} repeated"
    if kind == "lines swapped" and at + 1 < len(lines):
        return "".join(lines[:at] + [lines[at + 1], lines[at]] + lines[at + 2:]), f"lines {at + 1}, {at + 2} swapped"
    start = data.draw(st.integers(0, max(len(text) - 1, 0)), label="at")
    junk = data.draw(st.lists(st.sampled_from(NOT_IN_A_NUMBER), min_size=1, max_size=32).map(
        lambda values: bytes(values).decode("latin-1")), label="junk")
    return text[:start] + junk + text[start + len(junk):], f"{len(junk)} bytes overwritten at {start}"


def damage_files(data: Any, files: Mapping[str, str], *, removable: bool = True,
                 kinds: tuple[str, ...] = TEXT_DAMAGE) -> tuple[dict[str, str], str, str]:
    """``(damaged files, the damaged file's name, what was done)``: one file of ``files`` (name ->
    text) removed (``removable``) or damaged by :func:`damage_text`."""
    name = data.draw(st.sampled_from(sorted(files)), label="file")
    out = dict(files)
    if removable and data.draw(st.booleans(), label="remove it"):
        del out[name]
        return out, name, "removed"
    out[name], what = damage_text(data, files[name], kinds)
    return out, name, what


def damaged_texts(result: Any) -> list[str]:
    """Every :data:`~flashpoc.core.damage.DAMAGED` text anywhere in a reader's result."""
    found: list[str] = []
    if isinstance(result, Mapping):
        if isinstance(result.get(DAMAGED), str):
            found.append(result[DAMAGED])
        for key, value in result.items():
            if key != DAMAGED:
                found += damaged_texts(value)
    elif isinstance(result, (list, tuple)):
        for item in result:
            found += damaged_texts(item)
    return found


def assert_loses_never_changes(read: Callable[[], Any], clean: Any, damaged_file: str, *,
                               numbers: Callable[[Any], dict[str, float]] = flat_numbers,
                               loss_named: Callable[[Any, str], bool] | None = None) -> Any:
    """The invariant: ``read()`` (the reader on the damaged output) raises a one-line ParseError,
    or gives every number of ``clean`` (the clean output's result) unchanged, or loses some with
    ``damaged_file`` named in the result's ``damaged`` text (``loss_named(result, file)`` decides
    instead where a reader names its losses its own way, e.g. an AWR section "not understood").
    ``numbers`` flattens a result to ``{key: number}``. Returns the result (None when refused)."""
    try:
        result = read()
    except ParseError as error:
        message = str(error)
        assert message.strip() and "\n" not in message, f"a refusal is one line: {message!r}"
        return None
    before, after = numbers(clean), numbers(result)
    changed = {k: (before[k], v) for k, v in after.items() if k in before and v is not None and before[k] != v}
    assert not changed, f"damage ({damaged_file}) changed numbers: {dict(list(changed.items())[:5])}"
    lost = sorted(k for k in before if after.get(k) is None)
    if lost:
        named = (loss_named(result, damaged_file) if loss_named is not None
                 else any(damaged_file in text for text in damaged_texts(result)))
        assert named, f"damage ({damaged_file}) lost {lost[:5]} ({len(lost)} numbers) without naming the file"
    return result
