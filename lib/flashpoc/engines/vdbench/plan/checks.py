"""What vdbench can read: the checks of names, tokens and timings, and vdbench's size and number notation."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from typing import Any

from flashpoc.core.errors import ParameterError
from flashpoc.params import Campaign, parse_size


#: characters vdbench's parameter scanner treats specially (separators, quotes, substitutes)
UNSAFE_CHARS = frozenset(',=()"[^{}?')
#: a parmfile name (sd=, wd=, rd=); one that vdbench would read as a number is refused as well
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", re.ASCII)
#: Java's Double.parseDouble, which vdbench tries on every value before keeping it as text
_JAVA_DOUBLE = re.compile(r"^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|"
                          r"0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*[pP][+-]?\d+)[fFdD]?$", re.ASCII)
_SIZE_UNITS = (("t", 1024**4), ("g", 1024**3), ("m", 1024**2), ("k", 1024))


def vdbench_size(nbytes: int) -> str:
    """``nbytes`` in vdbench's notation (binary k/m/g/t): 268435456000 -> ``250g``."""
    for unit, factor in _SIZE_UNITS:
        if nbytes % factor == 0:
            return f"{nbytes // factor}{unit}"
    return str(nbytes)


# -- checks ---------------------------------------------------------------------------

def _check_campaign(campaign: Campaign, *, resolved: bool = True) -> None:
    """What vdbench cannot take, or what would break a line: the parameters' rules (validation
    checks them first, :func:`.rules.check_params`) and, with ``resolved``, that the target paths
    were made absolute (``campaign.resolved()``: vdbench runs in its own directory)."""
    for i, host in enumerate(campaign.hosts):
        if host.name.lower() == "default":
            raise ParameterError(f"hosts[{i}].name: 'default' is vdbench's hd=default; rename the host")
        _check_token(host.name, f"hosts[{i}].name")
        _check_token(host.address, f"hosts[{i}].address")
        if host.vdbench is not None:
            _check_token(host.vdbench, f"hosts[{i}].vdbench")
            if not host.vdbench.startswith("/"):
                raise ParameterError(f"hosts[{i}].vdbench: vdbench needs the absolute install directory, "
                                     f"got {host.vdbench!r}")
    for i, target in enumerate(campaign.targets):
        _check_name(target.name, f"targets[{i}].name")
        if target.name.lower() == "concat":
            raise ParameterError(f"targets[{i}].name: vdbench refuses an sd named 'concat'")
        _check_token(target.path, f"targets[{i}].path")
        if resolved and not target.path.startswith("/"):
            raise ParameterError(f"targets[{i}].path: vdbench needs an absolute path (it runs in its own "
                                 f"directory), got {target.path!r}: pass campaign.resolved()")
        is_device = target.path.startswith("/dev/")
        if target.size is None and not is_device:
            raise ParameterError(f"targets[{i}].size: vdbench needs a size for the file {target.path} "
                                 "(else 'Undefined size for sd'); e.g. size: 1g")
        if is_device and campaign.settings.openflags is None:
            raise ParameterError(f"vdbench.openflags: vdbench on Linux requires openflags (e.g. o_direct) for "
                                 f"a /dev/ lun (targets[{i}] {target.path})")
    vd = campaign.settings
    _check_timing(vd.elapsed_s, vd.interval_s, vd.warmup_s,
                  ("vdbench.elapsed_s", "vdbench.interval_s", "vdbench.warmup_s"))


def _check_timing(elapsed: int, interval: int, warmup: int | None, keys: tuple[str, str, str]) -> None:
    elapsed = _whole(keys[0], elapsed)
    interval = _whole(keys[1], interval)
    if elapsed < 2 * interval:
        raise ParameterError(f"{keys[0]}: vdbench needs elapsed ({elapsed}) at least twice the interval ({interval})")
    if elapsed % interval:
        raise ParameterError(f"{keys[0]}: vdbench needs elapsed ({elapsed}) a multiple of the interval ({interval})")
    if warmup is not None and _whole(keys[2], warmup, minimum=0) % interval:
        raise ParameterError(f"{keys[2]}: vdbench needs warmup ({warmup}) a multiple of the interval ({interval})")


def _check_iorate(iorate: object, curve: object, key: str) -> None:
    if iorate not in ("max", "curve"):
        _whole(f"{key}.iorate", iorate)
    if (iorate == "curve") != (curve is not None):
        raise ParameterError(f"{key}.curve: curve goes with iorate=curve (and only with it)")
    if curve is not None:
        values = list(_seq(curve, f"{key}.curve"))
        if not values or not all(isinstance(c, numbers.Real) and not isinstance(c, bool) and 0 < c <= 100
                                 for c in values):
            raise ParameterError(f"{key}.curve: percentages of the maximum (0-100], got {curve!r}")


def _check_token(value: str, key: str) -> None:
    """Refuse what vdbench's scanner splits on or rewrites: ``, = ( ) " [ ^ { } ?`` and blanks."""
    bad = sorted({ch for ch in value if ch in UNSAFE_CHARS or ch.isspace() or not ch.isprintable()})
    if bad:
        raise ParameterError(f"{key}: {value!r} has {''.join(bad)!r}, which would break the vdbench parmfile line")


def _check_name(value: object, key: str) -> None:
    if not isinstance(value, str) or not NAME_RE.match(value):
        raise ParameterError(f"{key}: {value!r} is not a vdbench name (letters, digits, "
                             "'.', '_' or '-')")
    if value.lower() == "default":
        raise ParameterError(f"{key}: 'default' sets vdbench's defaults; choose another name")
    if _reads_as_number(value):
        raise ParameterError(f"{key}: vdbench would read {value!r} as a number; choose another name")


def _reads_as_number(text: str) -> bool:
    """True when vdbench's scanner would store ``text`` as a number (Java double, or a
    number with a k/m/g/t/h/% suffix, optionally followed by 'b')."""
    if _JAVA_DOUBLE.match(text):
        return True
    if text[-1:].lower() == "b" and len(text) > 2:
        tail, front = text[-2].lower(), text[:-2]
    else:
        tail, front = text[-1:].lower(), text[:-1]
    return tail in ("k", "m", "g", "t", "h", "%") and bool(_JAVA_DOUBLE.match(front.strip()))


# -- small helpers --------------------------------------------------------------------

def _whole(key: str, value: object, minimum: int = 1, maximum: int | None = None) -> int:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value)
            or value != int(value) or value < minimum or (maximum is not None and value > maximum)):
        upper = f" and <= {maximum}" if maximum is not None else ""
        raise ParameterError(f"{key}: a whole number >= {minimum}{upper}, got {value!r}")
    return int(value)


def _seq(value: object, key: str) -> Sequence[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ParameterError(f"{key}: expected a list, got {value!r}")
    return value


def _nonempty(values: list[Any], key: str) -> tuple[Any, ...]:
    if not values:
        raise ParameterError(f"{key}: the list is empty")
    return tuple(values)


def _xfer(value: object, key: str) -> str:
    try:
        size = parse_size(value)  # type: ignore[arg-type]
    except ValueError as error:
        raise ParameterError(f"{key}: {error}") from None
    if size % 512:
        raise ParameterError(f"{key}: vdbench needs a transfer size that is a multiple of 512 bytes, got {value!r}")
    return vdbench_size(size)


def _num(value: float) -> str:
    """A number as vdbench reads it: ``100`` for 100.0, ``0.1`` for 0.1."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)
