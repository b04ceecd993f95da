"""The ``flashpoc`` command's subcommands, its parser and :func:`main`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from flashpoc import __version__
from flashpoc.core.damage import DAMAGED
from flashpoc.core.errors import FlashpocError, ParameterError, ParseError
from flashpoc.cli.notebooks import EXIT_CODES, NOTEBOOKS, PHASE_NAMES, Terminal, _environment, output_width, run_notebooks

#: what ``run --fresh`` keeps of a campaign's results: the check it has just run and passed
CHECK_FILES = ("check.csv", "check.json", "manifest.json", f"notebooks/{NOTEBOOKS[0]}.ipynb",
               f"notebooks/{NOTEBOOKS[0]}.html", "notebooks/kernels.log")


def _cmd_run(args: argparse.Namespace) -> int:
    from flashpoc.params import load_campaign
    from flashpoc.cli.closing import closing_summary
    from flashpoc.present.progress import point_legend
    from flashpoc.core.store import CampaignStore

    cfg = load_campaign(args.params)
    phases = args.phases.split(",") if args.phases else list(PHASE_NAMES)
    unknown = [p for p in phases if p not in PHASE_NAMES]
    if unknown:
        raise ParameterError(f"--phases: unknown phase(s) {unknown}; choose from {list(PHASE_NAMES)}")
    store = CampaignStore(cfg.resolved().results_path())
    terminal = Terminal()
    with store.lock():  # before --fresh removes anything: another run of the campaign is refused here
        n = {"hosts": len(cfg.hosts), "targets": len(cfg.targets), "workloads": len(cfg.engine_workloads)}
        terminal.say(f"flashpoc run {args.params}: campaign {cfg.campaign}, {cfg.engine}, "
                     + ", ".join(f"{v} {k[:-1] if v == 1 else k}" for k, v in n.items())
                     + f"; phases {', '.join(phases)}")
        terminal.say(*(f"warning: {warning}" for warning in cfg.warnings))
        if {"probe", "sweep"} & set(phases) and cfg.engine_object.skipped_text(cfg, "sweep") is None:
            terminal.say(point_legend(cfg.engine))
        if args.fresh:  # the check first (in any case), and nothing removed unless it passes
            run_notebooks(Path(args.params), ["check"], terminal=terminal)
            removed = store.clear(keep=CHECK_FILES)
            terminal.say(f"the check passed: removed the earlier results in {store.root} ({removed} entries)")
            phases = [p for p in phases if p != "check"]
        run_notebooks(Path(args.params), phases, terminal=terminal)
    summary = closing_summary(cfg, width=terminal.width, reported="report" in phases)
    terminal.say("", *summary, f"executed notebooks: {store.root / 'notebooks'}")
    return 0


def _cmd_lab(args: argparse.Namespace) -> int:
    from flashpoc.params import workbook_root
    from flashpoc.cli.lab import run_lab

    params, extra = args.params, [a for i, a in enumerate(args.jupyter_args) if i or a != "--"]
    if params is not None and params.startswith("-"):  # `flashpoc lab -- --port=9`: no parameters file
        params, extra = None, [params, *extra]
    return run_lab(workbook_root(), Path(params) if params else None, extra)


def _cmd_check(args: argparse.Namespace) -> int:
    from flashpoc.campaign import check
    from flashpoc import phases
    from flashpoc.core import tables
    from flashpoc.params import load_campaign
    from flashpoc.core.texttable import text_table

    table = phases.run_check(load_campaign(args.params))
    columns = [("host", "Host"), ("check", "Check"), ("status", "Status"), ("value", "Value"), ("detail", "Detail")]
    rows = [{**r, "value": tables.with_unit(r["value"], r.get("unit"))} for r in table.to_dict("records")]
    print(text_table(rows, columns, output_width()))  # numbers in their units; check.csv keeps them as numbers
    print(f"\nverdict: {check.verdict(table)}")
    return 1 if check.verdict(table) == "fail" else 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from flashpoc.params import load_campaign

    refused = 0
    for path in args.params:
        try:
            cfg = load_campaign(path)
        except ParameterError as error:
            if len(args.params) == 1:
                raise
            print(f"flashpoc: error: {error}", file=sys.stderr)
            refused += 1
            continue
        print(f"{path}: ok (campaign {cfg.campaign}, engine {cfg.engine}, {len(cfg.hosts)} hosts, "
              f"{len(cfg.targets)} targets, {len(cfg.engine_workloads)} workloads)")
        for warning in cfg.warnings:
            print(f"{path}: warning: {warning}")
    return 2 if refused else 0


#: the columns ``parse awr --format table`` shows (key, header); an engine's are its
#: ``parse_table_columns``; csv and json have every column
TABLE_COLUMNS = {
    "awr": [("event", "Event"), ("waits", "Waits"), ("total_time_s", "Time (s)"), ("avg_wait_us", "Avg wait (us)"),
            ("avg_wait_ms", "Avg wait (ms)"),
            ("pct_db_time", "DB time (%)", ".1f"), ("pct_total_call_time", "Call time (%)", ".1f"),
            ("wait_class", "Wait class")],
}


def _print_rows(rows: list[dict[str, Any]], fmt: str, engine: str) -> None:
    import pandas as pd

    from flashpoc.core.texttable import text_table

    if fmt == "json":
        print(json.dumps(rows, indent=1, default=str))
    elif fmt == "csv":
        print(pd.DataFrame(rows).to_csv(index=False), end="")
    else:
        from flashpoc.engines import get_engine

        columns = TABLE_COLUMNS.get(engine) or get_engine(engine).parse_table_columns
        print(text_table(rows, columns, output_width()))


def _cmd_parse(args: argparse.Namespace) -> int:
    if args.summary and args.engine not in _SUMMARIES:
        raise ParameterError(f"--summary: only with {', '.join(_SUMMARIES)} (a production AWR report), "
                             f"not {args.engine}")
    try:
        if args.summary:
            return _SUMMARIES[args.engine](Path(args.file), args.format)
        return _parse(Path(args.file), args.engine, args.format)
    except ParseError as error:  # the file given is what cannot be read: bad input
        raise ParameterError(str(error)) from None


def _awr_summary(path: Path, fmt: str) -> int:
    """``parse awr --summary``: what the database needs (:func:`flashpoc.oracle.sizing.sizing_summary`)."""
    import textwrap

    from flashpoc.oracle.sizing import sizing_summary, summary_rows, whole_ms_text
    from flashpoc.core.texttable import text_table

    summary = sizing_summary(_read_awr(path)[0])
    if fmt == "json":
        print(json.dumps(summary, indent=1, default=str))
        return 0
    if fmt == "csv":
        _print_rows(summary_rows(summary), fmt, "awr")
        return 0
    width = output_width()
    print(text_table(summary_rows(summary, text=True), [("measure", "Measure"), ("value", "Value")], width))
    for note in (summary["latency_note"], summary["db_cpu_note"]):
        if note:
            print("\n" + textwrap.fill(f"Note: {note[0].upper()}{note[1:]}", width))
    top = summary["top_io_events"]
    if top:
        call_time = any("pct_total_call_time" in e for e in top)  # a Statspack Top 5
        print(f"\nTop I/O events (by {'total call time' if call_time else 'DB time'})")
        share = ("pct_total_call_time", "Call time (%)", ".1f") if call_time else ("pct_db_time", "DB time (%)", ".1f")
        if call_time:  # its averages are whole milliseconds: a 0 is under 0.5 ms, a 2 is 1.5 to 2.5 ms
            top = [{**e, "avg_wait_ms": whole_ms_text(e["avg_wait_ms"])} if e["avg_wait_ms"] is not None else e
                   for e in top]
        print(text_table(top, [("event", "Event"), ("wait_class", "Wait class"), ("waits", "Waits", ",.0f"),
                               ("avg_wait_ms", "Avg wait (ms)"), share], width))
    return 0


def _read_awr(path: Path) -> tuple[Any, list[dict[str, Any]]]:
    """An AWR report (not an engine: what SLOB and the SQL script are measured by): the whole
    parse, and its top events (else its key events) as rows."""
    from flashpoc.oracle.awr import parse_awr, read_awr_file

    if not path.is_file():
        raise ParameterError(f"cannot read {path}: not a file")
    report = parse_awr(read_awr_file(path))
    return report, report["top_events"] or [{"event": k, "avg_wait_us": v} for k, v in report["key_events"].items()]


def _awr_table_rows(report: dict[str, Any], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of ``parse awr``'s table: a Statspack report's averages printed in whole milliseconds
    (its Top 5's, its key events in ``key_events_whole_ms``) in ms with their precision
    (:func:`flashpoc.oracle.sizing.whole_ms_text`: ``< 0.5``, ``2 (whole ms)``), not in microseconds they lack."""
    from flashpoc.oracle.sizing import whole_ms_text

    if report.get("format") != "statspack":
        return rows
    whole = set(report.get("key_events_whole_ms") or ()) if not report["top_events"] else None
    return [{**r, "avg_wait_us": None, "avg_wait_ms": whole_ms_text(r["avg_wait_us"] / 1000.0)}
            if r.get("avg_wait_us") is not None and (whole is None or r["event"] in whole) else r for r in rows]


