"""The report's title lines and its first sections: 1. executive summary, 2. test conditions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from flashpoc import analysis
from flashpoc.campaign import environment
from flashpoc.analysis import hostlimit
from flashpoc.present import summary
from flashpoc.core import tables
from flashpoc.analysis.compare import row_bounds
from flashpoc.core.errors import AnalysisError
from flashpoc.params import parse_size, under_workbook
from flashpoc.campaign.results import compared_campaigns
from flashpoc.present.summary import KIND_THROUGHPUT
from flashpoc.analysis.workingset import judge_working_set
from flashpoc.analysis.saturation import probe_sentence
from flashpoc.present.document.base import Context


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


#: The most words the executive summary's text may have (its tables apart): what a manager reads and repeats.
SUMMARY_WORDS = 150


def executive_summary(report, context: Context) -> list[Any]:
    """The answers first (a highlighted block: one sentence per workload, or per workload and compared
    configuration, then the saturation probe's answer and the hosts-or-array verdict, each once), then what was
    tested in one sentence and the results table. Plain words: parameter names, the probe's account and the
    deltas in full belong to the Method, Comparison and Results sections."""
    cfg = report.cfg
    lines = [f"> **The answers** (latency SLO: {cfg.slo_ms:g} ms mean)", ">"]
    answers = comparison_answers(report) if report.configs and not report.comparison.empty else answer_lines(report)
    lines += [f"> - {line}" for line in answers]
    said = [*verdict_lines(report, context), summary.unsteady_summary(
        report.steadiness, named=False, own=cfg.engine_object.own_steadiness())]
    said = [line for line in said if line]
    for line in said:
        lines += [">", f"> {line}"]
    return ["\n".join(lines), tested_text(report, context),
            summary.results_table(report.summary, report.points, cfg.slo_ms)]


def comparison_answers(report) -> list[str]:
    """One sentence per workload and compared configuration: what it gives within the SLO (else at its
    most) against the baseline, each side the figure or bound it is, and the change."""
    lines = []
    table = report.comparison
    for (workload, config), rows in table.groupby(["workload", "config"], sort=False):
        chosen = None
        for metric in ("MiB/s at latency", "IOPS at latency", "max MiB/s", "max IOPS"):
            found = rows[rows["metric"] == metric]
            if not found.empty:
                chosen = found.iloc[0].to_dict()
                break
        if chosen is None:
            continue
        a, b, pct = row_bounds(chosen)
        fmt = tables.mibps if chosen["unit"] == "MiB/s" else tables.count
        where = f"within {chosen['at']}" if chosen["metric"].endswith("latency") else "at most"
        change = f" ({pct.cell(lambda v: f'{v:+,.0f} %')})" if pct.known else ""
        lines.append(f"**{workload}**: {config} {b.cell(fmt)} {chosen['unit']} {where} against "
                     f"{a.cell(fmt)} for {chosen['baseline']}{change}.")
    return lines


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


def _workload_results(report) -> list[dict[str, Any]]:
    """Per workload (and configuration) of the summary table: ``label`` ("B, **w**"), ``described``
    (its I/O), ``most`` (the most it gave, at what latency), ``within`` (what it gave within the SLO,
    :func:`flashpoc.present.summary.slo_words`) and ``status`` (the summary's ``slo_status``: "at_least" when
    every point was under the SLO)."""
    slo = report.cfg.slo_ms
    kinds = summary.workload_kinds(report.points)
    found = []
    for r in report.summary.to_dict("records"):
        group = report.points[report.points["workload"] == r["workload"]]
        if r.get("config"):
            group = group[group["config"] == r["config"]]
        best = group.loc[group["iops"].idxmax()]
        if kinds.get(r["workload"]) == KIND_THROUGHPUT:
            most = (f"up to {tables.mibps(best.get('bw_mibps'))} MiB/s ({tables.count(r['max_iops'])} IOPS) at "
                    f"{tables.ms(r['max_iops_lat_mean_ms'])} ms")
        else:
            most = f"up to {tables.count(r['max_iops'])} IOPS at {tables.ms(r['max_iops_lat_mean_ms'])} ms"
            expected = report.cfg.array.expected_iops
            if expected:
                most += f" ({float(r['max_iops']) / expected:.0%} of the {tables.count(expected)} expected of the array)"
        found.append({"label": (f"{r['config']}, " if r.get("config") else "") + f"**{r['workload']}**",
                      "described": summary.io_text(best.to_dict()), "most": most, "status": r.get("slo_status"),
                      "within": summary.slo_words(r, slo, kinds.get(r["workload"]) == KIND_THROUGHPUT),
                      "within_brief": summary.slo_words(r, slo, kinds.get(r["workload"]) == KIND_THROUGHPUT,
                                                        brief=True)})
    return found


def key_results(report) -> list[str]:
    """One line per workload (and configuration): the most it gave and what it gave within the SLO."""
    return [f"{r['label']} ({r['described']}): {r['most']}; {r['within']}." for r in _workload_results(report)]


def answer_lines(report) -> list[str]:
    """The executive summary's sentence per workload (and configuration): what it gives within the SLO
    first (briefly: an uneven curve's account is in Results), then the most it gave where that is more
    (not when every point was under the SLO: the same)."""
    return [f"{r['label']} ({r['described']}): {r['within_brief']}" + ("" if r["status"] == "at_least" else f"; {r['most']}")
            + "." for r in _workload_results(report)]


def headline(report) -> str:
    """Markdown: the campaign and one line per workload (:func:`key_results`), for a terminal or a notebook."""
    cfg = report.cfg
    head = f"**{cfg.campaign}**" + (f": {cfg.description}" if cfg.description else "")
    return "\n".join([head, "", *(f"- {line}" for line in key_results(report))])


def verdict_lines(report, context: Context) -> list[str]:
    """The saturation probe's answer in one sentence (:func:`probe_sentence`) and the verdict on hosts or
    array (its first line), each a line; their account is in Results: saturation probe."""
    lines = []
    if context.probe is not None:
        lines.append(f"**Saturation probe** ({context.probe.get('workload')}): {probe_sentence(context.probe)}")
    if report.host_limit:
        text = hostlimit.host_limit_text(report.host_limit).strip()
        head = re.sub(r"^(\**)Hosts or array:\s*(\w)", lambda m: m[1] + m[2].upper(), text.split("\n", 1)[0])
        head = re.sub(r"^(\**)(\w)", lambda m: m[1] + m[2].lower(), head)  # after a colon
        lines.append(f"**Hosts or array**: {head}")
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
    return cfg.engine_object.recorded_version(context.check)


def engine_text(cfg, context: Context, points: pd.DataFrame) -> str:
    """The engine and its version as recorded: 'fio 3.33 (libaio, direct I/O)', 'vdbench
    5.04.06', 'SLOB on Oracle 19.0.0.0.0 (RAC)'."""
    versions = sorted({str(v) for v in (context.manifest.get("engine_versions") or {}).values() if v})
    version = " / ".join(versions) or _recorded_version(cfg, context) or "(version not recorded)"
    return cfg.engine_object.describe(cfg, version, points)


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


def _any_throughput(points: pd.DataFrame) -> bool:
    """Whether any workload of ``points`` is measured in MiB/s (sequential or large-block I/O)."""
    return KIND_THROUGHPUT in summary.workload_kinds(points).values()


def conditions(report, context: Context) -> list[Any]:
    """The conditions as a list, then the hosts, targets and workloads tables."""
    cfg, points = report.cfg, report.measured
    lines = [f"- **Date**: {measured_when(points)} (when the points were measured).",
             f"- **Engine**: {engine_text(cfg, context, points)}.",
             f"- **Point length**: {point_length_text(cfg, points)}",
             f"- **Time series**: {interval_text(cfg)}",
             f"- **Latency SLO**: {cfg.slo_ms:g} ms mean latency ({'`slo_ms`'}): the IOPS within it "
             f"{'(MiB/s for sequential and large-block I/O) ' if _any_throughput(points) else ''}are the "
             f"customer's usable performance.",
             f"- **Working set**: {working_set_text(cfg, points)}",
             f"- **Fill before measuring**: {fill_text(context)}"]
    if report.configs:
        others = [f"{o.label or o.campaign} (campaign `{o.campaign}`)" for o in cfg.report.compare]
        lines.append(f"- **Compared with**: {', '.join(others)}; their conditions are in their own reports.")
    campaigns = _campaigns(report, context)
    data = {label: target_data(own, root) for label, _, own, root in campaigns if label is not None}
    lines += environment.condition_lines(cfg, context.manifest, data)
    items: list[Any] = ["\n".join(lines)]
    items.append(hosts_table(cfg, context))
    if any(campaign.targets for _, campaign, _, _ in campaigns):
        items.append(targets_table(cfg, points, campaigns))
    items.append(workloads_table(report))
    return items


def _campaigns(report, context: Context) -> list[tuple[str | None, Any, pd.DataFrame, Any]]:
    """(label, campaign, its points, its results folder) of the report's campaign and, in a
    comparison, of each compared one (label None for a single campaign)."""
    cfg, points = report.cfg, report.measured
    if not report.configs:
        return [(None, cfg, points, context.root)]
    own = report.configs[0]
    found = [(own, cfg, points[points["config"] == own], context.root)]
    try:
        compared = compared_campaigns(cfg)
    except AnalysisError:  # the points were read; only their folders' parameters are missing
        compared = {}
    return found + [(label, campaign, points[points["config"] == label], root)
                    for label, (campaign, root) in compared.items()]


def target_data(points: pd.DataFrame, root: Any) -> str | None:
    """What a campaign's targets hold, in its engine's words: its points' ``target_data``
    (vdbench: the fill's data, or "not written by flashpoc"), else the data its precondition
    filled them with (``precondition.json``), else None."""
    from flashpoc.campaign.precondition import read_status

    data = points["target_data"].dropna() if "target_data" in points else pd.Series(dtype=object)
    if not data.empty:
        return str(data.iloc[-1])
    said = read_status(Path(root)).get("data") if root is not None else None
    return said if isinstance(said, str) else None


def fill_text(context: Context) -> str:
    """What the precondition filled and how (:func:`flashpoc.campaign.precondition.status_text`)."""
    from flashpoc.campaign.precondition import read_status, status_text

    return status_text(context.root, read_status(context.root))


def point_length_text(cfg, points: pd.DataFrame) -> str:
    """How long each point ran and what warm-up preceded it, per engine, and what its numbers average
    where the engine's output says it (:meth:`flashpoc.engines.base.Engine.averaged_text`)."""
    runtime = _runtime_text(points).removeprefix(" of ").removesuffix(" each")
    engine = cfg.engine_object
    averaged = engine.averaged_text(cfg, points)  # what the engine's own output says it averaged
    return engine.point_length_text(cfg, runtime or "not recorded") + (f" {averaged}" if averaged else "")


def interval_text(cfg) -> str:
    """The engine's time series of a point, in words (:meth:`flashpoc.engines.base.Engine.interval_text`)."""
    text = cfg.engine_object.interval_text(cfg, summary.MIN_VERDICT_INTERVALS)
    if not text.startswith("none"):  # a time series: the SNIA rule's verdict needs more of it
        text = text.rstrip(".") + f"; the SNIA PTS rule's verdict needs {analysis.SNIA_ROUNDS}."
    return text


def working_set_text(cfg, points: pd.DataFrame) -> str:
    """The working set against the array's cache: the guides want it 10x larger, so that reads
    come from flash, not from cache."""
    sizes = points["working_set_bytes"].dropna() if "working_set_bytes" in points else pd.Series(dtype=float)
    sizes = sizes[pd.to_numeric(sizes, errors="coerce") > 0]  # SLOB records 0: its data is the schemas
    own = cfg.engine_object.own_data_text(cfg)
    data = cfg.engine_object.own_data_bytes(cfg)
    if own and sizes.empty:
        return f"{own}." + ("" if data is None else f" {_cache_verdict(cfg, data)}")
    if sizes.empty:
        return "not recorded."
    return _cache_verdict(cfg, float(sizes.max()))


def _cache_verdict(cfg, working: float) -> str:
    """The working set ``working`` (bytes) against the array cache, in the check's words
    (:func:`flashpoc.analysis.workingset.judge_working_set`), with what a shortfall means for the numbers."""
    judged = judge_working_set(working, cfg.array_cache)
    text = judged["detail"][0].upper() + judged["detail"][1:]
    if judged["status"] == "warn":
        text += "; IOPS may then be higher and latency lower than from flash"  # not a second parenthesis
    return text + "."


def hosts_table(cfg, context: Context) -> tables.Table:
    """Each load host: address, OS and kernel, CPUs, memory, engine version (from the check)."""
    facts = context.manifest.get("host_facts") or {}
    versions = context.manifest.get("engine_versions") or {}
    found = _recorded_version(cfg, context)
    engine = cfg.engine_object
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


def targets_table(cfg, points: pd.DataFrame, campaigns: Sequence[tuple[str | None, Any, pd.DataFrame, Any]] = ()
                  ) -> tables.Table:
    """Each target: its path, its size (the working set it gives), the hosts that use it, and what
    its data is (:func:`target_data`). ``campaigns`` (label, campaign, its points, its folder): in a
    comparison each campaign's own targets and data, under its label; by default ``cfg``'s."""
    campaigns = list(campaigns) or [(None, cfg, points, None)]
    rows = []
    for label, campaign, own, root in campaigns:
        data = target_data(own, root)
        for t in campaign.targets:
            row = {"Configuration": label} if label is not None else {}
            row.update({"Target": t.name, "Path": under_workbook(t.path), "Size": _size_text(t.size),
                        "Hosts": ", ".join(t.hosts) if t.hosts else "all",
                        "Kind": "scratch file (created)" if t.create else ("writable" if t.allow_write else "read only")})
            if data is not None:
                row["Data"] = data
            rows.append(row)
    return tables.table(rows, caption="Targets", text_columns=["Configuration", "Target", "Path", "Hosts", "Kind",
                                                               "Data"])


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
