"""The report as a document a customer can read alone: its sections, in order.

:func:`compose` turns what :func:`flashpoc.phases.build_report` computed (a
:class:`flashpoc.phases.Report`) and what the campaign recorded (manifest.json, check.csv,
probe.json) into sections of text, tables (:class:`flashpoc.tables.Table`) and charts. The
same sections make report.html (and its PDF) and what notebook 04 shows
(:meth:`flashpoc.phases.Report.show`), so both read the same:

1. Executive summary: what was tested, the key results and the verdicts (the saturation
   probe's, hosts or array), and the results table with the caveats next to the numbers.
2. Test conditions: date, engine and version, hosts, targets and sizes, point length and
   warm-up, the working set against the array's cache.
3. Method: how each number is measured and read.
4. Comparison (when campaigns are compared).
5. Results: latency against load, percentiles, CPU and load hosts, steady state, latency
   distribution, the saturation probe.
6. Appendix: every point, the files, a glossary.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from . import analysis, hostlimit, summary, tables
from .engines import get_engine
from .params import parse_size
from .summary import KIND_THROUGHPUT
from .workingset import judge_working_set


@dataclass
class DocSection:
    """One section: ``key`` (what :meth:`flashpoc.phases.Report.show` takes), ``heading`` and
    ``items`` (str as Markdown, :class:`flashpoc.tables.Table`, Altair charts)."""

    key: str
    heading: str
    items: list[Any] = field(default_factory=list)


@dataclass
class Context:
    """What the campaign recorded besides its points: ``manifest`` (manifest.json), ``check``
    (check.csv), ``probe`` (probe.json of the current settings, or None), ``root`` (the
    campaign's folder), ``pdf_note`` (why there is no PDF, or "")."""

    manifest: Mapping[str, Any] = field(default_factory=dict)
    check: pd.DataFrame = field(default_factory=pd.DataFrame)
    probe: Mapping[str, Any] | None = None
    root: Path | None = None
    pdf_note: str = ""


def compose(report, context: Context) -> list[DocSection]:
    """The report's sections, in reading order (see the module's docstring).

    Args:
        report: a :class:`flashpoc.phases.Report` (its charts, tables and campaign).
        context: what the campaign recorded (:class:`Context`).
    """
    sections = [DocSection("summary", "Executive summary", executive_summary(report, context)),
                DocSection("conditions", "Test conditions", conditions(report, context)),
                DocSection("method", "Method", method(report))]
    if report.configs:
        sections.append(DocSection("comparison", "Comparison of the configurations", comparison(report)))
    sections += results(report, context)
    sections += [DocSection("appendix", "Appendix A: every point", [
                     "Every measured point of the sweep, in the order of the workloads and their threads. "
                     "`points.csv` has every column of every point, under its machine name.",
                     summary.points_display(report.measured)]),
                 DocSection("appendix", "Appendix B: files", [
                     "Paths are relative to the campaign's folder (`results/<campaign>/`).",
                     files_table(report, context)]),
                 DocSection("appendix", "Appendix C: glossary", [glossary()])]
    return [s for s in sections if s.items]


def title_lines(report, context: Context) -> list[str]:
    """The lines under the report's title: what the campaign is, when, with what engine, and
    which configurations are compared."""
    cfg = report.cfg
    lines = [cfg.description] if cfg.description else []
    lines.append(f"Measured {measured_when(report.measured)} with {engine_text(cfg, context, report.measured)}; "
                 f"latency SLO {cfg.slo_ms:g} ms.")
    if report.configs:
        lines.append("Configurations compared: " + ", ".join(report.configs) + f" (baseline {report.configs[0]}).")
    return lines


# --- 1. executive summary -----------------------------------------------------------------


def executive_summary(report, context: Context) -> list[Any]:
    """What was tested (one paragraph), the key results and verdicts (a highlighted block), the
    results table with its caveats."""
    cfg = report.cfg
    items: list[Any] = [tested_text(report, context)]
    lines = [f"> **Key results** (latency SLO: {cfg.slo_ms:g} ms mean)", ">"]
    if report.configs:
        lines.append(f"> Configurations: **{report.configs[0]}** (the baseline) against "
                     + ", ".join(f"**{c}**" for c in report.configs[1:]) + "; the deltas are below.")
        lines.append(">")
    lines += [f"> - {line}" for line in key_results(report)]
    unsteady = summary.unsteady_summary(report.steadiness)
    if unsteady:
        lines += [">", f"> **Steady state**: {unsteady}"]
    for paragraph in verdict_lines(report, context):
        lines += [">", *(f"> {line}" for line in paragraph.splitlines() if line.strip())]
    items.append("\n".join(lines))
    items.append(summary.results_table(report.summary, report.points, cfg.slo_ms))
    if report.configs and not report.comparison.empty:
        items.append("### Against the baseline\n\n" + report.comparison_text)
    return items


def tested_text(report, context: Context) -> str:
    """One paragraph: the campaign, when, with what, on what, how many points."""
    cfg = report.cfg
    points = report.measured
    hosts = [h.name for h in cfg.hosts]
    what = f"**{cfg.campaign}**" + (f": {cfg.description.rstrip('.')}." if cfg.description else ".")
    when = measured_when(points)
    engine = engine_text(cfg, context, points)
    targets = targets_text(cfg, points)
    workloads = list(dict.fromkeys(points["workload"]))
    runtime = _runtime_text(points)
    return (f"{what} Measured {when} with {engine} from {len(hosts)} load host{'s' * (len(hosts) > 1)} "
            f"({', '.join(hosts)}){targets}: {len(workloads)} workload{'s' * (len(workloads) > 1)}, "
            f"{len(points)} points{runtime}.")


def key_results(report) -> list[str]:
    """One line per workload (and configuration): the most it gave and what it gave within the SLO."""
    slo = report.cfg.slo_ms
    kinds = summary.workload_kinds(report.points)
    lines = []
    for r in report.summary.to_dict("records"):
        config = f"{r['config']}, " if r.get("config") else ""
        group = report.points[report.points["workload"] == r["workload"]]
        if r.get("config"):
            group = group[group["config"] == r["config"]]
        best = group.loc[group["iops"].idxmax()]
        described = summary.io_text(best.to_dict())
        if kinds.get(r["workload"]) == KIND_THROUGHPUT:
            most = (f"up to {tables.mibps(best.get('bw_mibps'))} MiB/s ({tables.count(r['max_iops'])} IOPS) at "
                    f"{tables.ms(r['max_iops_lat_mean_ms'])} ms")
        else:
            most = f"up to {tables.count(r['max_iops'])} IOPS at {tables.ms(r['max_iops_lat_mean_ms'])} ms"
            expected = report.cfg.array.expected_iops
            if expected:
                most += f" ({float(r['max_iops']) / expected:.0%} of the {tables.count(expected)} expected of the array)"
        at_slo = r.get(f"iops_at_{slo:g}ms")
        status = r.get("slo_status")
        if status == "above_all":
            within = f"no point within {slo:g} ms"
        elif status == "below_all":
            within = f"every point within {slo:g} ms (the SLO was not reached)"
        else:
            within = f"{tables.count(at_slo)} IOPS within {slo:g} ms"
        lines.append(f"{config}**{r['workload']}** ({described}): {most}; {within}.")
    return lines


def headline(report) -> str:
    """Markdown: the campaign and one line per workload (:func:`key_results`), for a terminal or a notebook."""
    cfg = report.cfg
    head = f"**{cfg.campaign}**" + (f": {cfg.description}" if cfg.description else "")
    return "\n".join([head, "", *(f"- {line}" for line in key_results(report))])


def verdict_lines(report, context: Context) -> list[str]:
    """The saturation probe's answer (its first paragraph, as the probe gives it) and the
    verdict on hosts or array, each a paragraph."""
    from .probe import probe_text

    lines = []
    if context.probe is not None:
        first = probe_text(context.probe).strip().split("\n\n")[0]
        lines.append(f"**Saturation probe** ({context.probe.get('workload')}): {first}")
    if report.host_limit:
        text = hostlimit.host_limit_text(report.host_limit).strip()
        head = re.sub(r"^(\**)Hosts or array:\s*(\w)", lambda m: m[1] + m[2].upper(), text.split("\n", 1)[0])
        suggestion = report.host_limit.get("suggestion") or ""
        lines.append(f"**Hosts or array**: {head}" + (f" {suggestion}" if suggestion else ""))
    return lines


# --- 2. test conditions -------------------------------------------------------------------


def measured_when(points: pd.DataFrame) -> str:
    """'on 2026-11-24, 04:45-05:02 UTC' (or 'from ... to ...' over several days), from the points."""
    if "completed_utc" not in points or points["completed_utc"].isna().all():
        return "(no date recorded)"
    times = pd.to_datetime(points["completed_utc"], utc=True, errors="coerce", format="ISO8601").dropna()
    if times.empty:
        return "(no date recorded)"
    first, last = times.min(), times.max()
    if first.date() == last.date():
        return f"on {first:%Y-%m-%d}, {first:%H:%M}-{last:%H:%M} UTC"
    return f"from {first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} UTC"


def _recorded_version(cfg, context: Context) -> str | None:
    """The engine's version as the check recorded it when the manifest has none per host
    (:meth:`flashpoc.engines.base.Engine.recorded_version`), else None."""
    return get_engine(cfg.engine).recorded_version(context.check)


def engine_text(cfg, context: Context, points: pd.DataFrame) -> str:
    """The engine and its version as recorded: 'fio 3.33 (libaio, direct I/O)', 'vdbench
    5.04.06', 'SLOB on Oracle 19.0.0.0.0 (RAC)'."""
    versions = sorted({str(v) for v in (context.manifest.get("engine_versions") or {}).values() if v})
    version = " / ".join(versions) or _recorded_version(cfg, context) or "(version not recorded)"
    return get_engine(cfg.engine).describe(cfg, version, points)


def targets_text(cfg, points: pd.DataFrame) -> str:
    """' on 2 targets of 128 MiB in all (sd1, sd2)', or '' without targets (SLOB)."""
    if not cfg.targets:
        return ""
    sizes = points["working_set_bytes"].dropna() if "working_set_bytes" in points else pd.Series(dtype=float)
    total = f" of {tables.size(sizes.max())} in all" if not sizes.empty else ""
    names = ", ".join(t.name for t in cfg.targets)
    return f" on {len(cfg.targets)} target{'s' * (len(cfg.targets) > 1)}{total} ({names})"


def _runtime_text(points: pd.DataFrame) -> str:
    runtimes = sorted({int(v) for v in points["runtime_s"].dropna()}) if "runtime_s" in points else []
    ramps = sorted({int(v) for v in points["ramp_s"].dropna()}) if "ramp_s" in points else []
    if not runtimes:
        return ""
    text = f" of {'/'.join(map(str, runtimes))} s measured each"
    if ramps and max(ramps) > 0:
        text += f" after {'/'.join(map(str, ramps))} s of warm-up"
    return text


def conditions(report, context: Context) -> list[Any]:
    """The conditions as a list, then the hosts, targets and workloads tables."""
    cfg, points = report.cfg, report.measured
    lines = [f"- **Date**: {measured_when(points)} (when the points were measured).",
             f"- **Engine**: {engine_text(cfg, context, points)}.",
             f"- **Point length**: {point_length_text(cfg, points)}",
             f"- **Time series**: {interval_text(cfg)}",
             f"- **Latency SLO**: {cfg.slo_ms:g} ms mean latency ({'`slo_ms`'}): the IOPS within it are the "
             f"customer's usable performance.",
             f"- **Working set**: {working_set_text(cfg, points)}",
             f"- **Fill before measuring**: {fill_text(context)}"]
    if report.configs:
        others = [f"{o.label or o.campaign} (campaign `{o.campaign}`)" for o in cfg.report.compare]
        lines.append(f"- **Compared with**: {', '.join(others)}; their conditions are in their own reports.")
    items: list[Any] = ["\n".join(lines)]
    items.append(hosts_table(cfg, context))
    if cfg.targets:
        items.append(targets_table(cfg, points))
    items.append(workloads_table(report))
    return items


def fill_text(context: Context) -> str:
    """What the precondition filled and how (:func:`flashpoc.precondition.status_text`)."""
    from .precondition import STATUS_FILE, status_text

    try:
        status = json.loads((context.root / STATUS_FILE).read_text()) if context.root is not None else {}
    except (OSError, ValueError):
        status = {}
    return status_text(context.root, status)


def point_length_text(cfg, points: pd.DataFrame) -> str:
    """How long each point ran and what warm-up preceded it, per engine."""
    runtime = _runtime_text(points).removeprefix(" of ").removesuffix(" each")
    return get_engine(cfg.engine).point_length_text(cfg, runtime or "not recorded")


def interval_text(cfg) -> str:
    """The engine's time series of a point, in words (:meth:`flashpoc.engines.base.Engine.interval_text`)."""
    text = get_engine(cfg.engine).interval_text(cfg, summary.MIN_VERDICT_INTERVALS)
    if not text.startswith("none"):  # a time series: the SNIA rule's verdict needs more of it
        text = text.rstrip(".") + f"; the SNIA PTS rule's verdict needs {analysis.SNIA_ROUNDS}."
    return text


def working_set_text(cfg, points: pd.DataFrame) -> str:
    """The working set against the array's cache: the guides want it 10x larger, so that reads
    come from flash, not from cache."""
    sizes = points["working_set_bytes"].dropna() if "working_set_bytes" in points else pd.Series(dtype=float)
    sizes = sizes[pd.to_numeric(sizes, errors="coerce") > 0]  # SLOB records 0: its data is the schemas
    own = get_engine(cfg.engine).own_data_text(cfg)
    data = get_engine(cfg.engine).own_data_bytes(cfg)
    if own and sizes.empty:
        return f"{own}." + ("" if data is None else f" {_cache_verdict(cfg, data)}")
    if sizes.empty:
        return "not recorded."
    return _cache_verdict(cfg, float(sizes.max()))


def _cache_verdict(cfg, working: float) -> str:
    """The working set ``working`` (bytes) against the array cache, in the check's words
    (:func:`flashpoc.workingset.judge_working_set`), with what a shortfall means for the numbers."""
    judged = judge_working_set(working, cfg.array_cache)
    text = judged["detail"][0].upper() + judged["detail"][1:]
    if judged["status"] == "warn":
        text += " (IOPS may be higher and latency lower than from flash)"
    return text + "."


def hosts_table(cfg, context: Context) -> tables.Table:
    """Each load host: address, OS and kernel, CPUs, memory, engine version (from the check)."""
    facts = context.manifest.get("host_facts") or {}
    versions = context.manifest.get("engine_versions") or {}
    found = _recorded_version(cfg, context)
    engine = get_engine(cfg.engine)
    rows = []
    for host in cfg.hosts:
        fact = facts.get(host.name) or {}
        rows.append({"Host": host.name, "Address": host.address,
                     "System": "\n".join(str(v) for v in (fact.get("os"), fact.get("kernel")) if v) or tables.MISSING,
                     "CPUs": tables.count(fact.get("cpus")),
                     "Memory": tables.size(fact.get("mem_total_bytes")),
                     "Engine version": tables.text(versions.get(host.name) or (fact.get(engine.host_version_fact)
                                                                                if engine.host_version_fact else None)
                                                   or found)})
    return tables.table(rows, caption="Load hosts", text_columns=["Host", "Address", "System", "Engine version"])


def targets_table(cfg, points: pd.DataFrame) -> tables.Table:
    """Each target: its path, its size (the working set it gives), the hosts that use it, and
    (vdbench) what its data is."""
    data = points["target_data"].dropna() if "target_data" in points else pd.Series(dtype=object)
    rows = []
    for t in cfg.targets:
        row = {"Target": t.name, "Path": t.path, "Size": _size_text(t.size),
               "Hosts": ", ".join(t.hosts) if t.hosts else "all",
               "Kind": "scratch file (created)" if t.create else ("writable" if t.allow_write else "read only")}
        if not data.empty:
            row["Data"] = str(data.iloc[-1])
        rows.append(row)
    return tables.table(rows, caption="Targets", text_columns=["Target", "Path", "Hosts", "Kind", "Data"])


def _size_text(value: Any) -> str:
    """A target's size as given ('64m', or bytes) in binary units: '64 MiB'; '–' when not given."""

    try:
        return tables.size(parse_size(str(value).strip().lower())) if value not in (None, "") else tables.MISSING
    except ValueError:
        return tables.text(value)


def workloads_table(report) -> tables.Table:
    """Each workload: what it does, the threads it ran at and how many points."""
    rows = []
    points = report.measured
    for workload, group in points.groupby("workload", sort=False):
        threads = sorted({int(t) for t in group["threads"]})
        rows.append({"Workload": workload, "I/O": summary.io_text(group.iloc[0].to_dict()),
                     "Threads": _ranges(threads), "Points": tables.count(group.drop_duplicates(
                         [c for c in ("config", "threads", "curve_pct") if c in group]).shape[0])})
    return tables.table(rows, caption="Workloads", text_columns=["Workload", "I/O", "Threads"])


def _ranges(values: Sequence[int]) -> str:
    """'1-6' for consecutive numbers, '1, 2, 4, 8' otherwise (at most 8 shown)."""
    if not values:
        return tables.MISSING
    if values == list(range(values[0], values[-1] + 1)) and len(values) > 2:
        return f"{values[0]}-{values[-1]}"
    shown = ", ".join(map(str, values[:8]))
    return shown + (f" ... {values[-1]}" if len(values) > 8 else "")


# --- 3. method ----------------------------------------------------------------------------


def method(report) -> list[Any]:
    """How the numbers were measured and read, in a few paragraphs."""
    cfg = report.cfg
    text = [
        "1. **Environment check** (notebook 01): every host reachable, its OS, CPUs and engine; every target "
        "there, its size and free space, direct I/O, the I/O scheduler and queue depth; a target holding data "
        "is never written.",
        "2. **Saturation probe** (02): one workload at a coarse series of thread counts finds where IOPS stop "
        "rising; the answer is fitted to all its points and comes with a range and a confidence. With several "
        "hosts it also measures the plateau on fewer hosts, to tell a host limit from the array's.",
        "3. **Thread sweep** (03): each workload at a finer series of thread counts up to (and past) that point; "
        "every point is one engine run, stored as it completes with the engine's raw output.",
        "4. **Report** (04): the numbers below, read off the stored points.",
        "",
        "How each number is read:",
        "",
        "- **Max IOPS** (and MiB/s): the highest measured point of a curve; its mean latency is that point's.",
        f"- **IOPS within the SLO**: where the curve crosses {cfg.slo_ms:g} ms mean latency, interpolated "
        "between the two measured points around it and never extrapolated. When every point is under the SLO "
        "the array was not pushed to it: the value is 'at least' the highest measured.",
        "- **Knee**: the point of the curve farthest below the straight line from its first to its last point "
        "(Kneedle): beyond it, more load buys latency rather than IOPS.",
        f"- **Steady state**, by two rules: the scatter of a point's interval IOPS (stdev / mean) and the "
        f"drift of their fitted line over the run both within 10 % ({summary.MIN_VERDICT_INTERVALS} intervals "
        f"after the warm-up needed); and the industry's {summary.snia_rule_text()} (SNIA's steady-state "
        "determination table below). Where fio's own steadystate ended a point early, the table says so.",
        "- **Little's law**: outstanding I/Os = IOPS x latency; a point more than 20 % off did not keep the "
        "I/Os in flight it was asked to (a host or engine limit), and is flagged.",
        "- **Hosts or array**: a load host's CPU at 90 % or more, fewer I/Os in flight than asked, a host well "
        "below the others, or host scaling show when the load hosts, not the array, are the limit.",
    ]
    items: list[Any] = ["\n".join(text)]
    notes = get_engine(cfg.engine).method_note  # vdbench's distribution: under "latency percentiles"
    if notes:
        items.append(notes)
    return items


# --- 4. comparison ------------------------------------------------------------------------


def comparison(report) -> list[Any]:
    return ["Each compared campaign against the baseline, per workload run the same way in both: IOPS at the "
            "SLO and the chosen latencies, mean latency and host CPU at equal IOPS (half and all of the lower "
            "maximum), max IOPS and MiB/s, and at equal load (the same threads or users: `report.equal_threads`, "
            "by default the highest count both measured and the one nearest half of it) IOPS, MiB/s and latency, "
            "in total and per direction, and host CPU. Workloads run differently are named and not compared (the executive "
            "summary lists them, with the deltas in words).",
            report.comparison_display]


# --- 5. results ---------------------------------------------------------------------------

#: What each chart shows, in a sentence or two above it.
LEADS = {
    "load_vs_threads": "What more threads bought: IOPS (small-block random I/O) or MiB/s (sequential and large-block "
                       "I/O) at each thread count of the sweep, configurations overlaid at equal load.",
    "hockey_stick": "Each curve is one workload: each point one thread count, from the lightest load on the left. "
                    "Latency stays flat while the array keeps up, then climbs: the \"hockey stick\". Small-block "
                    "random I/O is read in IOPS, sequential and large-block I/O in MiB/s, each on its own scale.",
    "rate_curve": ("With `sweep.plan: rate-curve` (or vdbench's `iorate: curve`) each thread count runs at full "
                   "speed, then at each rate step: an I/O rate of that % of the full-speed IOPS (`sweep.stop_ms` "
                   "ends a curve once a step's latency passes it). Each step is its own point (its id ends in "
                   "`_c<step>`); the thread curves above use the full-speed runs."),
    "write_latency": "Mean latency of the writes alone, for the workloads that write.",
    "latency_percentiles": "The latency most I/Os see (p50), and the slow tail (p99, p99.9): a log scale, so that "
                           "a p50 of 0.1 ms and a p99.9 of 10 ms both read.",
    "oracle_latency": "Average waits of the I/O events a storage POC reads in AWR: `db file sequential read` "
                      "(single-block reads), `log file parallel write` (redo: commit latency) and `db file "
                      "parallel write` (DBWR). Log scale.",
    "read_latency_shares": "Share of `db file sequential read` waits under 512 us, 1, 2 and 4 ms at each "
                           "workload's highest-IOPS point (AWR's wait event histograms).",
    "host_cpu": "CPU of the load hosts at each point: a host near 100 % limits the result, not the array.",
    "db_cpu": "CPU seconds per second the database used (AWR DB CPU): if it flattens while IOPS stop rising, the "
              "database host is the limit.",
    "oracle_write_latency": "The redo write (`log file parallel write`: what commits wait for) and the DBWR write "
                            "(`db file parallel write`) against IOPS, the hockey stick's axis: configurations "
                            "read at equal IOPS. Log scale.",
    "db_time_shares": "DB CPU as a share of DB time, and the buffer cache hit ratio: DB time mostly on CPU means the "
                      "sessions were not waiting for storage; a high buffer hit means few reads reached it.",
    "wait_histogram": "The read wait histogram at each detail point, per AWR bucket (AWR's ms is 1,024 us), each "
                      "configuration in its own colour: where most reads complete, and the slow tail.",
}


def results(report, context: Context) -> list[DocSection]:
    """The results sections (key ``results``): latency against load, percentiles, hosts and CPU,
    steady state, latency distribution, saturation probe."""
    charts = report.charts
    engine = get_engine(report.cfg.engine)

    def with_lead(name: str) -> list[Any]:
        return [LEADS[name], charts[name]] if name in charts else []

    load = [*with_lead("hockey_stick"), *with_lead("load_vs_threads"), *with_lead("rate_curve"),
            *with_lead("write_latency"), *with_lead("oracle_write_latency")]
    latency = with_lead("latency_percentiles")
    if not latency and not engine.measures_oracle:
        latency = [summary.distribution_text(report.detail) or "(the engine reports no latency percentiles)"]
    latency += [*with_lead("oracle_latency"), *with_lead("read_latency_shares")]
    hosts = [report.hosts_text]
    if not report.hosts.empty:
        hosts.append(summary.hosts_display(report.hosts))
    hosts += [*([charts["per_host_iops"]] if "per_host_iops" in charts else []), *with_lead("host_cpu"),
              *with_lead("db_cpu"), *with_lead("db_time_shares")]
    if "db_time_shares" in charts:
        from .oracle_report import db_cpu_text

        hosts.append(db_cpu_text(report.points))
    steady = [report.steadiness_text]
    determination = summary.steadiness_display(report.steadiness) if not report.steadiness.empty else None
    if determination is not None and not determination.empty:
        steady.append(determination)
    if "interval_series" in charts:
        steady.append(charts["interval_series"])
    spread: list[Any] = []
    if not report.distribution.empty and len(report.distribution.columns) > 4:
        spread += [summary.distribution_text(report.detail) or
                   "At each detail point: the mean and percentile latencies, and the shares of I/Os under 0.5, 1, "
                   "2 and 4 ms; the bars give the share per latency bucket, the curve the share completed within "
                   "each latency.", summary.distribution_display(report.distribution)]
    if "latency_histogram" in charts:
        spread.append(charts["latency_histogram"])
    spread += with_lead("wait_histogram")
    probe: list[Any] = []
    if context.probe is not None:
        from .probe import probe_text

        probe = [probe_text(context.probe)]
        if "probe_curve" in charts:
            probe.append(charts["probe_curve"])
    return [DocSection("results", "Results: latency against load", load),
            DocSection("results", "Results: latency percentiles", latency),
            DocSection("results", "Results: load hosts and CPU", hosts),
            DocSection("results", "Results: steady state", steady),
            DocSection("results", "Results: latency distribution at the detail points", spread),
            DocSection("results", "Results: saturation probe", probe)]


# --- 6. appendix --------------------------------------------------------------------------

#: What each report file is for; a chart's three files share one row.
FILE_PURPOSES = {
    "report/report.html": "This report: one page, offline (no network), for any browser.",
    "report/report.pdf": "This report printed (A4), for document systems.",
    "report/summary.csv": "The key numbers per workload (and configuration), machine column names.",
    "report/comparison.csv": "Every compared value and its change against the baseline.",
    "report/points.csv": "Every point of the report with every column the engine gave.",
    "report/distribution.csv": "Latency percentiles and shares under 0.5/1/2/4 ms at the detail points.",
    "report/steadiness.csv": "Every point's steady-state verdicts (interval scatter and drift; SNIA PTS excursions).",
    "report/per_host.csv": "Each load host's IOPS, share, latency and CPU at every point.",
    "manifest.json": "The campaign's parameters, engine versions and host facts, as measured.",
    "check.csv": "The environment check (notebook 01), one row per check.",
    "probe.json": "The saturation probe's points and answer.",
    "points.csv": "The campaign's points of the current settings (probe and sweep).",
    "points/": "Each point's raw engine output, job or parameter file, time series and histogram.",
    "notebooks/": "The executed notebooks (.ipynb) and their offline HTML.",
}

#: Chart file stems and what they show.
CHART_PURPOSES = {
    "hockey_stick": "IOPS (or MiB/s) against mean latency",
    "load_vs_threads": "IOPS (or MiB/s) against threads",
    "rate_curve": "the response-time curve at requested I/O rates",
    "write_latency": "write latency against IOPS",
    "latency_percentiles": "latency percentiles against threads",
    "host_cpu": "host CPU against threads",
    "per_host_iops": "each load host's IOPS",
    "oracle_latency": "Oracle I/O wait latency",
    "db_cpu": "DB CPU",
    "read_latency_shares": "single-block read latency shares",
    "oracle_write_latency": "Oracle write waits against IOPS",
    "db_time_shares": "DB CPU share of DB time and buffer hit",
    "wait_histogram": "read wait histogram at the detail points",
    "interval_series": "each interval of the detail points",
    "latency_histogram": "latency distribution at the detail points",
    "probe_curve": "the saturation probe",
}


def files_table(report, context: Context) -> tables.Table:
    """The files of the campaign's folder a reader may want, each with what it is for: the
    report's files (a chart's SVG, PNG and Vega-Lite JSON in one row), then the campaign's."""
    root = context.root
    rows = []
    written = {Path(p).name for p in report.files.values()}
    for path, purpose in FILE_PURPOSES.items():
        name = path.removeprefix("report/")
        if path.startswith("report/"):
            present = name in written or (name == "report.html" and "report.html" in report.files)
            if name == "report.pdf" and not present:
                if context.pdf_note:
                    rows.append({"File": path, "What it is for": f"Not written: {context.pdf_note}."})
                continue
        else:
            present = root is not None and (root / path).exists()
        if present:
            rows.append({"File": path, "What it is for": purpose})
        if path == "report/points.csv":
            for stem, what in CHART_PURPOSES.items():
                if f"{stem}.svg" in written:
                    rows.append({"File": f"report/{stem}.svg, .png, .vl.json", "What it is for": f"Chart: {what}."})
    return tables.table(rows, text_columns=["File", "What it is for"],
                        notes=["Each chart is written three times: SVG for documents, PNG for slides, Vega-Lite "
                               "JSON (.vl.json) to draw it again or change it."])


GLOSSARY: tuple[tuple[str, str], ...] = (
    ("IOPS", "I/O operations per second completed, over every host and target of a point."),
    ("MiB/s", "Throughput in mebibytes (2^20 bytes) per second (vdbench's 'MB/sec' is the same unit)."),
    ("Mean latency", "The average time an I/O took, in milliseconds (ms); 1 ms = 1,000 us."),
    ("clat", "Completion latency: fio's time from submitting an I/O to its completion."),
    ("p50, p90, p99, p99.9", "Percentiles: 50 % (the median), 90 %, 99 % and 99.9 % of I/Os completed within "
                             "this latency; p99.9 is the slowest 1 in 1,000."),
    ("SLO", "Service level objective: the latency the application needs (here a mean latency, `slo_ms`)."),
    ("IOPS within the SLO", "The IOPS at which the curve reaches the SLO latency, interpolated between two "
                            "measured points; 'at least' when no point reached it."),
    ("Hockey stick", "Latency against IOPS: flat while the array keeps up, then steep: the curve's shape."),
    ("Knee", "Where the hockey stick bends: beyond it more load buys latency rather than IOPS."),
    ("Threads", "The engine's workers per host (fio numjobs; vdbench threads per SD; SLOB sessions per schema), "
                "each with its queue depth of I/Os in flight."),
    ("Outstanding I/Os", "I/Os in flight at once: threads x queue depth x hosts (vdbench: threads x SDs)."),
    ("Little's law", "Outstanding I/Os = IOPS x latency. A point far from it did not keep the I/Os in flight it "
                     "was asked to."),
    ("Saturation probe", "A coarse thread sweep that finds where IOPS stop rising (the plateau), with a range "
                         "and a confidence from resampling its points."),
    ("Steady state", "A point whose per-interval IOPS scatter (stdev / mean) and drift stay within 10 %: its "
                     "average means something."),
    ("SNIA PTS", "The SNIA Solid State Storage Performance Test Specification: steady over a window of 5 rounds "
                 "when max - min is within 20 % and the least-squares line's change within 10 % of the mean."),
    ("Warm-up", "Time at the start of each point not measured (fio ramp_time, vdbench warmup=), so that no "
                "point is measured cold."),
    ("Detail point", "The point of each workload shown interval by interval and with its latency histogram: by "
                     "default the highest IOPS within the SLO."),
    ("Working set", "The bytes the workload spreads its I/O over: the targets' sizes."),
    ("Array cache", "The array's memory cache; a working set under 10x its size is partly read from cache."),
    ("JSON+", "fio's output format with the full latency histogram (its bins), from which percentiles and "
              "shares are read exactly."),
    ("AWR", "Oracle's Automatic Workload Repository: the database's own statistics between two snapshots."),
)


def glossary() -> tables.Table:
    return tables.table([{"Term": t, "Meaning": m} for t, m in GLOSSARY], text_columns=["Term", "Meaning"])
