"""Several load hosts' runs of one HammerDB point combined into its row (pure).

Each load host runs HammerDB at the point's virtual users, all started together. What each host
counts on its own side is summed: the active virtual users, each transaction's calls (the
hosts' time profiles) and its error lines. NOPM and TPM are not: HammerDB counts them in the database (new orders
from ``district``, the database's commits and rollbacks: PostgreSQL's ``pg_stat_database``,
Oracle's AWR), so each host's HammerDB prints the database's total over its own timed test, which
the other hosts' work is part of; adding them up would count that work again. The row keeps the
first load host's (as HammerDB's own primary/replica mode reports the primary's), with every
host's in ``per_host`` and how far they are apart (``nopm_hosts_spread_pct``); so too its
response times, counter series and AWR metrics. The load host CPU is the hosts' mean, each one's
in ``per_host``.
"""

from __future__ import annotations

from typing import Any

#: what ``per_host`` keeps of each load host's row
PER_HOST = ("nopm", "tpm", "virtual_users", "neword_p95_ms", "neword_calls", "errors", "host_cpu_busy_pct", "jobid",
            "test_start", "test_end")


def combine_hosts(per_host: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]]
                  ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The point's metrics and counter series from each load host's (``{host: (metrics, series)}``,
    the first host first); one host's as they are."""
    names = list(per_host)
    first, series = per_host[names[0]]
    if len(names) == 1:
        return dict(first), series
    rows = {h: m for h, (m, _) in per_host.items()}
    metrics = dict(first)
    metrics["virtual_users"] = sum(int(m["virtual_users"]) for m in rows.values())
    for key in [k for k in first if k.endswith(("_calls", "_errors")) or k == "errors"]:
        values = [m.get(key) for m in rows.values()]
        metrics[key] = None if any(v is None for v in values) else sum(values)
    cpu = [m.get("host_cpu_busy_pct") for m in rows.values()]
    metrics["host_cpu_busy_pct"] = None if any(v is None for v in cpu) else sum(cpu) / len(cpu)
    nopm = [float(m["nopm"]) for m in rows.values()]
    metrics["nopm_hosts_spread_pct"] = (max(nopm) - min(nopm)) / max(nopm) * 100.0 if max(nopm) else None
    metrics["per_host"] = {h: {k: m.get(k) for k in PER_HOST} for h, m in rows.items()}
    return metrics, series
