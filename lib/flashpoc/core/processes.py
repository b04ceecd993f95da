"""Processes of this machine, as /proc tells them."""

from __future__ import annotations


def parent_pid(pid: int | str) -> int | None:
    """The pid of ``pid``'s parent, from ``/proc/<pid>/stat``; None when it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1])  # after the name, which may hold ")"
    except (OSError, IndexError, ValueError):
        return None
