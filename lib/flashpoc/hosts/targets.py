"""Host I/O on the targets, each a named function over the host interface: their sizes and
identities (read-only), the scratch files made, a sample read back.

The phases and the precondition call these rather than assembling shell commands; every value
that goes into a command is quoted (:func:`flashpoc.hosts.host.quote`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashpoc.core.errors import RemoteError
from flashpoc.hosts.facts import target_lines
from flashpoc.hosts.host import quote
from flashpoc.hosts.safety import HEADER_BYTES

if TYPE_CHECKING:
    from flashpoc.params import HostParams, TargetParams


def target_sizes(host, targets: list) -> dict[str, int | str | None]:
    """Each target's size on ``host``, read-only, in one command: bytes of a block device
    (``blockdev --getsize64``, else ``/sys/class/block``) or of a file, ``"missing"``,
    ``"other"`` (a directory or another kind of file), or None when it cannot be read."""
    probe = ('if [ -b "$p" ]; then s=$(blockdev --getsize64 "$p" 2>/dev/null); if [ -z "$s" ]; then '
             'n=$(readlink -f "$p"); n=${n##*/}; s=$(cat "/sys/class/block/$n/size" 2>/dev/null) && s=$((s * 512)); '
             'fi; echo "${s:-?}"; elif [ -f "$p" ]; then stat -L -c %s "$p" 2>/dev/null || echo "?"; '
             'elif [ -e "$p" ]; then echo other; else echo missing; fi')
    lines = target_lines(host, targets, probe, "read the targets' sizes")
    return {t.path: int(v) if v.isdigit() else v if v in ("missing", "other") else None
            for t, v in zip(targets, lines)}


def target_identities(host, targets: list[TargetParams]) -> dict[str, str]:
    """Each target's identity on ``host``, read-only: ``block NAME WWID`` of a block device (its
    ``wwid``, else a loop device's backing file), ``file DEV:INODE:BIRTH`` of a file (birth time 0
    where the file system keeps none), or ``missing``."""
    probe = ('if [ -b "$p" ]; then n=$(readlink -f "$p"); n=${n##*/}; '
             'w=$(cat "/sys/class/block/$n/device/wwid" "/sys/class/block/$n/wwid" '
             '"/sys/class/block/$n/loop/backing_file" 2>/dev/null | head -n1 | tr -s " \\t" "  "); '
             'echo "block $n ${w:-unknown}"; elif [ -f "$p" ]; then stat -L -c "file %d:%i:%W" "$p"; '
             'else echo missing; fi')
    return dict(zip([t.name for t in targets], target_lines(host, targets, probe, "read the targets' identities")))


def header_digests(host, targets: list[TargetParams], *, timeout_s: float | None = None) -> dict[str, str | None]:
    """The SHA-256 of each target's first :data:`flashpoc.hosts.safety.HEADER_BYTES` on ``host``
    (the bytes the safety gate reads; :func:`flashpoc.hosts.safety.header_digest`), read-only, by
    path; None where the target cannot be read or is empty.

    Raises:
        RemoteError: the host failed or did not answer within ``timeout_s``.
    """
    probe = (f'if [ -r "$p" ] && [ -s "$p" -o -b "$p" ]; then d=$(dd if="$p" bs={int(HEADER_BYTES)} count=1 '
             '2>/dev/null | sha256sum | cut -c1-64); echo "${d:-?}"; else echo "?"; fi')
    lines = target_lines(host, targets, probe, "read the targets' first bytes", timeout_s=timeout_s)
    return {t.path: v if len(v) == 64 and all(c in "0123456789abcdef" for c in v) else None
            for t, v in zip(targets, lines)}


def make_target_directory(host, target: TargetParams) -> None:
    """Make the directory of the file ``target`` on ``host`` (and its parents; nothing when it exists)."""
    host.run(f"mkdir -p {quote(str(Path(target.path).parent))}", purpose=f"create the directory of {target.path}")


def make_scratch_files(host, targets: list[TargetParams]) -> None:
    """Make the scratch files ``targets`` at their size (sparse), their directories too; a file
    already as large is left as it is. The fill writes them afterwards."""
    if targets:
        host.run(" && ".join(f"mkdir -p {quote(str(Path(t.path).parent))} && {{ [ \"$(stat -L -c %s {quote(t.path)} "
                             f"2>/dev/null || echo 0)\" -ge {t.size_bytes} ] || truncate -s {t.size_bytes} "
                             f"{quote(t.path)}; }}" for t in targets),
                 purpose=f"make the scratch files {', '.join(t.name for t in targets)}")


def read_back(host, target: TargetParams, offsets: list[int], *, block: int, count: int) -> dict[str, Any]:
    """Read ``count`` blocks of ``block`` bytes at each of ``offsets`` of ``target`` on ``host``
    (read-only, ``dd``, once: into a temporary file of the host, removed after) and return the bytes read, their SHA-256 and their size compressed by
    ``gzip -1`` (None without gzip on the host).

    Raises:
        RemoteError: the host failed, or printed something else than the three numbers.
    """
    reads = "; ".join(f"dd if={quote(target.path)} bs={block} skip={o // block} count={count} 2>/dev/null"
                      for o in offsets)
    command = (f't=$(mktemp) || exit 1; trap \'rm -f "$t"\' EXIT; {{ {reads}; }} > "$t"; '  # read once
               'sha256sum < "$t" | cut -c1-64; wc -c < "$t"; '
               'if command -v gzip >/dev/null 2>&1; then gzip -1c < "$t" | wc -c; else echo none; fi')
    lines = host.run(command, purpose=f"read a sample of {target.name} back").stdout.split()
    if len(lines) != 3 or not lines[1].isdigit():
        raise RemoteError(f"{host.name}: read a sample of {target.name} back: unexpected output {lines!r}")
    return {"bytes": int(lines[1]), "sha256": lines[0], "gzip_bytes": int(lines[2]) if lines[2].isdigit() else None}


#: the slowest fill rate a host's command timeout is stretched for (bytes/s): a 10 TiB LUN takes hours
FILL_MIN_RATE = 20 * 1024 * 1024


def fill_timeout_s(host_params: HostParams, total_bytes: int) -> float:
    """Seconds a fill of ``total_bytes`` may take on one host: the host's ``command_timeout_s``, or
    longer for a working set that needs it at :data:`FILL_MIN_RATE`."""
    return max(host_params.command_timeout_s, total_bytes / FILL_MIN_RATE + 600)
