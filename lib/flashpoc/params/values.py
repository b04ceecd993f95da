"""Every key and value of the parameters, checked once before the schema sees them (:func:`value_problem`):
no password is given whatever the key, text is one line of printable text, and a number is what was
written (:func:`read_number` takes a number's spelling as YAML 1.2 reads it or refuses it); and how a key
path is shown in a message (:func:`key_text`)."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from flashpoc.core.registry import engine_names, engine_settings
from flashpoc.params.common import MAX_DEPTH, MAX_VALUES, ascii_note

MAX_NUMBER_DIGITS = 100
"""Digits of a number at most: every bound of the schema has fewer than 20, so more is a mistake."""
MAX_SHOWN_KEY = 40
"""Characters of a key shown in a message at most (a key of 200,000 characters is cut short)."""

#: a key that names a secret (``password``, ``pg_pass``, ``sysdba_passwd``, ``api_token``), unless it is
#: the ``..._env`` key that names the environment variable holding it
SECRET_KEY = re.compile(r"pass|pwd|secret|token|credential", re.IGNORECASE | re.ASCII)
#: a key that names a user (``user``, ``superuser``, ``dba_priv_user``): ``user/password`` there is a password
USER_KEY = re.compile(r"user(name)?$", re.IGNORECASE | re.ASCII)
#: credentials written into a value: Oracle's ``user/password@service`` (also inside JDBC's
#: ``jdbc:oracle:thin:user/password@...``), a URL's ``scheme://user:password@``, ``password=...``
CREDENTIALS = re.compile(r"(?<![\w/.-])[A-Za-z_][\w$#]*/[^\s/@]+@"
                         r"|[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@"
                         r"|(?<![\w-])(password|passwd|pwd|secret|token)\s*=\s*\S", re.IGNORECASE | re.ASCII)
#: characters that are no text: C0 and C1 controls and DEL (a NUL, an escape, a tab, a line break), the
#: line and paragraph separators and the bidirectional embeddings, overrides and isolates
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]", re.ASCII)
_CONTROL_NAMES = {0x00: "a NUL", 0x09: "a tab", 0x0A: "a line break", 0x0D: "a carriage return",
                  0x1B: "an escape, as in a terminal's colour codes"}
#: every scalar YAML 1.1 or 1.2 takes for a number (digits 0-9 only), for :func:`read_number` to read or refuse
NUMBER = re.compile(r"""^[-+]?(?:0[bB][01_]+|0[oO][0-7_]+|0[xX][0-9a-fA-F_]+
                           |(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)(?:[eE][-+]?[0-9]+)?
                           |\.(?:inf|Inf|INF))$|^\.(?:nan|NaN|NAN)$""", re.ASCII | re.VERBOSE)
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.-]+", re.ASCII)
_BASES = {"0x": 16, "0o": 8, "0b": 2}


class NumberSpelling(str):
    """A number as it was written, which :func:`read_number` does not read as a number: YAML readers
    take it for different numbers (``010``: 8 in YAML 1.1, 10 in YAML 1.2), or it is not written in
    decimal digits. :func:`value_problem` refuses it, naming the key, with :attr:`reason`."""

    reason: str

    def __new__(cls, text: str, reason: str) -> NumberSpelling:
        spelling = super().__new__(cls, text)
        spelling.reason = reason
        return spelling


class WrittenFloat(float):
    """A float that shows as it was written (``1e3``, not ``1000.0``), so that a message refusing it quotes
    the parameters; the schema stores it as a plain float."""

    text: str

    def __new__(cls, text: str) -> WrittenFloat:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __repr__(self) -> str:
        return self.text


def read_number(text: str) -> int | float | WrittenFloat | NumberSpelling:
    """The number YAML 1.2 reads in ``text`` (a scalar that YAML 1.1 or 1.2 takes for a number,
    ASCII digits only): an int for ``10``, ``-3``, ``+7``; a float for ``2.5``, ``.5``, ``01.5``, ``1e3``,
    ``.inf``, ``.nan`` (a :class:`WrittenFloat` where Python would show it otherwise). A
    :class:`NumberSpelling` (refused with its key) for a spelling that YAML readers read as different
    numbers or a reader may take for another: a whole number with a leading zero
    (``010``), ``0x``, ``0o`` and ``0b`` prefixes, digits grouped with ``_`` (``1_000``), more than
    :data:`MAX_NUMBER_DIGITS` digits, a float beyond a double's range (``1e400``, ``1e-400``)."""
    if not NUMBER.match(text):  # a scalar tagged !!int or !!float that is no number
        return NumberSpelling(text, "is not a number written in the digits 0-9")
    body = text.lstrip("+-")
    lower = body.lower()
    if lower in (".inf", ".nan"):
        return float(text.replace(".", "", 1))
    digits = sum(ch in "0123456789" for ch in body)
    if "_" in body:
        return NumberSpelling(text, "groups digits with '_', which YAML 1.1 reads as one number and YAML 1.2 as "
                                    "text: write the digits alone (1000, not 1_000)")
    if lower[:2] in _BASES:
        return NumberSpelling(text, f"is written in base {_BASES[lower[:2]]}: write the number in decimal digits")
    if re.fullmatch("0[0-9]+", body, re.ASCII):
        return NumberSpelling(text, "has a leading zero, which YAML 1.1 reads as an octal number (010 is 8) and "
                                    "YAML 1.2 as a decimal one (10): write it without the zero")
    if digits > MAX_NUMBER_DIGITS:
        return NumberSpelling(text, f"is a number of {digits:,} digits: no parameter is near that; check the value")
    if re.fullmatch("[0-9]+", body, re.ASCII):
        return int(text)
    number = float(text)
    if math.isinf(number) or (number == 0 and any(ch in "123456789" for ch in lower.split("e")[0])):
        return NumberSpelling(text, f"is beyond what a number can hold here (it would read as {number})")
    return number if repr(number) == text else WrittenFloat(text)


