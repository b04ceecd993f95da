"""The ``flashpoc`` command: run, check, validate, parse, saturation.

This is the only module that prints and sets exit codes (:data:`EXIT_CODES`): library errors
are caught here and shown as one line ``flashpoc: error: ...``, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

from . import __version__
from .errors import FlashpocError, ParameterError, ParseError

NOTEBOOKS = ("01_environment_check", "02_saturation_probe", "03_thread_sweep", "04_report")
PHASE_NAMES = {"check": 0, "probe": 1, "sweep": 2, "report": 3}
EXIT_CODES = """exit codes:
  0    done (the environment check passed, with or without warnings)
  1    a check failed, a phase stopped, or (saturation) no answer
  2    bad input: arguments, parameters, or a file that cannot be read or parsed
  130  interrupted (completed points are stored and reused by the next run)"""
#: the width of tables and progress lines when the output is not a terminal
PLAIN_WIDTH = 100


def output_width(stream=None) -> int:
    """The terminal's width when ``stream`` (stdout) is a terminal, else :data:`PLAIN_WIDTH`."""
    stream = stream or sys.stdout
    try:
        if stream.isatty():
            return max(40, os.get_terminal_size(stream.fileno()).columns)
    except (AttributeError, OSError, ValueError):
        pass
    return PLAIN_WIDTH


def _notebook_dir() -> Path:
    """The phase notebooks: the workbook root's notebooks/, else those beside this package."""
    from .params import workbook_root

    candidates = [workbook_root() / "notebooks", Path(__file__).resolve().parents[2] / "notebooks"]
    for path in candidates:
        if (path / f"{NOTEBOOKS[0]}.ipynb").exists():
            return path
    raise FlashpocError(f"no phase notebooks in {candidates[0]}: run flashpoc from the workbook "
                        "(the folder holding notebooks/ and parameters/)")