#: what ``flashpoc parse --summary`` summarises, and how
_SUMMARIES = {"awr": _awr_summary}

#: outputs ``flashpoc parse`` reads besides the engines' own (:meth:`flashpoc.engines.base.Engine.read_output`)
_READERS = {"awr": _read_awr}

#: how ``flashpoc parse --format table`` shows what such a reader read: (whole, rows) -> rows
_TABLE_ROWS = {"awr": _awr_table_rows}


def _awr_losses(report: dict[str, Any]) -> list[str]:
    """What a report lost (its sections not understood, or its cut), one line each."""
    sections = report.get("sections") or {}
    lines = [f"not understood: {d['section']}: {d['reason']}" for d in sections.get("not_understood") or ()]
    return lines + ([f"cut short: {sections['truncated']}"] if sections.get("truncated") else [])


#: what ``flashpoc parse`` says on stderr a reader lost (not with json, which holds it): whole -> lines
_LOSSES = {"awr": _awr_losses}


def _parse(path: Path, kind: str, fmt: str) -> int:
    from flashpoc.engines import get_engine
    from flashpoc.core.texttable import human_header

    read = _READERS.get(kind) or get_engine(kind).read_output
    whole, rows = read(path)
    if fmt == "json":
        print(json.dumps(whole, indent=1, default=str))
        return 0
    if fmt == "table":  # a listing of metrics shows their names in words
        rows = [{**r, "metric": human_header(r["metric"])} if "metric" in r else r for r in rows]
        rows = _TABLE_ROWS[kind](whole, rows) if kind in _TABLE_ROWS else rows
    _print_rows(rows, fmt, kind)
    if fmt == "table":  # what a damaged output cost (the json and csv formats have it in each row)
        for text in dict.fromkeys(r[DAMAGED] for r in rows if r.get(DAMAGED)):
            print(f"damaged: {text}")
    for line in _LOSSES[kind](whole) if kind in _LOSSES else ():
        print(f"flashpoc: {path.name}: {line}", file=sys.stderr)
    return 0


