"""The probe's result as notebook 02 and the report show it: its points as tables (all hosts, and
each host's share), and the answer with the fit's account, the probe's cost and the follow-up sweep
as Markdown."""

from __future__ import annotations

from typing import Any

import pandas as pd

from flashpoc.analysis import hostlimit
from flashpoc.analysis.sweep_plan import threads_list_text
from flashpoc.campaign.probe_words import probe_answer_text


def probe_table(probe: dict[str, Any]) -> pd.DataFrame:
    """The probe's points as a table (threads, outstanding I/Os, IOPS, latency ms, ...), as measured (a
    notebook shows it with :func:`flashpoc.present.summary.frame_display`, which rounds each value once)."""
    frame = pd.DataFrame(probe["points"]).drop(columns=["point_id", "hosts", "per_host"], errors="ignore")
    return frame.sort_values(["threads", "repeat"]).reset_index(drop=True)


def probe_hosts_table(probe: dict[str, Any]) -> pd.DataFrame:
    """Each load host's IOPS, share (%), mean latency (ms) and CPU busy (%) at every probe
    point by threads, each point's total (``(all hosts)``) after its hosts; then the plateau
    point on fewer hosts, if measured."""
    rows = sorted(({**p, "workload": probe["workload"]} for p in probe["points"]), key=lambda p: p["threads"])
    frame = pd.DataFrame(hostlimit.per_host_rows(rows))
    scaling = probe.get("host_scaling") or []
    if scaling:
        frame = pd.concat([frame, pd.DataFrame([{"workload": probe["workload"], "threads": r["threads"],
                                                 "host": f"{r['n_hosts']} of the hosts ({r['hosts']})",
                                                 "iops": r["iops"], "lat_mean_ms": r["lat_mean_ms"]}
                                                for r in scaling])], ignore_index=True)
    return frame


def probe_text(probe: dict[str, Any]) -> str:
    """Markdown: the probe's answer (:func:`probe_answer_text`), the fit's own account of it,
    what the probe cost, the POC guide's neighbour rule, the follow-up sweep and the hosts-or-array
    verdict."""
    sat = probe["saturation"]
    cost = (f"{probe['runs']} runs, {probe['device_time_s']:,.1f} s of device time "
            f"({probe['strategy']} strategy, workload {probe['workload']})")
    if any(p.get("measured_s") is not None for p in probe.get("points") or []):
        cost += "; each point ended once its IOPS were steady"
    if probe.get("host_scaling"):
        cost += f", then {len(probe['host_scaling'])} runs on fewer hosts"
    limit = ["", hostlimit.host_limit_text(probe["host_limit"])] if probe.get("host_limit") else []
    first, _, rest = probe_answer_text(probe).partition(". ")
    lines = [f"**{first}.** {rest}".rstrip() if rest else f"**{first}**", ""]
    if sat.get("threads"):
        lines += [f"Fit: {sat.get('reason', '')}", ""]
    lines.append(f"Probe: {cost}. The POC guide's neighbour rule (first point after which no later point gains "
                 f"more than {probe['gain_pct']:g}%) " + (f"says {sat['rule_threads']} threads."
                                                          if sat.get("rule_threads") else "finds no such point."))
    if probe.get("followup_sweep"):
        f = probe["followup_sweep"]
        lines += ["", f"Follow-up sweep: threads {threads_list_text(f['threads'])} ({f['points']} points per "
                      "workload)."]
    return "\n".join(lines + limit)
