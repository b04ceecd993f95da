"""fio's rows of the environment check: fio on every host and, for several hosts in client/server
mode, on this machine (the same release everywhere)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from flashpoc.core.records import CAMPAIGN_ROW_HOST, Row, check_row
from flashpoc.core.errors import RemoteError
from flashpoc.params import HostParams
from flashpoc.engines.fio.run import fio_version

MIN_FIO_VERSION = (3, 0)
FIO_VERSION_RE = re.compile(r"fio-(\d+)\.(\d+)")



def parse_fio_version(text: str | None) -> tuple[int, int] | None:
    """Return (major, minor) from ``fio --version`` output such as ``fio-3.33``, or None."""
    match = FIO_VERSION_RE.search(text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def _evaluate_fio(host: str, host_params: HostParams, facts: dict[str, Any]) -> Row:
    raw = facts.get("fio_version")
    if raw == "missing" or facts.get("fio_path") == "missing":
        return check_row(host, "fio", "missing", "fail",
                    f"{host_params.fio!r} was not found on the host (install fio >= 3.0, or set the host's fio: path)")
    version = parse_fio_version(raw)
    where = f"{facts.get('fio_path')} ({raw or 'no version output'})"
    if version is None:
        return check_row(host, "fio", raw, "warn", f"cannot tell the fio version: {where}")
    value = f"{version[0]}.{version[1]}"
    if version < MIN_FIO_VERSION:
        return check_row(host, "fio", value, "warn",
                    f"{where} is older than 3.0: JSON output and latency units differ; upgrade fio")
    return check_row(host, "fio", value, "pass", where)


def _controller_fio_row(connect: Callable[[HostParams], Any], facts_by_host: dict[str, Any]) -> Row:
    """fio on this machine, which runs ``fio --client`` for several hosts: present, and the same
    release as on every host (fio's client/server protocol changes between releases, and a
    server drops a command of another protocol version: ``fio: bad server cmd version``)."""
    try:
        with connect(HostParams(name="controller", address="localhost")) as host:
            raw = fio_version(host)
    except (RemoteError, OSError) as error:
        raw = str(error)
    return controller_fio_row(raw, {name: (facts or {}).get("fio_version") for name, facts in facts_by_host.items()})


def controller_fio_row(raw: str, host_versions: dict[str, str | None]) -> Row:
    """The "fio on the controller" row from the controller's ``fio --version`` output and each
    host's (None for a host that was not reached; "missing" when it has no fio)."""
    version = parse_fio_version(raw)
    if version is None:
        return check_row(CAMPAIGN_ROW_HOST, "fio on the controller", "missing", "fail",
                    "several hosts run through fio --client from this machine: install fio here "
                    "(or set fio.multi_host: per-host)")
    others = {name: seen for name, seen in host_versions.items()
              if parse_fio_version(seen) is not None and seen.strip() != raw}
    value = f"{version[0]}.{version[1]}"
    if others:
        listed = ", ".join(f"{seen.strip()} on {name}" for name, seen in others.items())
        return check_row(CAMPAIGN_ROW_HOST, "fio on the controller", value, "fail",
                    f"{raw} here, {listed}: fio --client and fio --server must be the same release (their "
                    "protocol changes between releases); install the same fio on every host and here, or set "
                    "fio.multi_host: per-host")
    return check_row(CAMPAIGN_ROW_HOST, "fio on the controller", value, "pass",
                f"{raw}: runs fio --client for the hosts, the same release as every host")
