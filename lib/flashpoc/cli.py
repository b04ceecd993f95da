"""The ``flashpoc`` command: run, check, validate, parse, saturation.

This is the only module that prints and sets exit codes: library errors are caught here
and shown as one clear message (exit 2 for bad input, 1 for failed checks or runs).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from .errors import FlashpocError, ParameterError

NOTEBOOKS = ("01_environment_check", "02_saturation_probe", "03_thread_sweep", "04_report")
PHASE_NAMES = {"check": 0, "probe": 1, "sweep": 2, "report": 3}


def _notebook_dir() -> Path:
    """The phase notebooks: the workbook root's notebooks/, else those beside this package."""
    from .params import workbook_root

    candidates = [workbook_root() / "notebooks", Path(__file__).resolve().parents[2] / "notebooks"]
    for path in candidates:
        if (path / f"{NOTEBOOKS[0]}.ipynb").exists():
            return path
    raise FlashpocError(f"no phase notebooks in {candidates[0]}: run flashpoc from the workbook "
                        "(the folder holding notebooks/ and parameters/)")


def run_notebooks(params_file: Path, phases: list[str], *, log=print) -> dict[str, Path]:
    """Execute the phase notebooks with papermill; return executed notebook and HTML paths.

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
    from .report import export_notebook_html
    from .store import CampaignStore, StoreError

    os.environ["FLASHPOC_BATCH"] = "1"  # the kernels inherit it: text progress bars
    values = notebook_parameters(read_parameters_file(params_file))  # every key: nothing of the cells' own
    cfg = load_campaign(params_file)  # validate everything before any notebook starts
    nb_dir = _notebook_dir()
    store = CampaignStore(cfg.resolved().results_path())
    written: dict[str, Path] = {}
    with store.lock():
        out_dir = store.root / "notebooks"
        _AtomicNotebookWriter.register(out_dir)
        for phase in phases:
            name = NOTEBOOKS[PHASE_NAMES[phase]]
            output = out_dir / f"{name}.ipynb"
            log(f"[{phase}] running {name}.ipynb ...")
            stopped = None
            try:
                with _kernel_stderr(out_dir / "kernels.log"):
                        papermill.execute_notebook(str(nb_dir / f"{name}.ipynb"), str(output), parameters=values,
                                               cwd=str(nb_dir), kernel_name="python3", progress_bar=False,
                                               extra_arguments=["--IPKernelApp.log_level=CRITICAL"])
            except PapermillExecutionError as error:  # saved with the error before it was raised
                stopped = f"phase {phase} stopped: {error.ename}: {error.evalue}"
            except StoreError as error:  # the executed notebook could not be saved
                raise FlashpocError(f"phase {phase} stopped: {error}") from None
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
    from .store import CampaignStore

    cfg = load_campaign(args.params)
    phases = args.phases.split(",") if args.phases else list(PHASE_NAMES)
    unknown = [p for p in phases if p not in PHASE_NAMES]
    if unknown:
        raise ParameterError(f"--phases: unknown phase(s) {unknown}; choose from {list(PHASE_NAMES)}")
    store = CampaignStore(cfg.resolved().results_path())
    with store.lock():  # before --fresh removes anything: another run of the campaign is refused here
        if args.fresh:
            store.clear()
            print(f"removed earlier results in {store.root}")
        written = run_notebooks(Path(args.params), phases)
    print(f"\nexecuted notebooks: {store.root / 'notebooks'}")
    report = store.root / "report" / "report.html"
    if report.exists():
        print(f"offline report:     {report}")
    if "04_report.html" in written:
        print(f"report notebook:    {written['04_report.html']}")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from . import check, phases
    from .params import load_campaign

    table = phases.run_check(load_campaign(args.params))
    print(table.to_string(index=False))
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


def _print_rows(rows: list[dict[str, Any]], fmt: str) -> None:
    import pandas as pd

    if fmt == "json":
        print(json.dumps(rows, indent=1, default=str))
    elif fmt == "csv":
        print(pd.DataFrame(rows).to_csv(index=False), end="")
    else:
        print(pd.DataFrame(rows).to_string(index=False))


def _cmd_parse(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if args.engine == "awr":
        from .parse.awr import parse_awr, read_awr_file

        if not path.is_file():
            raise ParameterError(f"cannot read {path}: not a file")
        report = parse_awr(read_awr_file(path))
        if args.format == "json":
            print(json.dumps(report, indent=1, default=str))
        else:
            _print_rows(report["top_events"] or [{"event": k, "avg_wait_us": v}
                                                 for k, v in report["key_events"].items()], args.format)
        return 0
    if args.engine == "slob":
        from .parse.slob import slob_point_metrics

        if not path.is_dir():
            raise ParameterError(f"{path} is not a SLOB run directory (awr.txt, awr_rac.txt, mpstat.out, ...)")
        metrics = slob_point_metrics({f.name: f.read_bytes() for f in path.iterdir() if f.is_file()})
        if args.format == "json":
            print(json.dumps(metrics, indent=1, default=str))
        else:
            _print_rows([{"metric": k, "value": v} for k, v in metrics.items()], args.format)
        return 0
    if args.engine == "vdbench":
        from .parse.vdbench import parse_vdbench_dir

        if not path.is_dir():
            raise ParameterError(f"{path} is not a vdbench output directory")
        _print_rows(parse_vdbench_dir(path), args.format)
        return 0
    from .parse.fio import parse_fio_output

    try:
        text = path.read_text(errors="replace")
    except OSError as error:
        raise ParameterError(f"cannot read {path}: {error.strerror}") from None
    _print_rows(parse_fio_output(text), args.format)
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``flashpoc`` command."""
    parser = argparse.ArgumentParser(prog="flashpoc", description="Storage POC workbook for Oracle on all-flash arrays.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="run the phase notebooks in batch (papermill) on a parameters file")
    p.add_argument("params", help="parameters/*.yaml")
    p.add_argument("--phases", help="comma-separated subset of check,probe,sweep,report (default all)")
    p.add_argument("--fresh", action="store_true", help="remove the campaign's earlier results first")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("check", help="run the environment check and print the table")
    p.add_argument("params")
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser("validate", help="validate parameters files without any I/O")
    p.add_argument("params", nargs="+")
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser("parse", help="parse an engine output into tidy rows")
    p.add_argument("engine", choices=["fio", "vdbench", "awr", "slob"])
    p.add_argument("file", help="fio: the JSON(+) output file; vdbench: the output directory; "
                                "awr: an AWR report (text or HTML, .gz too); slob: a run directory")
    p.add_argument("--format", choices=["json", "csv", "table"], default="table")
    p.set_defaults(func=_cmd_parse)

    p = sub.add_parser("saturation", help="saturation threads from a CSV of threads,iops,latency_ms")
    p.add_argument("points", help="CSV with columns threads, iops, latency_ms (optional outstanding)")
    p.add_argument("--gain-pct", type=float, default=2.0, help="a gain below this %% is no gain (default 2)")
    p.add_argument("--step", type=int, default=None, help="step of the follow-up sweep (default max/30)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=_cmd_saturation)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a subcommand and turn flashpoc errors into messages and exit codes."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ParameterError as error:
        print(f"flashpoc: error: {error}", file=sys.stderr)
        return 2
    except FlashpocError as error:
        print(f"flashpoc: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("flashpoc: interrupted; completed points are stored and reused on the next run", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
