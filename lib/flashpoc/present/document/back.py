"""The report's later sections: 3. method, 4. comparison, 5. results, 6. appendix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flashpoc.campaign import environment
from flashpoc.campaign.precondition import fill_table, read_status, rounds_display, rounds_table
from flashpoc.present import summary
from flashpoc.core import tables
from flashpoc.present.chart import precondition_rounds
from flashpoc.present.document.base import Context, DocSection


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
        f"- **IOPS within the SLO** (MiB/s for sequential and large-block I/O): the most of any point under "
        f"{cfg.slo_ms:g} ms mean latency or of a place where the curve crosses it, interpolated between the two "
        "measured points around it and never extrapolated. When the heaviest load measured is still under the SLO "
        "the array was not pushed to it: the value is 'at least' the most measured; when the lightest is already "
        "over it, 'at most' the lightest load's. A curve over the SLO at one load and under it again at a "
        "heavier one is uneven: the text says so.",
        "- **Knee**: the point of the curve farthest below the straight line from its first to its last point "
        "(Kneedle): beyond it, more load buys latency rather than IOPS.",
        f"- **Steady state**, by two rules: the scatter of a point's interval IOPS (stdev / mean) and the "
        f"drift of their fitted line over the run both within 10 % ({summary.MIN_VERDICT_INTERVALS} intervals "
        f"after the warm-up needed); and the industry's {summary.snia_rule_text()} (SNIA's steady-state "
        "determination table below). Where fio's own steadystate ended a point early, the table says so."
        + (f" With `sweep.extend_until_steady` a point not steady at its length was measured again at twice its "
           f"length, up to {cfg.sweep.extend_until_steady.max_s} s, until fio's steadystate (when it ended the "
           "point) or else the SNIA rule found it steady: the table's \"Ended by\" gives the lengths run and the rule."
           if cfg.sweep.extend_until_steady else ""),
        "- **Little's law**: outstanding I/Os = IOPS x latency; a point more than 20 % off did not keep the "
        "I/Os in flight it was asked to (a host or engine limit), and is flagged.",
        "- **Hosts or array**: a load host's CPU at 90 % or more, fewer I/Os in flight than asked, a host well "
        "below the others, or host scaling show when the load hosts, not the array, are the limit.",
    ]
    items: list[Any] = ["\n".join(text)]
    notes = cfg.engine_object.method_note  # vdbench's distribution: under "latency percentiles"
    if notes:
        items.append(notes)
    return items


# --- 4. comparison ------------------------------------------------------------------------


def comparison(report) -> list[Any]:
    return ["Each compared campaign against the baseline, per workload run the same way in both: IOPS at the "
            "SLO and the chosen latencies, mean latency and host CPU at equal IOPS (half and all of the lower "
            "maximum), max IOPS and MiB/s, and at equal load (the same threads or users: `report.equal_threads`, "
            "by default the highest count both measured and the one nearest half of it) IOPS, MiB/s and latency, "
            "in total and per direction, and host CPU. Workloads run differently are named and not compared (listed "
            "below, with the deltas in words).",
            report.comparison_display, "### Against the baseline\n\n" + report.comparison_text]


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
    engine = report.cfg.engine_object

    def with_lead(name: str) -> list[Any]:
        return [LEADS[name], charts[name]] if name in charts else []

    load = [*with_lead("hockey_stick"), *with_lead("load_vs_threads"), *with_lead("rate_curve"),
            *with_lead("write_latency"), *with_lead("oracle_write_latency")]
    latency = with_lead("latency_percentiles")
    if not latency and engine.database_metrics(report.cfg) is None:
        latency = [summary.distribution_text(report.detail) or "(the engine reports no latency percentiles)"]
    latency += [*with_lead("oracle_latency"), *with_lead("read_latency_shares"), *environment.calibrate_items(context.manifest)]
    hosts = [report.hosts_text]
    if not report.hosts.empty:
        hosts.append(summary.hosts_display(report.hosts))
    hosts += [*([charts["per_host_iops"]] if "per_host_iops" in charts else []), *with_lead("host_cpu"),
              *with_lead("db_cpu"), *with_lead("db_time_shares")]
    if "db_time_shares" in charts:
        from flashpoc.present.oracle_report import db_cpu_text

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
    filled = precondition_section(report, context)
    probe: list[Any] = []
    if context.probe is not None:
        from flashpoc.present.summary.probe import probe_text

        probe = [probe_text(context.probe)]
        if "probe_curve" in charts:
            probe.append(charts["probe_curve"])
    return [DocSection("results", "Results: latency against load", load),
            DocSection("results", "Results: latency percentiles", latency),
            DocSection("results", "Results: load hosts and CPU", hosts),
            DocSection("results", "Results: steady state", steady),
            DocSection("results", "Results: latency distribution at the detail points", spread),
            DocSection("results", "Results: fill and preconditioning", filled),
            DocSection("results", "Results: saturation probe", probe)]


def precondition_section(report, context: Context) -> list[Any]:
    """The fill of each target and the write rounds converging, as notebook 02 shows them
    (:func:`precondition_items`); [] when nothing was recorded."""
    items = precondition_items(context.root, read_status(context.root), chart=report.charts.get("precondition_rounds"))
    return (["What was written to each target before anything was measured (an all-flash array answers reads of "
             "never-written blocks from its metadata) and, for the write workloads, the preconditioning rounds "
             "until steady by SNIA's rule: IOPS per round with the window's mean, its 90 % and 110 % band and the "
             "least-squares line.", *items] if items else [])


def precondition_items(root: Path | None, status: dict[str, Any], *, color_domain=None, chart=None) -> list[Any]:
    """What notebook 02 and the report show of the precondition, in order: the fill table
    (:func:`flashpoc.campaign.precondition.fill_table`), then with write rounds their convergence chart
    (:func:`flashpoc.present.chart.precondition_rounds`, or ``chart`` when already drawn) and SNIA's
    determination (:func:`flashpoc.campaign.precondition.rounds_display`); [] before any precondition."""
    if not status:
        return []
    items: list[Any] = [fill_table(root, status)] if status.get("targets") else []
    rounds = rounds_table(status)
    if not rounds.empty:
        if chart is None:
            chart = precondition_rounds(rounds, color_domain=color_domain)
        items += [chart, rounds_display(status)]
    return items


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
    "precondition_rounds": "the write workloads' preconditioning rounds converging",
}


#: the note under a table of the report's files that lists charts
CHART_FILES_NOTE = ("Each chart is written three times: SVG for documents, PNG for slides, Vega-Lite JSON (.vl.json) "
                    "to draw it again or change it.")


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
                        notes=[CHART_FILES_NOTE])


GLOSSARY: tuple[tuple[str, str], ...] = (
    ("IOPS", "I/O operations per second completed, over every host and target of a point."),
    ("MiB/s", "Throughput in mebibytes (2^20 bytes) per second (vdbench's 'MB/sec' is the same unit)."),
    ("Mean latency", "The average time an I/O took, in milliseconds (ms); 1 ms = 1,000 us."),
    ("clat", "Completion latency: fio's time from submitting an I/O to its completion."),
    ("p50, p90, p99, p99.9", "Percentiles: 50 % (the median), 90 %, 99 % and 99.9 % of I/Os completed within "
                             "this latency; p99.9 is the slowest 1 in 1,000."),
    ("SLO", "Service level objective: the latency the application needs (here a mean latency, slo_ms)."),
    ("IOPS within the SLO", "The most IOPS (MiB/s for sequential and large-block I/O) at a mean latency within "
                            "the SLO: a point under it, or where the curve crosses it, interpolated between two "
                            "measured points; 'at least' when the heaviest load measured was still under it, 'at "
                            "most' when the lightest was already over it."),
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
)
#: the database's terms, after the engine's own (:func:`glossary`)
DATABASE_GLOSSARY: tuple[tuple[str, str], ...] = (
    ("AWR", "Oracle's Automatic Workload Repository: the database's own statistics between two snapshots."),
)


def glossary(engine_terms: tuple[tuple[str, str], ...] = ()) -> tables.Table:
    """The common terms, the engine's own (``engine_terms``: :attr:`flashpoc.engines.base.Engine.glossary`)
    before the database's (AWR)."""
    terms = [*GLOSSARY, *engine_terms, *DATABASE_GLOSSARY]
    return tables.table([{"Term": t, "Meaning": m} for t, m in terms], text_columns=["Term", "Meaning"])