#: the columns ``flashpoc saturation`` reads: each one's names, the first its own, then the workbook's (points.csv)
SATURATION_COLUMNS = {"threads": ("threads",), "iops": ("iops",), "latency_ms": ("latency_ms", "lat_mean_ms"),
                      "outstanding": ("outstanding", "outstanding_ios")}


def _saturation_points(path: str, workload: str | None) -> tuple[list[Any], str]:
    """The points of ``path`` (a CSV of threads, iops, latency_ms, or the workbook's points.csv: its probe's
    points, of ``workload`` when it holds several) and what they are, in words.

    Raises:
        ParameterError: the file cannot be read, lacks a column, holds several workloads and no
            ``workload`` chose one, or holds a value that is no number.
    """
    import pandas as pd

    from flashpoc.analysis import Point

    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError) as error:
        raise ParameterError(f"cannot read {path} as CSV: {error}") from None
    names = {key: next((n for n in options if n in frame.columns), None) for key, options in SATURATION_COLUMNS.items()}
    missing = [" or ".join(SATURATION_COLUMNS[k]) for k in ("threads", "iops", "latency_ms") if names[k] is None]
    if missing:
        raise ParameterError(f"{path}: missing column(s) {', '.join(missing)} (expected threads, iops, latency_ms; "
                             "optional outstanding; or a campaign's points.csv)")
    what = "points"
    if "phase" in frame and (frame["phase"] == "probe").any():
        frame, what = frame[frame["phase"] == "probe"], "points of the probe"
    if "workload" in frame:
        found = list(dict.fromkeys(frame["workload"].astype(str)))
        if workload is None and len(found) > 1:
            raise ParameterError(f"{path}: {what} of {len(found)} workloads ({', '.join(found)}): choose one with "
                                 "--workload")
        chosen = workload or (found[0] if found else None)
        if chosen not in found:
            raise ParameterError(f"--workload: {chosen} is not in {path} (it has {', '.join(found) or 'none'})")
        frame, what = frame[frame["workload"].astype(str) == chosen], f"{what} ({chosen})"
    outstanding = names["outstanding"]
    try:
        points = [Point(int(r[names["threads"]]), float(r[names["iops"]]), float(r[names["latency_ms"]]),
                        int(r[outstanding]) if outstanding and pd.notna(r[outstanding]) else None)
                  for r in frame.to_dict("records")]
    except (TypeError, ValueError) as error:
        raise ParameterError(f"{path}: non-numeric value ({error})") from None
    return points, f"{len(points)} {what}"


