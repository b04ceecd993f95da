"""Host metrics from raw OS text (pure)."""

from __future__ import annotations

from flashpoc.core.errors import ParseError

# /proc/stat cpu columns: user nice system idle iowait irq softirq steal guest guest_nice
_IDLE, _IOWAIT = 3, 4


def _cpu_fields(line: str) -> list[int]:
    parts = line.split()
    if len(parts) < 8 or parts[0] != "cpu":  # user .. softirq since Linux 2.6, steal since 2.6.11
        raise ParseError(f"not a /proc/stat cpu line: {line[:80]!r}")
    if not all(v.isascii() and v.isdigit() for v in parts[1:]):  # a count: never signed, never another digit set
        raise ParseError(f"non-numeric /proc/stat cpu line: {line[:80]!r}")
    return [int(v) for v in parts[1:9]]  # guest time is already counted in user


def cpu_utilisation(before: str, after: str) -> dict[str, float | None]:
    """Host CPU use between two ``cpu`` lines of /proc/stat, in percent of all CPUs.

    Returns:
        ``host_cpu_busy_pct`` (user + system + irq + steal, i.e. not idle and not iowait),
        ``host_cpu_user_pct``, ``host_cpu_system_pct`` and ``host_cpu_iowait_pct``;
        None values when no tick passed between the two lines.

    Raises:
        ParseError: a line is not a whole ``cpu`` line, the two do not print as many counters (one
            cut short: its last counter may have lost digits), or a counter but iowait (which the
            kernel may decrease) went down (a damaged line, or another boot): never a share of
            other ticks.
    """
    if len(before.split()) != len(after.split()):
        raise ParseError(f"/proc/stat cpu lines of {len(before.split())} and {len(after.split())} fields: "
                         "one is cut short")
    b, a = _cpu_fields(before), _cpu_fields(after)
    if any(y < x for i, (x, y) in enumerate(zip(b, a)) if i != _IOWAIT):
        raise ParseError(f"a /proc/stat cpu counter went down between {before[:80]!r} and {after[:80]!r}")
    delta = [max(0, y - x) for x, y in zip(b, a)]  # iowait may go down (Documentation/filesystems/proc.rst)
    total = sum(delta)
    if total == 0:
        return {"host_cpu_busy_pct": None, "host_cpu_user_pct": None,
                "host_cpu_system_pct": None, "host_cpu_iowait_pct": None}
    idle, iowait = delta[_IDLE], delta[_IOWAIT]
    return {
        "host_cpu_busy_pct": 100.0 * (total - idle - iowait) / total,
        "host_cpu_user_pct": 100.0 * (delta[0] + delta[1]) / total,
        "host_cpu_system_pct": 100.0 * (delta[2] + delta[5] + delta[6]) / total,
        "host_cpu_iowait_pct": 100.0 * iowait / total,
    }
