"""Host metrics from raw OS text (pure)."""

from __future__ import annotations

from ..errors import ParseError

# /proc/stat cpu columns: user nice system idle iowait irq softirq steal guest guest_nice
_IDLE, _IOWAIT = 3, 4


def _cpu_fields(line: str) -> list[int]:
    parts = line.split()
    if len(parts) < 5 or parts[0] != "cpu":
        raise ParseError(f"not a /proc/stat cpu line: {line[:80]!r}")
    try:
        values = [int(v) for v in parts[1:9]]  # guest time is already counted in user
    except ValueError:
        raise ParseError(f"non-numeric /proc/stat cpu line: {line[:80]!r}") from None
    return values


def cpu_utilisation(before: str, after: str) -> dict[str, float | None]:
    """Host CPU use between two ``cpu`` lines of /proc/stat, in percent of all CPUs.

    Returns:
        ``host_cpu_busy_pct`` (user + system + irq + steal, i.e. not idle and not iowait),
        ``host_cpu_user_pct``, ``host_cpu_system_pct`` and ``host_cpu_iowait_pct``;
        None values when no tick passed between the two lines.
    """
    b, a = _cpu_fields(before), _cpu_fields(after)
    delta = [max(0, y - x) for x, y in zip(b, a)]
    total = sum(delta)
    if total == 0:
        return {"host_cpu_busy_pct": None, "host_cpu_user_pct": None,
                "host_cpu_system_pct": None, "host_cpu_iowait_pct": None}
    idle, iowait = delta[_IDLE], delta[_IOWAIT]
    return {
        "host_cpu_busy_pct": round(100.0 * (total - idle - iowait) / total, 2),
        "host_cpu_user_pct": round(100.0 * (delta[0] + delta[1]) / total, 2),
        "host_cpu_system_pct": round(100.0 * (delta[2] + delta[5] + delta[6]) / total, 2),
        "host_cpu_iowait_pct": round(100.0 * iowait / total, 2),
    }