def _cmd_saturation(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from flashpoc.analysis import find_saturation
    from flashpoc.analysis.sweep_plan import format_forthreads, plan_sweep

    points, what = _saturation_points(args.points, args.workload)
    sat = find_saturation(points, gain_pct=args.gain_pct)
    result = asdict(sat)
    result["plateau_iops"] = result.pop("max_iops")  # the plateau's level (its points' median), not the most measured
    best = max(points, key=lambda p: p.iops) if points else None
    result["most_iops_measured"] = {"iops": best.iops, "threads": best.threads} if best else None
    if sat.threads:
        sweep = plan_sweep(sat.threads, plan="guide", step=args.step)
        result["followup_sweep"] = {"forthreads": format_forthreads(sweep), "points": len(sweep)}
    if args.format == "json":
        print(json.dumps(result, indent=1))
        return 0 if sat.supported else 1
    print(f"read:               {what} from {args.points}")
    if not sat.supported:
        print(f"no saturation answer: {sat.reason}")
        return 1
    print(f"saturation threads: {sat.threads}")
    print(f"plateau IOPS:       {sat.max_iops:,.2f} (the median of the plateau's points)")
    print(f"most IOPS measured: {best.iops:,.2f} at {best.threads} threads")
    if sat.range_threads:
        print(f"plausible range:    {sat.range_threads[0]}-{sat.range_threads[1]} threads "
              f"(confidence {sat.confidence:.0%})")
    print(f"guide's rule:       {sat.rule_threads} threads")
    print(f"follow-up sweep:    forthreads={result['followup_sweep']['forthreads']} "
          f"({result['followup_sweep']['points']} points)")
    print(f"reason:             {sat.reason}")
    return 0


_BAD_INPUT = "bad input: arguments, parameters, or a file that cannot be read or parsed"
_INTERRUPTED = "interrupted (completed points are stored and reused by the next run)"
#: the exit codes each command returns, and when (``--help`` lists them under "exit codes:")
COMMAND_EXIT_CODES = {
    "run": {0: "done (the environment check passed, with or without warnings)",
            1: "the environment check failed or a phase stopped", 2: _BAD_INPUT, 130: _INTERRUPTED},
    "lab": {0: "JupyterLab ended (else its own exit status)", 2: _BAD_INPUT},
    "check": {0: "the check passed, with or without warnings", 1: "a check failed", 2: _BAD_INPUT,
              130: "interrupted"},
    "validate": {0: "every file is valid", 2: "a file was refused (one line each), or bad arguments"},
    "parse": {0: "parsed", 2: "bad input: arguments, or a file or folder that cannot be read or parsed as that output"},
    "saturation": {0: "an answer: the saturation threads and the follow-up sweep",
                   1: "no answer (the points do not show a plateau: the reason says why)", 2: _BAD_INPUT},
}


def exit_codes_text(command: str) -> str:
    """The "exit codes:" section of ``command``'s ``--help`` (:data:`COMMAND_EXIT_CODES`)."""
    return "exit codes:\n" + "\n".join(f"  {code:<4} {when}" for code, when in COMMAND_EXIT_CODES[command].items())


class _Formatter(argparse.HelpFormatter):
    """Help with the descriptions wrapped to the terminal and the exit codes kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return text if "\n" in text else super()._fill_text(text, width, indent)


class _Parser(argparse.ArgumentParser):
    """argparse with flashpoc's one error prefix: ``flashpoc: error: ...`` and exit code 2."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(2, f"flashpoc: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``flashpoc`` command. Long because it declares every subcommand and option
    in one place, in the order ``--help`` shows them."""
    from flashpoc.engines import engine_names

    formatter = _Formatter
    parser = _Parser(prog="flashpoc", formatter_class=formatter, epilog=EXIT_CODES,
                     description="Storage proof-of-concept workbook for Oracle databases on all-flash arrays: the "
                                 "four phase notebooks (check, probe, sweep, report) in batch, and the tools "
                                 "they are made of.")
    parser.add_argument("--version", action="version", version=f"flashpoc {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    def command(name: str, summary: str, description: str, func) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=summary, description=description, epilog=exit_codes_text(name),
                           formatter_class=formatter)
        p.set_defaults(func=func)
        return p

    p = command("run", "run the four phase notebooks in batch on a parameters file",
                "Run the phase notebooks (papermill) on a parameters file: the environment check, the saturation "
                "probe, the thread sweep and the report. Each point is shown as it completes (on a terminal with a "
                "live status line), with the time elapsed and left; points stored by an earlier run are reused. "
                "The run ends with a summary: each workload's max IOPS, IOPS at the SLO and knee, the probe's "
                "answer, the points that were not steady, and where the report is. The executed notebooks (.ipynb "
                "and offline .html) go to results/<campaign>/notebooks/.", _cmd_run)
    p.add_argument("params", help="the parameters file (YAML), e.g. parameters/demo-local.yaml")
    p.add_argument("--phases", help="comma-separated subset of check,probe,sweep,report (default all)")
    p.add_argument("--fresh", action="store_true", help="run the environment check first and, once it passes, "
                   "remove the campaign's earlier results (a failing check removes nothing)")

    p = command("lab", "JupyterLab on the workbook: working copies of the notebooks, the templates kept clean",
                "Start JupyterLab on the workbook. With a parameters file, each phase notebook has a working copy "
                "in results/<campaign>/notebooks/ (where a batch run leaves its executed notebooks) naming the "
                "file, and the first one opens: saving one there records the run with the campaign, its offline "
                "HTML beside it. A phase notebook of notebooks/ run here is saved without its outputs (the "
                "template stays as committed) and recorded with its campaign the same way; a parameters cell "
                "naming no file runs the lab's. Arguments after -- go to jupyter lab.", _cmd_lab)
    p.add_argument("params", nargs="?", help="the parameters file (YAML) whose campaign the notebooks run")
    p.add_argument("jupyter_args", nargs=argparse.REMAINDER, help="-- then options for jupyter lab (e.g. --port)")

    p = command("check", "run the environment check and print its table",
                "Check every host and target (reachable, OS, CPUs, memory, engine versions, targets, data safety) "
                "and print the pass/warn/fail table; exit 1 when a check failed. The table is stored as "
                "results/<campaign>/check.csv.", _cmd_check)
    p.add_argument("params", help="the parameters file (YAML)")

    p = command("validate", "validate parameters files without any I/O",
                "Validate parameters files against the schema without touching any host: one line per file, "
                "ok or the key that is wrong.", _cmd_validate)
    p.add_argument("params", nargs="+", help="parameters files (YAML)")

    p = command("parse", "parse an engine output into tidy rows",
                "Parse one engine output into tidy rows: a fio JSON(+) output, a vdbench output directory, an AWR "
                "report, a SLOB run directory or a HammerDB run's logs. --format table fits the terminal (100 "
                "columns when not a terminal) with the main columns; csv and json have every column.", _cmd_parse)
    p.add_argument("engine", choices=[*engine_names(), *_READERS])
    p.add_argument("file", help="fio: the JSON(+) output file; vdbench: the output directory; "
                                "awr: an AWR report (text or HTML, .gz too) or a Statspack report; slob: a run "
                                "directory; hammerdb: a timed run's log, console or job answer, or its directory")
    p.add_argument("--format", choices=["json", "csv", "table"], default="table")
    p.add_argument("--summary", action="store_true",
                   help="awr: the sizing summary of a production AWR or Statspack report (IOPS, MiB/s, read and "
                        "write latency, DB CPU share, top I/O events) and the campaign target it gives (slo_ms, "
                        "report.iops_levels)")

    p = command("saturation", "the saturation threads of a CSV of threads, IOPS and latency",
                "Find the thread count beyond which IOPS stop rising in a CSV of threads,iops,latency_ms (as a "
                "probe measured them) or a campaign's points.csv (its probe's points), with its plausible range and "
                "confidence, the plateau's IOPS and the most IOPS measured, the POC guide's neighbour rule, and the "
                "follow-up sweep.", _cmd_saturation)
    p.add_argument("points", help="CSV with columns threads, iops, latency_ms (optional outstanding), or a "
                                  "campaign's points.csv (lat_mean_ms, outstanding_ios; its probe's points)")
    p.add_argument("--workload", help="the workload of a points.csv that holds several")
    p.add_argument("--gain-pct", type=float, default=2.0, help="a gain below this %% is no gain (default 2)")
    p.add_argument("--step", type=int, default=None, help="step of the follow-up sweep (default max/30)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    return parser


ROOT_ENV = "FLASHPOC_ROOT"


def workbook_for(params: list[str]) -> Path | None:
    """The workbook root a command on ``params`` (parameters files) resolves relative paths against, so
    that it is the same wherever flashpoc is started and in the notebooks' kernels (which run in the
    workbook's notebooks/): ``$FLASHPOC_ROOT``; else the workbook holding the current directory; else
    the one holding the (first) parameters file; else the one whose notebooks this flashpoc runs
    (:func:`~flashpoc.cli.notebooks._notebook_dir`); None when there is none."""
    from flashpoc.params import find_workbook

    if os.environ.get(ROOT_ENV):
        return Path(os.environ[ROOT_ENV]).resolve()
    starts = [Path.cwd(), *(Path(p).resolve().parent for p in params[:1]), Path(__file__).resolve().parents[3]]
    return next((root for root in map(find_workbook, starts) if root is not None), None)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a subcommand and turn flashpoc errors into one line and an exit code
    (:data:`EXIT_CODES`). A command on parameters files runs with ``$FLASHPOC_ROOT`` set to their
    workbook (:func:`workbook_for`), which the notebooks' kernels inherit."""
    args = build_parser().parse_args(argv)
    params = getattr(args, "params", None)
    root = workbook_for([params] if isinstance(params, str) else params or []) if hasattr(args, "params") else None
    try:
        with _environment(**({ROOT_ENV: str(root)} if root else {})):
            return args.func(args)
    except ParameterError as error:
        print(f"flashpoc: error: {error}", file=sys.stderr)
        return 2
    except FlashpocError as error:
        print(f"flashpoc: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("flashpoc: error: interrupted; completed points are stored and reused on the next run", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`flashpoc parse ... | head`): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