class Terminal:
    """Where ``flashpoc run`` shows its progress: lines on stdout and, when stdout is a terminal,
    a live status line under them (a bar, the count, the times and what runs now), rewritten in
    place. The progress events come from the notebooks' kernels (:mod:`flashpoc.progress`)."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stdout
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.width = output_width(self.stream)
        self._lock = threading.RLock()
        self._status: tuple[dict[str, Any], float] | None = None  # the last event and when it came
        self._reused: tuple[dict[str, Any], int] | None = None  # stored points reused, not yet said
        self._drawn = False

    def say(self, *lines: str) -> None:
        """Print ``lines`` above the status line, each wrapped to the width (continued under its
        text, after its ``[phase]`` prefix, indentation and bullet)."""
        with self._lock:
            self._erase()
            for line in lines:
                lead = re.match(r"(\[\w+\] )?( *)(- )?", line).group(0)
                parts = [line] if len(line) <= self.width else textwrap.wrap(
                    line, self.width, subsequent_indent=" " * len(lead), break_on_hyphens=False)
                for part in parts:
                    print(part, file=self.stream)
            self._draw()
            self.stream.flush()

    def event(self, event: dict[str, Any]) -> None:
        """Show one progress event (see :class:`flashpoc.progress.Progress`)."""
        from .progress import end_line, point_line

        kind, phase = event.get("event"), f"[{event.get('phase')}]"
        with self._lock:
            if kind in ("begin", "status", "point", "advance"):  # the status line under a line said now
                self._status = (event, time.monotonic())
            if kind == "point" and event["point"].get("reused"):
                self._reused = (event, (self._reused[1] if self._reused else 0) + 1)
            elif kind not in ("begin", "status"):  # stored points reused one after the other: one line
                self._say_reused()
            if kind == "start":
                self.say(f"{phase} {event['title']}: {event['detail'][0]}" if event.get("detail") else
                         f"{phase} {event['title']}", *(f"{phase}   {line}" for line in event.get("detail", [])[1:]))
            elif kind == "point" and not event["point"].get("reused"):
                self.say(point_line(event))
            elif kind == "advance" and event.get("text"):
                self.say(f"{phase} {event['text']}")
            elif kind == "end":
                self._status = None
                self.say(end_line(event))
            if kind in ("begin", "status", "point", "advance"):
                self.tick()

    def tick(self) -> None:
        """Redraw the status line (the elapsed time goes on between events)."""
        with self._lock:
            if self.live:
                self._erase()
                self._draw()
                self.stream.flush()

    def close(self) -> None:
        """Say what is left to say and remove the status line."""
        with self._lock:
            self._say_reused()
            self._status = None
            self._erase()
            self.stream.flush()

    def _say_reused(self) -> None:
        from .progress import reused_line

        if self._reused:
            (event, count), self._reused = self._reused, None
            self.say(reused_line(event, count))

    def _draw(self) -> None:
        from .progress import status_line

        if self.live and self._status:
            event, since = self._status
            print(status_line(event, event["elapsed_s"] + time.monotonic() - since)[: self.width - 1],
                  end="", file=self.stream)
            self._drawn = True

    def _erase(self) -> None:
        if self._drawn:
            print("\r\x1b[K", end="", file=self.stream)
            self._drawn = False


class _Follower(threading.Thread):
    """Follows the progress events the kernel appends to ``path`` and shows them on ``terminal``."""

    def __init__(self, path: Path, terminal: Terminal) -> None:
        super().__init__(daemon=True)
        self.path, self.terminal, self.offset = path, terminal, 0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.5):
            self._poll()
            self.terminal.tick()

    def _poll(self) -> None:
        from .progress import read_events

        events, self.offset = read_events(self.path, self.offset)
        for event in events:
            self.terminal.event(event)

    def finish(self) -> None:
        """Stop following, after showing every event written so far."""
        self._done.set()
        self.join()
        self._poll()
        self.terminal.close()


@contextlib.contextmanager
def _environment(**values: str):
    """The process environment (which the notebooks' kernels inherit) with ``values`` set."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_notebooks(params_file: Path, phases: list[str], *, terminal: Terminal | None = None) -> dict[str, Path]:
    """Execute the phase notebooks with papermill; return executed notebook and HTML paths.

    The notebooks get ``parameters_file`` (the file's absolute path) and every campaign key (the
    file's value, None for those it leaves out), so nothing of their own parameters cells is used.
    The kernels append their progress to a file (``$FLASHPOC_PROGRESS``) that ``terminal`` follows
    while papermill runs; after each phase the terminal gets its result (the check's verdict, the
    probe's answer).

    The campaign is held (:meth:`flashpoc.store.CampaignStore.lock`) for the whole run, from
    before the check: another process running it is refused before anything is written, while
    this run's notebook kernels are let in. Every executed notebook and its HTML export is
    written atomically (papermill saves it through :class:`_AtomicNotebookWriter`).

    Raises:
        FlashpocError: when a notebook fails (the message names it and the error) or a file
            cannot be written (naming it), or another process runs the campaign.
    """
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from .params import load_campaign, notebook_parameters, read_parameters_file
    from .progress import EVENTS_ENV, check_lines, duration_text, probe_lines
    from .report import export_notebook_html
    from .store import CampaignStore, StoreError

    terminal = terminal or Terminal()
    values = notebook_parameters(read_parameters_file(params_file), params_file)  # nothing of the cells' own
    cfg = load_campaign(params_file)  # validate everything before any notebook starts
    nb_dir = _notebook_dir()
    store = CampaignStore(cfg.resolved().results_path())
    written: dict[str, Path] = {}
    results = {"check": check_lines, "probe": probe_lines}
    with store.lock(), tempfile.TemporaryDirectory(prefix="flashpoc-progress-") as tmp:
        out_dir = store.root / "notebooks"
        _AtomicNotebookWriter.register(out_dir)
        for phase in phases:
            name = NOTEBOOKS[PHASE_NAMES[phase]]
            output = out_dir / f"{name}.ipynb"
            terminal.say(f"[{phase}] running {name}.ipynb ...")
            started = time.monotonic()
            stopped = None
            events = Path(tmp) / f"{phase}.jsonl"
            follower = _Follower(events, terminal)
            follower.start()
            try:  # FLASHPOC_BATCH: the kernels' progress displays redraw per point only
                with _environment(FLASHPOC_BATCH="1", **{EVENTS_ENV: str(events)}), \
                        _kernel_stderr(out_dir / "kernels.log"):
                    papermill.execute_notebook(str(nb_dir / f"{name}.ipynb"), str(output), parameters=values,
                                               cwd=str(nb_dir), kernel_name="python3", progress_bar=False,
                                               extra_arguments=["--IPKernelApp.log_level=CRITICAL"])
            except PapermillExecutionError as error:  # saved with the error before it was raised
                stopped = f"phase {phase} stopped: {error.ename}: {error.evalue}"
            except StoreError as error:  # the executed notebook could not be saved
                raise FlashpocError(f"phase {phase} stopped: {error}") from None
            finally:
                follower.finish()
            html = output.with_suffix(".html")
            try:
                export_notebook_html(output, html)
            except StoreError as error:
                if stopped is None:
                    raise FlashpocError(f"phase {phase}: {error}") from None
                raise FlashpocError(f"{stopped}\nexecuted notebook: {output} ({html.name} could not be written "
                                    f"either)") from None
            written[f"{name}.html"] = html
            if stopped is not None:
                raise FlashpocError(f"{stopped}\nexecuted notebook: {output}")
            written[name] = output
            if phase in results:
                terminal.say(*(f"[{phase}] {line}" for line in results[phase](cfg)))
            terminal.say(f"[{phase}] done in {duration_text(time.monotonic() - started)}")
    return written


@contextlib.contextmanager
def _kernel_stderr(log_path: Path):
    """Send what the notebook kernels write to their stderr (they inherit file descriptor 2:
    e.g. a ZeroMQ assertion printed when a kernel is stopped on a loaded machine) to a log
    file in the campaign's notebooks folder, so the terminal shows only flashpoc's own lines;
    to /dev/null when that file cannot be opened (a full disk)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        target = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError:
        target = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(target, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(target)


class _AtomicNotebookWriter:
    """A papermill I/O handler that saves executed notebooks atomically (papermill's own writes
    the file in place: a full disk or a kill would leave half a notebook). Registered for the
    campaign's notebooks directory, papermill saves every notebook under it this way."""

    _registered: set[str] = set()

    @classmethod
    def register(cls, directory: Path) -> None:
        from papermill.iorw import papermill_io

        prefix = f"{directory}/"  # papermill picks a handler by the path's beginning
        if prefix not in cls._registered:
            papermill_io.register(prefix, cls())
            cls._registered.add(prefix)

    @staticmethod
    def read(path: str) -> str:
        return Path(path).read_text(encoding="utf-8")

    @staticmethod
    def listdir(path: str) -> list[str]:
        return [str(p) for p in Path(path).iterdir()]

    @staticmethod
    def write(buf: str, path: str) -> None:
        from .store import write_atomic

        write_atomic(path, buf)

    @staticmethod
    def pretty_path(path: str) -> str:
        return path


def _cmd_run(args: argparse.Namespace) -> int:
    from .params import load_campaign
    from .progress import closing_summary
    from .store import CampaignStore

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
        if {"probe", "sweep"} & set(phases) and cfg.engine_object.sweeps:
            terminal.say("each point: done/total, workload, threads, IOPS (MiB/s for large I/Os), mean latency "
                         "| elapsed, ETA")
        if args.fresh:
            store.clear()
            terminal.say(f"removed earlier results in {store.root}")
        run_notebooks(Path(args.params), phases, terminal=terminal)
    summary = closing_summary(cfg, width=terminal.width, reported="report" in phases)
    terminal.say("", *summary, f"executed notebooks: {store.root / 'notebooks'}")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from . import check, phases
    from .params import load_campaign
    from .texttable import text_table

    table = phases.run_check(load_campaign(args.params))
    columns = [("host", "Host"), ("check", "Check"), ("status", "Status"), ("value", "Value"), ("detail", "Detail")]
    print(text_table(table.to_dict("records"), columns, output_width()))
    print(f"\nverdict: {check.verdict(table)}")
    return 1 if check.verdict(table) == "fail" else 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from .params import load_campaign

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
    return 2 if refused else 0


#: the columns ``parse --format table`` shows (key, header); csv and json have every column
TABLE_COLUMNS = {
    "fio": [("hostname", "Host"), ("jobname", "Job"), ("direction", "Direction"), ("rw", "Pattern"), ("bs", "Block"),
            ("numjobs", "Jobs"), ("iodepth", "Depth"), ("iops", "IOPS"), ("bw_mibps", "MiB/s"),
            ("lat_mean_us", "Mean lat (us)"), ("clat_p50_us", "p50 (us)"), ("clat_p99_us", "p99 (us)"),
            ("clat_p99_9_us", "p99.9 (us)"), ("usr_cpu_pct", "usr CPU (%)"), ("sys_cpu_pct", "sys CPU (%)")],
    "vdbench": [("rd", "Run"), ("threads", "Threads"), ("xfersize", "xfersize (bytes)"), ("rdpct", "Read (%)"),
                ("iops", "IOPS"), ("mb_per_s", "MB/s"), ("resp_ms", "Resp (ms)"), ("read_resp_ms", "Read (ms)"),
                ("write_resp_ms", "Write (ms)"), ("resp_max_ms", "Max (ms)"), ("queue_depth", "Queue"),
                ("cpu_sys_user_pct", "CPU (%)")],
    "awr": [("event", "Event"), ("waits", "Waits"), ("total_time_s", "Time (s)"), ("avg_wait_us", "Avg wait (us)"),
            ("pct_db_time", "DB time (%)"), ("wait_class", "Wait class")],
    "slob": [("metric", "Metric"), ("value", "Value")],
}


def _print_rows(rows: list[dict[str, Any]], fmt: str, engine: str) -> None:
    import pandas as pd

    from .texttable import text_table

    if fmt == "json":
        print(json.dumps(rows, indent=1, default=str))
    elif fmt == "csv":
        print(pd.DataFrame(rows).to_csv(index=False), end="")
    else:
        from .engines import get_engine

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
    """``parse awr --summary``: what the database needs (:func:`flashpoc.sizing.sizing_summary`)."""
    from .sizing import sizing_summary, summary_rows
    from .texttable import text_table

    summary = sizing_summary(_read_awr(path)[0])
    if fmt == "json":
        print(json.dumps(summary, indent=1, default=str))
        return 0
    rows = summary_rows(summary)
    if fmt == "csv":
        _print_rows(rows, fmt, "awr")
        return 0
    width = output_width()
    print(text_table(rows, [("measure", "Measure"), ("value", "Value")], width))
    if summary["top_io_events"]:
        print("\nTop I/O events (by DB time)")
        print(text_table(summary["top_io_events"], [("event", "Event"), ("wait_class", "Wait class"),
                                                    ("waits", "Waits", ",.0f"), ("avg_wait_ms", "Avg wait (ms)"),
                                                    ("pct_db_time", "DB time (%)")], width))
    return 0


def _read_awr(path: Path) -> tuple[Any, list[dict[str, Any]]]:
    """An AWR report (not an engine: what SLOB and the SQL script are measured by): the whole
    parse, and its top events (else its key events) as rows."""
    from .parse.awr import parse_awr, read_awr_file

    if not path.is_file():
        raise ParameterError(f"cannot read {path}: not a file")
    report = parse_awr(read_awr_file(path))
    return report, report["top_events"] or [{"event": k, "avg_wait_us": v} for k, v in report["key_events"].items()]


#: what ``flashpoc parse --summary`` summarises, and how
_SUMMARIES = {"awr": _awr_summary}

#: outputs ``flashpoc parse`` reads besides the engines' own (:meth:`flashpoc.engines.base.Engine.read_output`)
_READERS = {"awr": _read_awr}


def _parse(path: Path, kind: str, fmt: str) -> int:
    from .engines import get_engine
    from .texttable import human_header

    read = _READERS.get(kind) or get_engine(kind).read_output
    whole, rows = read(path)
    if fmt == "json":
        print(json.dumps(whole, indent=1, default=str))
        return 0
    if fmt == "table":  # a listing of metrics shows their names in words
        rows = [{**r, "metric": human_header(r["metric"])} if "metric" in r else r for r in rows]
    _print_rows(rows, fmt, kind)
    return 0


def _cmd_saturation(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    import pandas as pd

    from .analysis import Point, find_saturation
    from .plan.sweep import format_forthreads, plan_sweep

    try:
        frame = pd.read_csv(args.points)
    except (OSError, ValueError) as error:
        raise ParameterError(f"cannot read {args.points} as CSV: {error}") from None
    missing = {"threads", "iops", "latency_ms"} - set(frame.columns)
    if missing:
        raise ParameterError(f"{args.points}: missing column(s) {sorted(missing)} "
                             "(expected threads, iops, latency_ms; optional outstanding)")
    try:
        points = [Point(int(r.threads), float(r.iops), float(r.latency_ms),
                        int(r.outstanding) if "outstanding" in frame and pd.notna(r.outstanding) else None)
                  for r in frame.itertuples()]
    except (TypeError, ValueError) as error:
        raise ParameterError(f"{args.points}: non-numeric value ({error})") from None
    sat = find_saturation(points, gain_pct=args.gain_pct)
    result = asdict(sat)
    if sat.threads:
        sweep = plan_sweep(sat.threads, plan="guide", step=args.step)
        result["followup_sweep"] = {"forthreads": format_forthreads(sweep), "points": len(sweep)}
    if args.format == "json":
        print(json.dumps(result, indent=1))
        return 0 if sat.supported else 1
    if not sat.supported:
        print(f"no saturation answer: {sat.reason}")
        return 1
    print(f"saturation threads: {sat.threads}")
    print(f"max IOPS:           {sat.max_iops:,.2f}")
    if sat.range_threads:
        print(f"plausible range:    {sat.range_threads[0]}-{sat.range_threads[1]} threads "
              f"(confidence {sat.confidence:.0%})")
    print(f"guide's rule:       {sat.rule_threads} threads")
    print(f"follow-up sweep:    forthreads={result['followup_sweep']['forthreads']} "
          f"({result['followup_sweep']['points']} points)")
    print(f"reason:             {sat.reason}")
    return 0


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
    """The argument parser of the ``flashpoc`` command."""
    from .engines import engine_names

    formatter = _Formatter
    parser = _Parser(prog="flashpoc", formatter_class=formatter, epilog=EXIT_CODES,
                     description="Storage proof-of-concept workbook for Oracle databases on all-flash arrays: the "
                                 "four phase notebooks (check, probe, sweep, report) in batch, and the tools "
                                 "they are made of.")
    parser.add_argument("--version", action="version", version=f"flashpoc {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    def command(name: str, summary: str, description: str, func) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=summary, description=description, epilog=EXIT_CODES, formatter_class=formatter)
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
    p.add_argument("--fresh", action="store_true", help="remove the campaign's earlier results first")

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
                                "awr: an AWR report (text or HTML, .gz too); slob: a run directory; hammerdb: a "
                                "timed run's log, console or job answer, or its directory")
    p.add_argument("--format", choices=["json", "csv", "table"], default="table")
    p.add_argument("--summary", action="store_true",
                   help="awr: the sizing summary of a production report (IOPS, MiB/s, read and write latency, DB "
                        "CPU share, top I/O events) and the campaign target it gives (slo_ms, report.iops_levels)")

    p = command("saturation", "the saturation threads of a CSV of threads, IOPS and latency",
                "Find the thread count beyond which IOPS stop rising in a CSV of threads,iops,latency_ms (as a "
                "probe measured them), with its plausible range and confidence, the POC guide's neighbour rule, and "
                "the follow-up sweep; exit 1 when the points give no answer.", _cmd_saturation)
    p.add_argument("points", help="CSV with columns threads, iops, latency_ms (optional outstanding)")
    p.add_argument("--gain-pct", type=float, default=2.0, help="a gain below this %% is no gain (default 2)")
    p.add_argument("--step", type=int, default=None, help="step of the follow-up sweep (default max/30)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a subcommand and turn flashpoc errors into one line and an exit code
    (:data:`EXIT_CODES`)."""
    args = build_parser().parse_args(argv)
    try:
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


if __name__ == "__main__":
    sys.exit(main())
