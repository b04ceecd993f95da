"""Whether the load hosts, not the array, limit a result (pure: rows in, tables and verdicts out).

An array that outruns its load hosts still shows a plateau: the hosts' plateau. Signs of it,
read from the points a phase measured:

- **Host CPU**: a host's CPU at or above :data:`HOST_CPU_BUSY_LIMIT_PCT` busy (user + system)
  at the plateau: its load generator cannot issue more I/Os.
- **I/Os not in flight**: by Little's law the I/Os in flight are IOPS x mean latency; well below
  the outstanding I/Os the threads ask for (:data:`IN_FLIGHT_MIN_RATIO`), the hosts did not keep
  them in flight (CPU, interrupts, a queue limit of the HBA or the multipath device).
- **Unequal hosts**: with the same I/Os asked of every host, a host :data:`UNEQUAL_HOST_PCT` %
  or more below the best host gives less because of itself (its paths, HBA, CPU or NIC).
- **Host scaling**: the plateau point measured again on fewer hosts, with the same outstanding
  I/Os per host. When the array is the limit, fewer hosts give about the same total IOPS; when
  the hosts are, the total shrinks with the hosts: adding hosts still adds IOPS. Being measured,
  it outweighs the other signs: a busy host CPU at a plateau that fewer hosts reach as well did
  not limit it.

fio runs its threads on every host, so every host has the same I/Os in flight. vdbench's
threads are per SD and spread over the hosts' slave JVMs, so the hosts' shares differ by a
thread, and at low counts some hosts get none; its per-host entries say how many I/Os each
host was given (``outstanding_ios``), and only hosts given the same are compared.

Rows are the tidy rows of :mod:`flashpoc.analysis.rows`; several-host rows carry ``per_host``
(host -> IOPS, mean latency ms, host CPU busy %, and for vdbench the I/Os it was given).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from flashpoc.core.tables import number
from flashpoc.core.tables import threads_text

HOST_CPU_BUSY_LIMIT_PCT = 90.0
"""A host at least this % busy (user + system) limits the load it generates."""
IN_FLIGHT_MIN_RATIO = 0.8
"""I/Os in flight (IOPS x latency) below this share of the outstanding I/Os asked for."""
UNEQUAL_HOST_PCT = 25.0
"""A host this % below the best host's IOPS (same threads on every host)."""
SCALING_MIN_EFFICIENCY = 0.5
"""All the hosts gave at least this share of the gain over the fewest hosts that the hosts alone
would give (x1 + 0.5 x (N - 1) for N times the hosts): adding hosts still adds IOPS."""
SCALING_NO_GAIN_EFFICIENCY = 0.1
"""All the hosts gave at most this share of that gain: adding hosts adds no IOPS, the array is the limit."""
SCALING_LOAD_TOLERANCE = 0.25
"""Host scaling is judged only when the outstanding I/Os per host of its points are this close."""

PER_HOST_COLUMNS = ["workload", "threads", "host", "outstanding_ios", "iops", "iops_share_pct", "lat_mean_ms",
                    "host_cpu_busy_pct"]
ALL_HOSTS = "(all hosts)"


def per_host_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (point, host) and one ``(all hosts)`` row per point: IOPS, the host's share
    of the point's IOPS (%), mean latency (ms) and host CPU busy (%), with the point's
    ``config`` (compared campaigns), ``workload`` and ``threads`` (per host; for vdbench per
    SD, with ``outstanding_ios``: the I/Os vdbench gave each host). Points of one host give
    that host's row and the total row."""
    out = []
    for row in rows:
        keys = {k: row[k] for k in ("config", "workload", "threads") if k in row and _present(row[k])}
        total = float(row.get("iops") or 0.0)
        hosts = _hosts_of(row, unnamed="host")
        given = any("outstanding_ios" in values for values in hosts.values())
        for name, values in hosts.items():
            iops = number(values.get("iops"))
            out.append({**keys, "host": name, **({"outstanding_ios": values.get("outstanding_ios")} if given else {}),
                        "iops": iops, "iops_share_pct": 100.0 * iops / total if iops is not None and total else None,
                        "lat_mean_ms": number(values.get("lat_mean_ms")),
                        "host_cpu_busy_pct": number(values.get("host_cpu_busy_pct"))})
        if len(hosts) > 1:
            out.append({**keys, "host": ALL_HOSTS, **({"outstanding_ios": row.get("outstanding_ios")} if given else {}),
                        "iops": total, "iops_share_pct": 100.0, "lat_mean_ms": number(row.get("lat_mean_ms")),
                        "host_cpu_busy_pct": number(row.get("host_cpu_busy_pct"))})
    return out