def number_hint(text: str) -> str | None:
    """Why ``text``, given where a number goes, is no number, when it looks like one: a yes/no word, a
    digit other than 0-9, a YAML 1.1 base-60 number; else None."""
    if text.strip().lower() in ("yes", "no", "on", "off", "y", "n"):
        return "a yes/no value"
    if ascii_note(text):
        return ascii_note(text).strip(" ()")
    if re.fullmatch(r"[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?", text.strip(), re.ASCII):
        return "a base-60 number to YAML 1.1 (1:04 is 64), text to YAML 1.2: write the number in decimal digits"
    return None


def key_text(key: Any) -> str:
    """A key as a message shows it: a word as it is; an empty key as ``(an empty key)``; another
    (a space, a control character, a key of 200,000 characters) quoted, cut to :data:`MAX_SHOWN_KEY`."""
    if not isinstance(key, str):
        return repr(key)
    if key == "":
        return "(an empty key)"
    if _PLAIN_KEY.fullmatch(key) and len(key) <= MAX_SHOWN_KEY:
        return key
    shown = repr(key[:MAX_SHOWN_KEY])
    return shown if len(key) <= MAX_SHOWN_KEY else f"{shown[:-1]}...' ({len(key):,} characters)"


def path_text(path: tuple[Any, ...]) -> str:
    """A key path as messages name it: ``hosts[0].user``, ``engine.slob.scale``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + key_text(part)
    return out


def _walk(values: Any) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """``(path, value)`` of ``values`` and of every key's value and list item in it, in order; a ValueError
    for a structure nested more than :data:`MAX_DEPTH` deep or of more than :data:`MAX_VALUES` values (a
    notebook's structure that holds itself is both)."""
    stack: list[tuple[tuple[Any, ...], Any]] = [((), values)]
    seen = 0
    while stack:
        path, value = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            raise ValueError(f"more than {MAX_VALUES} values")
        if len(path) > MAX_DEPTH:
            raise ValueError(f"{path_text(path[:MAX_DEPTH])}: nested more than {MAX_DEPTH} levels deep")
        yield path, value
        if isinstance(value, dict):
            stack.extend(reversed([(path + (key,), item) for key, item in value.items()]))
        elif isinstance(value, (list, tuple)):
            stack.extend(reversed([(path + (i,), item) for i, item in enumerate(value)]))


def _env_key(path: tuple[Any, ...]) -> str:
    """The key that names the environment variable holding the secret given at ``path``."""
    words = [str(part).lower() for part in path if isinstance(part, str)]
    last = words[-1] if words else ""
    if "hosts" in words:
        return "key_passphrase_env (the passphrase of key_file)"
    for name in engine_names():  # an engine's block: the engine names its own key
        key = engine_settings(name).secret_env_key(last) if name in words else None
        if key:
            return key
    if "oracle" in words:
        return "oracle.wallet_password_env" if "wallet" in last else "oracle.password_env"
    return "the password_env key of the block that uses it (e.g. oracle.password_env)"


def _secret_problem(path: tuple[Any, ...], value: Any) -> str | None:
    key = path[-1] if path and isinstance(path[-1], str) else ""
    named = bool(SECRET_KEY.search(key)) and not key.lower().endswith("_env") and value is not None
    written = isinstance(value, str) and (bool(CREDENTIALS.search(value)) or (USER_KEY.search(key) and "/" in value))
    if not (named or written):
        return None
    return (f"{path_text(path)}: no password in the parameters (they are kept with the results): export it and give "
            f"the variable's NAME in {_env_key(path)}; the value is not shown")


def _control_problem(text: str) -> str | None:
    """What makes ``text`` (a value, its surrounding spaces and line breaks dropped as the schema does; a
    key whole) not one line of printable text, or None."""
    found = CONTROL.search(text)
    if found is None:
        return None
    code = ord(found.group())
    name = _CONTROL_NAMES.get(code) or unicodedata.name(found.group(), "a control character")
    return f"holds U+{code:04X} ({name}): a value is one line of printable text"


def _text_problem(path: tuple[Any, ...], value: Any) -> str | None:
    """Control characters in ``value`` or in the keys of a mapping ``value``; a number spelling."""
    if isinstance(value, NumberSpelling):
        shown = str(value) if len(value) <= 24 else f"{value[:20]}..."
        return f"{path_text(path)}: {shown} {value.reason}; quote it if it is text"
    if isinstance(value, str):
        problem = _control_problem(value.strip(" \t\r\n"))
        return None if problem is None else f"{path_text(path)}: {problem}"
    for key in value if isinstance(value, dict) else ():
        problem = _control_problem(key) if isinstance(key, str) else None
        if problem:
            return f"{path_text(path + (key,))}: the key {problem.replace('a value', 'a key')}"
    return None


def value_problem(values: Any) -> str | None:
    """The first problem of the parameters ``values`` that no schema check sees, as ``key.path: what``
    (a password first, wherever it is, so that no other message can show it), or None:

    - a secret: a non-empty key naming a password, passphrase, secret or token (not the ``..._env`` key
      naming its variable), credentials in a value (``user/password@service``, ``user:password@`` in a
      URL, ``password=``), ``user/password`` in a key naming a user; the value is never shown;
    - a key or text value that is not one line of printable text (:data:`CONTROL`);
    - a number spelling that :func:`read_number` refused.
    """
    try:
        walked = list(_walk(values))
    except ValueError as error:
        return str(error)
    for check in (_secret_problem, _text_problem):
        for path, value in walked:
            problem = check(path, value)
            if problem:
                return problem
    return None
