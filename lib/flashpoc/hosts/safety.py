"""Data safety: what a write to a target would destroy, and who uses it (pure: facts in, findings out).

The facts come from the read-only probes of :mod:`flashpoc.hosts.facts` (the first 8 KiB of the
target, ``blkid -p``, mounts, holders, processes that have it open). :func:`findings` names
what is there; :func:`verdict` decides whether the campaign may write to it:

- a target that is mounted, held by another device (device-mapper, md, LVM, a loop device) or
  open by a process is never written: writing under a live file system or database corrupts
  it and can crash the host;
- a target whose header holds a file system, a partition table, an LVM, ASM, md or LUKS header
  or a swap area is written only when the campaign lists it by name in ``destroy_data_on``;
- a target whose header cannot be read cannot be shown to be empty and is treated the same way;
- what the probes read in data the campaign wrote itself is that data, not another owner's: when
  the first bytes are exactly as the campaign left them at the end of its last phase that wrote
  (``left_by_campaign``, their :func:`header_digest`, recorded by :mod:`flashpoc.campaign.written`),
  a signature found there is reported as the campaign's own. Random data passes blkid's ext4
  probe whenever bytes 1080-1081 happen to read 0xEF53 (once in 65,536 fills), so without this a
  campaign would in time refuse its own scratch file. Any other change to those bytes (a mkfs, a
  partition table, another campaign's fill) makes the target judged as found again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

#: (byte offset, magic bytes, what it means) of the signatures looked for in the first 8 KiB.
SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (0, b"XFSB", "an XFS file system (XFSB at byte 0)"),
    (32, b"ORCLDISK", "an Oracle ASM disk header (ORCLDISK at byte 32)"),
    (512, b"EFI PART", "a GPT partition table (EFI PART at byte 512)"),
    *((offset, b"LABELONE", f"an LVM physical volume label (LABELONE at byte {offset})")
      for offset in (0, 512, 1024, 1536)),
    (4086, b"SWAPSPACE2", "a Linux swap area (SWAPSPACE2 at byte 4086)"),
    (0, b"LUKS\xba\xbe", "a LUKS encrypted volume (LUKS header at byte 0)"),
    (4096, b"\xfc\x4e\x2b\xa9", "an md RAID member (superblock 1.2 at byte 4096)"),
    (3, b"NTFS    ", "an NTFS file system (at byte 3)"),
    (82, b"FAT32   ", "a FAT32 file system (at byte 82)"),
)

HEADER_BYTES = 8192
"""How much of a target's beginning the probe reads (bytes)."""


@dataclass(frozen=True)
class Finding:
    """One thing found on a target: ``kind`` is ``"data"`` (a write destroys it), ``"in use"`` (a
    write corrupts something live) or ``"own"`` (read in the data the campaign itself left there);
    ``text`` says what, for messages."""

    kind: str
    text: str


def header_signatures(header: bytes) -> list[str]:
    """What the first bytes of a target hold: file systems, partition tables, volume headers.

    Besides :data:`SIGNATURES`: an ext2/3/4 superblock (magic 0xEF53 at byte 1080 with a
    plausible block size and inode count) and an MBR partition table (0x55AA at byte 510 and
    four well-formed entries, at least one used): checks that random data passes about once
    in 10^9, so a scratch file of random data is not mistaken for one.
    """
    found = [text for offset, magic, text in SIGNATURES if header[offset:offset + len(magic)] == magic]
    if header[1080:1082] == b"\x53\xef" and len(header) >= 1112:
        inodes = int.from_bytes(header[1024:1028], "little")
        log_block = int.from_bytes(header[1048:1052], "little")
        if inodes > 0 and log_block <= 6:
            found.append("an ext2/3/4 file system (superblock magic 0xEF53 at byte 1080)")
    if header[510:512] == b"\x55\xaa":
        entries = [header[446 + 16 * i:462 + 16 * i] for i in range(4)]
        if all(e[0] in (0x00, 0x80) for e in entries) and any(e[4] for e in entries):
            types = ", ".join(f"0x{e[4]:02x}" for e in entries if e[4])
            found.append(f"an MBR partition table (partition types {types})")
    return found


def header_digest(header: bytes) -> str:
    """The SHA-256 (hex) of a target's first bytes as the probes read them."""
    return hashlib.sha256(header).hexdigest()


def findings(facts: dict[str, Any]) -> list[Finding]:
    """Everything the probes found on one target (see :mod:`flashpoc.hosts.facts`); [] for a
    target that does not exist yet. When its first bytes are the ones the campaign left there
    (``facts["left_by_campaign"]``: ``header_sha256`` and ``at``), what they show is ``own``."""
    if facts.get("type") not in ("block", "file"):
        return []
    out: list[Finding] = []
    for key, what in (("mounted", "mounted at"), ("holders", "held by"), ("open_by", "open by")):
        value = facts.get(key)
        if value and value != "none":
            out.append(Finding("in use", f"{what} {value}"))
    header_hex = facts.get("header_hex")
    if not header_hex:
        out.append(Finding("data", "its first bytes could not be read (permission?), so it cannot be shown to "
                                   "hold no data"))
    else:
        out += [Finding("data", text) for text in header_signatures(bytes.fromhex(header_hex))]
    blkid = facts.get("blkid")
    if blkid and blkid != "none":
        values = dict(part.split("=", 1) for part in blkid.split() if "=" in part)
        described = [f"{key}={values[key]}" for key in ("TYPE", "PTTYPE") if key in values]
        if described:
            out.append(Finding("data", f"blkid: {' '.join(described)}"))
    left = facts.get("left_by_campaign") or {}
    if header_hex and any(f.kind == "data" for f in out) and left.get("header_sha256") == header_digest(
            bytes.fromhex(header_hex)):
        out = [Finding("own", f"its first {HEADER_BYTES // 1024} KiB are as this campaign left them "
                              f"({left.get('at') or 'time not recorded'})")] + [
            Finding("own" if f.kind == "data" else f.kind, f.text) for f in out]
    return out


def verdict(target_name: str, host: str, found: list[Finding], *, destroy_allowed: bool) -> tuple[str, str]:
    """``(status, detail)`` of writing to a target: ``fail`` when it is in use, or holds data
    and is not listed in ``destroy_data_on``; ``warn`` when it holds data that the parameters
    allow destroying; ``pass`` when nothing was found, or only the campaign's own data."""
    in_use = [f.text for f in found if f.kind == "in use"]
    data = [f.text for f in found if f.kind == "data"]
    own = [f.text for f in found if f.kind == "own"]
    where = f"target {target_name} on host {host}"
    if in_use:
        return "fail", (f"{where} is in use ({'; '.join(in_use)}): flashpoc never writes to a target in use, "
                        "even one listed in destroy_data_on; unmount or release it first")
    if data and not destroy_allowed:
        return "fail", (f"{where} holds data: {'; '.join(data)}. Write workloads would destroy it. If that is "
                        f"intended, list it in the parameters: destroy_data_on: [{target_name}]")
    if data:
        return "warn", f"{where} holds data that will be destroyed (destroy_data_on): {'; '.join(data)}"
    if own:
        return "pass", (f"holds only data this campaign wrote: {own[0]}, and what the probes read there "
                        f"is in that data ({'; '.join(own[1:])}); not mounted, held or open")
    return "pass", "no file system, partition table, LVM, ASM or md header; not mounted, held or open"