def per_host_table(points: pd.DataFrame) -> pd.DataFrame:
    """:func:`per_host_rows` of a points table as a DataFrame (empty when no point ran on several hosts)."""
    if points.empty or "per_host" not in points or not points["per_host"].map(_has_hosts).any():
        return pd.DataFrame(columns=PER_HOST_COLUMNS)
    rows = points[points["per_host"].map(_has_hosts)].to_dict("records")
    frame = pd.DataFrame(per_host_rows(rows))
    return frame[[c for c in ["config", *PER_HOST_COLUMNS] if c in frame]]


def busiest_points(table: pd.DataFrame) -> pd.DataFrame:
    """The highest-IOPS point of each workload (and configuration) run on several hosts, per
    host: where a host bottleneck shows. ``table``: :func:`per_host_table`."""
    if table.empty:
        return table
    keys = [k for k in ("config", "workload") if k in table]
    totals = table[table["host"] == ALL_HOSTS]
    best = totals.loc[totals.groupby(keys, sort=False)["iops"].idxmax(), [*keys, "threads"]]
    return table.merge(best, on=[*keys, "threads"]).reset_index(drop=True)


def scaling_host_counts(n_hosts: int) -> list[int]:
    """The smaller host counts the host-scaling step measures: 1, half and all but one host
    (at most three extra points; none for one host)."""
    if n_hosts < 2:
        return []
    return sorted({1, max(1, n_hosts // 2), n_hosts - 1})


#: a plateau at this share of ``array.expected_iops`` or more is the array at its rating
EXPECTED_REACHED_SHARE = 0.9
#: a plateau under this share of ``array.expected_iops`` is well short of the array's rating
EXPECTED_SHORT_SHARE = 0.5


def host_limit(points: Sequence[Mapping[str, Any]], saturation_threads: int | None, *,
               scaling: Sequence[Mapping[str, Any]] = (), cpu_limit_pct: float = HOST_CPU_BUSY_LIMIT_PCT,
               expected_iops: float | None = None) -> dict[str, Any]:
    """Say whether the hosts or the array limit a probe's plateau.

    Args:
        points: the probe's rows (threads, iops, lat_mean_ms, outstanding_ios,
            host_cpu_busy_pct, n_hosts, optional per_host and littles_law_ratio).
        saturation_threads: where IOPS stopped rising (None: the highest-IOPS point is used).
        scaling: rows of the plateau point measured on fewer hosts (the same outstanding
            I/Os per host).
        cpu_limit_pct: host CPU busy % from which a host counts as the limit.
        expected_iops: the IOPS the array should reach (``array.expected_iops``): a plateau at
            :data:`EXPECTED_REACHED_SHARE` of it or more is the array at its rating (an unclear
            verdict becomes "array"); one under :data:`EXPECTED_SHORT_SHARE` of it is said, and
            with no sign of a host limit the suggestion is to check the array and the path to it.

    Returns:
        ``{"verdict": "hosts" | "array" | "unclear", "signs": [str], "notes": [str],
        "scaling": [{n_hosts, hosts, threads, iops, iops_per_host, outstanding_per_host}],
        "suggestion": str | None}``: ``signs`` are the findings behind the verdict, each a
        sentence with its numbers (beginning with a word, not a host name); ``notes`` say what
        was compared where the hosts did not carry the same load.
    """
    if not points:
        return {"verdict": "unclear", "signs": ["no probe point"], "notes": [], "scaling": [], "suggestion": None}
    plateau = _plateau(points, saturation_threads)
    signs = _busy_cpu_signs(plateau, cpu_limit_pct)
    top = max(plateau, key=lambda r: int(r["threads"]))
    ratio = number(top.get("littles_law_ratio"))
    if ratio is not None and ratio < IN_FLIGHT_MIN_RATIO:
        signs.append(f"at {top['threads']} threads only {ratio:.0%} of the {top['outstanding_ios']} outstanding I/Os "
                     f"asked for were in flight (IOPS x latency): the hosts did not keep them in flight")
    unequal, notes = _unequal_hosts(top)
    signs += unequal
    host_signs = bool(signs)
    # the point the fewer hosts measured again: the plateau's first (saturation) point, not its top
    measured_again = next((p for p in plateau if saturation_threads and int(p["threads"]) == saturation_threads), top)
    steps = _scaling_steps(measured_again, scaling)
    verdict = "hosts" if host_signs else "unclear"
    judged, note = _judged_steps(steps)
    notes += [note] if note else []
    if len(judged) >= 2:
        scaled, scaled_verdict = _scaling_signs(judged, steps, host_signs)
        signs += scaled
        verdict = scaled_verdict or verdict
    elif not signs and not saturation_threads:
        most = max(int(p["threads"]) for p in points)
        signs.append(f"IOPS were still rising at {most} threads, the most measured: neither the hosts nor "
                     f"the array showed a limit yet")
    elif not signs:
        cpus = [c for r in plateau for c in _host_cpu(r).values() if c is not None]
        cpu_text = f"host CPU at most {max(cpus):.0f}% busy" if cpus else "host CPU not measured"
        flight = f", {ratio:.0%} of the outstanding I/Os in flight" if ratio is not None else ""
        signs.append(f"no sign of a host limit at the plateau ({cpu_text}{flight})")
        verdict = "array"
    expected, verdict, short = _expected_signs(plateau, expected_iops, verdict, host_signs)
    signs += expected
    suggestion = _suggestion(verdict, short, saturation_threads, host_signs, len(judged) >= 2, top)
    return {"verdict": verdict, "signs": signs, "notes": notes, "scaling": steps, "suggestion": suggestion}


def _busy_cpu_signs(plateau: Sequence[Mapping[str, Any]], cpu_limit_pct: float) -> list[str]:
    """One sign per host whose CPU was at or above ``cpu_limit_pct`` busy at points of the plateau."""
    busy: dict[str, list[tuple[int, float]]] = {}  # host -> (threads, CPU busy %) at or above the limit
    for row in sorted(plateau, key=lambda r: int(r["threads"])):
        for name, cpu in _host_cpu(row).items():
            if cpu is not None and cpu >= cpu_limit_pct:
                busy.setdefault(name, []).append((int(row["threads"]), cpu))
    signs = []
    for name, seen in busy.items():
        cpus = sorted(round(cpu) for _, cpu in seen)
        at = threads_text(seen[0][0]) if len(seen) == 1 else f"{len(seen)} points from {seen[0][0]} to {seen[-1][0]} threads"
        how = f"{cpus[0]}%" if cpus[0] == cpus[-1] else f"{cpus[0]}-{cpus[-1]}%"
        signs.append(f"the CPU of {name} was {how} busy at {at} (at or above {cpu_limit_pct:g}%)")
    return signs


def _judged_steps(steps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    """The host-scaling steps to judge (none when their outstanding I/Os per host differ by more
    than :data:`SCALING_LOAD_TOLERANCE`), and the note saying why they were not judged."""
    loads = [s["outstanding_per_host"] for s in steps if s["outstanding_per_host"]]
    if len(steps) >= 2 and len(loads) == len(steps) and max(loads) > (1 + SCALING_LOAD_TOLERANCE) * min(loads):
        return [], ("host scaling not judged: its points had " + _loads(steps) + " outstanding I/Os per host, "
                    "not the same load per host")
    return steps, None


def _scaling_signs(judged: list[dict[str, Any]], steps: list[dict[str, Any]],
                   host_signs: bool) -> tuple[list[str], str | None]:
    """The signs of the host scaling (fewest hosts against all), and its verdict: ``hosts`` when
    adding hosts still adds IOPS, ``array`` when it adds none, None in between."""
    fewest, most = judged[0], judged[-1]
    ratio_x = most["iops"] / fewest["iops"] if fewest["iops"] else math.inf
    ideal_x = most["n_hosts"] / fewest["n_hosts"]
    loads = [s["outstanding_per_host"] for s in steps if s["outstanding_per_host"]]
    load = f", at {_loads(steps)} outstanding I/Os per host" if loads else ""
    going = (f"{fewest['n_hosts']} to {most['n_hosts']} hosts took the IOPS from {fewest['iops']:,.0f} to "
             f"{most['iops']:,.0f} (x{ratio_x:.2f}; x{ideal_x:g} if only the hosts limited them{load})")
    if ratio_x >= 1.0 + SCALING_MIN_EFFICIENCY * (ideal_x - 1.0):
        return [f"adding hosts still adds IOPS: {going}"], "hosts"
    if ratio_x <= 1.0 + SCALING_NO_GAIN_EFFICIENCY * (ideal_x - 1.0):
        signs = [f"adding hosts adds no IOPS: {going}: the array is the limit"]
        if host_signs:  # measured, the scaling outweighs what the plateau's hosts looked like
            signs.append("fewer hosts gave as many IOPS, so the signs of the hosts above did not limit the "
                         "result: the limit is beyond the hosts (the array, or what the hosts share on the way "
                         "to it)")
        return signs, "array"
    return [f"adding hosts adds some IOPS: {going}: both the hosts and the array are near their limits"], None


def _expected_signs(plateau: Sequence[Mapping[str, Any]], expected_iops: float | None, verdict: str,
                    host_signs: bool) -> tuple[list[str], str, bool]:
    """The plateau against ``array.expected_iops``: its sign, the verdict (an unclear one with no
    host sign becomes ``array`` at the rating) and whether the plateau is well short of it."""
    if not expected_iops:
        return [], verdict, False
    best = max(float(p["iops"]) for p in plateau)
    share = best / float(expected_iops)
    reached = (f"the plateau's {best:,.0f} IOPS are {share:.0%} of the {float(expected_iops):,.0f} IOPS expected "
               "of the array (array.expected_iops)")
    if share >= EXPECTED_REACHED_SHARE:
        return [f"{reached}: the array is at its rated limit"], \
            "array" if verdict == "unclear" and not host_signs else verdict, False
    if share < EXPECTED_SHORT_SHARE:
        return [f"{reached}: well short of its rating"], verdict, True
    return [], verdict, False


def _suggestion(verdict: str, short: bool, saturation_threads: int | None, host_signs: bool, scaling_judged: bool,
                top: Mapping[str, Any]) -> str | None:
    """What to do next: after ``array``, only when the plateau was well ``short`` of the array's
    rating; after ``hosts``; after ``unclear``, probe further or on more hosts."""
    if verdict == "array" and short:
        return ("The array gave well under the IOPS expected of it with no sign of a host limit: check its "
                "configuration and the path to it (HBAs, switches, multipathing) against the vendor's sizing.")
    if verdict == "hosts":
        return "Add load hosts (or faster ones) and probe again before drawing conclusions about the array."
    if verdict == "unclear" and not saturation_threads and not host_signs:
        return "Probe further (raise probe.max_threads) to find where IOPS stop rising."
    if verdict == "unclear" and not scaling_judged and len(top.get("per_host") or {}) < 2:
        return "Run the probe on more load hosts to tell a host limit from an array limit."
    return None


def host_limit_text(limit: Mapping[str, Any]) -> str:
    """Markdown: the verdict of :func:`host_limit`, its signs and its suggestion."""
    heads = {"hosts": "**The load hosts are the limit, not the array.**",
             "array": "**The array is the limit** (no sign of a host limit).",
             "unclear": "**Hosts or array: not clear.**"}
    lines = [heads.get(limit.get("verdict"), "**Hosts or array: not clear.**"), ""]
    lines += [f"- {sign[0].upper()}{sign[1:]}." for sign in limit.get("signs", [])]  # each begins with a word
    lines += [f"- {note[0].upper()}{note[1:]}." for note in limit.get("notes", [])]
    if limit.get("scaling"):
        steps = ", ".join(f"{s['n_hosts']} host{'s' if s['n_hosts'] > 1 else ''}: {s['iops']:,.0f} IOPS"
                          for s in limit["scaling"])
        lines.append(f"- Host scaling at the plateau's outstanding I/Os per host: {steps}.")
    if limit.get("suggestion"):
        lines += ["", limit["suggestion"]]
    return "\n".join(lines)


def _plateau(points: Sequence[Mapping[str, Any]], saturation_threads: int | None) -> list[Mapping[str, Any]]:
    """The points at and beyond the saturation point (the highest-IOPS point without one)."""
    n_hosts = max(int(p.get("n_hosts") or 1) for p in points)
    full = [p for p in points if int(p.get("n_hosts") or 1) == n_hosts]
    if saturation_threads:
        beyond = [p for p in full if int(p["threads"]) >= saturation_threads]
        if beyond:
            return beyond
    return [max(full, key=lambda p: float(p["iops"]))]


def _hosts_of(row: Mapping[str, Any], *, unnamed: str) -> Mapping[str, Mapping[str, Any]]:
    """A point's hosts: its ``per_host``, or for a point of one host that host (named by the
    row's ``hosts``, else ``unnamed``) with the row's own IOPS, latency and CPU."""
    hosts = row.get("per_host")
    if isinstance(hosts, Mapping) and hosts:
        return hosts
    return {str(row.get("hosts") or unnamed): {k: row.get(k) for k in ("iops", "lat_mean_ms", "host_cpu_busy_pct")}}


def _host_cpu(row: Mapping[str, Any]) -> dict[str, float | None]:
    return {name: number(values.get("host_cpu_busy_pct"))
            for name, values in _hosts_of(row, unnamed="the host").items()}


def _unequal_hosts(row: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """Signs of hosts well below the best host given the same I/Os, and notes on hosts given
    other loads (vdbench's spread of each SD's threads over the hosts' JVMs)."""
    hosts = _hosts_of(row, unnamed="host")
    if len(hosts) < 2:
        return [], []
    asked = {name: number(values.get("outstanding_ios")) for name, values in hosts.items()}
    notes = []
    if any(value is not None for value in asked.values()) and len(set(asked.values())) > 1:
        given = ", ".join(f"{name} {value:,.0f}" for name, value in asked.items() if value is not None)
        notes.append(f"at {row['threads']} threads per SD vdbench gave the hosts unequal loads (it spreads each SD's "
                     f"threads over the hosts' JVMs): outstanding I/Os {given}; only hosts given the same are compared")
    groups: dict[float | None, dict[str, float]] = {}
    for name, values in hosts.items():
        iops = number(values.get("iops"))
        if iops is not None:
            groups.setdefault(asked[name], {})[name] = iops
    signs = []
    for load, known in groups.items():
        if len(known) < 2:
            continue
        best_name = max(known, key=known.__getitem__)
        best = known[best_name]
        same = f"the same {load:,.0f} outstanding I/Os" if load is not None else "the same threads"
        signs += [f"host {name} gave {value:,.0f} IOPS at {row['threads']} threads, {100.0 * (1 - value / best):.0f}% "
                  f"below {best_name} ({best:,.0f}) with {same}: look at its CPU, paths and HBA queue depth"
                  for name, value in known.items() if best and value < (1 - UNEQUAL_HOST_PCT / 100.0) * best]
    return signs, notes


def _scaling_steps(top: Mapping[str, Any], scaling: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if not scaling:
        return []
    rows = [*scaling, top]
    steps = {int(r.get("n_hosts") or 1): r for r in rows}
    out = []
    for n in sorted(steps):
        row = steps[n]
        outstanding = number(row.get("outstanding_ios"))
        out.append({"n_hosts": n, "hosts": row.get("hosts"), "threads": row.get("threads"), "iops": float(row["iops"]),
                    "iops_per_host": float(row["iops"]) / n,
                    "outstanding_per_host": outstanding / n if outstanding is not None else None})
    return out


def _loads(steps: Sequence[Mapping[str, Any]]) -> str:
    """``8`` when every step had 8 outstanding I/Os per host, else ``4, 8 and 8``."""
    values = [f"{v:,.0f}" if float(v).is_integer() else f"{v:,.1f}" for v in (s["outstanding_per_host"] for s in steps)]
    if len(set(values)) == 1:
        return values[0]
    return ", ".join(values[:-1]) + " and " + values[-1]


def _has_hosts(value: Any) -> bool:
    return isinstance(value, Mapping) and len(value) > 1


def _present(value: Any) -> bool:
    return not (isinstance(value, float) and math.isnan(value))
