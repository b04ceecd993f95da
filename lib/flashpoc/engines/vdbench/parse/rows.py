"""The rows of a vdbench output directory: its files parsed and checked against each other
(:func:`parse_output_dir`), then one row per run, totals with what the flatfile adds (:func:`vdbench_rows`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from flashpoc.core.damage import DAMAGED, Loss
from flashpoc.core.errors import ParseError
from flashpoc.engines.vdbench.parse.crosscheck import (_check_expected_runs, _check_numbers, _check_report_kinds,
                                                       _check_runs, _logfile_runs)
from flashpoc.engines.vdbench.parse.files import (_errorlog_lines, missing_files, open_modes, read_output_dir,
                                                  vdbench_failure)
from flashpoc.engines.vdbench.parse.histogram import _parse_histogram
from flashpoc.engines.vdbench.parse.keys import FLATFILE_DUPLICATES, LOOP_KEYS
from flashpoc.engines.vdbench.parse.tables import _parse_flatfile, _parse_report, _summary_rows, _totals_rows
from flashpoc.engines.vdbench.parse.text import _report_kind


def parse_output_dir(
    files: Mapping[str, str], expected_runs: Mapping[str, Sequence[int]] | None = None
) -> dict[str, Any]:
    """Parse the files of one vdbench output directory and check them against each other.

    Args:
        files: File name -> text, as from :func:`read_output_dir`. ``totals.html`` is
            required; other files are parsed when present.
        expected_runs: rd name -> the thread counts of its ``forthreads=``, as the parmfile
            that was run has them (the workbook passes its own). Each such rd must have run
            exactly these counts in this order, once or once per value of its outer loops
            (``forxfersize``...); other rds (vdbench's own ``SD_format``, curve steps) are
            not checked against it.

    Returns:
        ``{"totals": parse_totals rows, "summary": parse_summary rows, "flatfile":
        parse_flatfile rows, "hosts": {host: rows}, "slaves": {slave: rows},
        "histograms": {name: rows}, "errors": [...], "opened": {...}, "unfinished": [...]}``.
        Host and slave reports are found by their first line (``Host summary report(s) for
        host=`` / ``Slave summary report for slave=``) and keyed by file name without
        ``.html`` (``hd1``, ``hd1-0``, ``localhost-0``); they have summary.html's format.
        Histograms are keyed ``histogram`` (histogram.html) or by the name before
        ``.histogram.html`` (``sd1``, ``hd1``, ``hd1-0``, ``wd1``). ``errors`` holds the lines
        vdbench wrote to errorlog.html after its preamble (data validation and I/O errors;
        empty for a clean run). ``opened`` is :func:`open_modes`. ``unfinished`` names the
        runs that started but that no file has an average of (vdbench stopped during them),
        e.g. ``["rd1 threads=16"]``; they have no row. ``missing`` names the files vdbench wrote
        that ``files`` lacks (:func:`missing_files`), and ``damaged`` (only when some are, or a
        run has no histogram: :func:`runs_without_histogram`) says so, as :mod:`flashpoc.core.damage`
        does: what they held is not in the result.

    Raises:
        ParseError: totals.html is missing, a file fails to parse, or the files disagree
            (the message names the files and what differs): every file must hold the same
            runs (rd, loop values, rate, elapsed) in the same order, and the same ones
            finished; totals.html's ``avg_`` lines must be summary.html's as printed, the
            logfile's copy of every summary line the same, and flatfile.html's ``avg_`` rows
            the same numbers to the precision printed; a host or slave report that
            summary.html or a host report links to must be one; and with ``expected_runs``,
            a run the parmfile asked for that is missing; a histogram bucket's count that is not
            its printed share, a histogram section cut off before its max bucket. A damaged or
            cut file is refused rather than a run lost or a number changed.
    """
    if "totals.html" not in files:
        raise ParseError(
            f"no totals.html among {len(files)} files: not a vdbench output directory"
        )
    result, reports, flat_printed, histogram_runs = _parse_files(files)
    flat_rows = result["flatfile"]
    _check_report_kinds(files)
    logged = _logfile_runs(files["logfile.html"]) if "logfile.html" in files else None
    result["unfinished"] = _check_runs(files, reports, logged, flat_rows, histogram_runs)
    _check_numbers(reports, logged, flat_rows, flat_printed)
    if expected_runs is not None:
        _check_expected_runs(result["totals"], result["unfinished"], expected_runs)
    return _name_losses(result, files)


def _name_losses(result: dict[str, Any], files: Mapping[str, str]) -> dict[str, Any]:
    """``result`` with its ``missing`` files (:func:`missing_files`) and, when some are or a run
    has no histogram (:func:`runs_without_histogram`), its ``damaged`` text."""
    missing = missing_files(files)
    result["missing"] = [loss.file for loss in missing]
    bare = [Loss("histogram.html", f"no bucket of run {index} (cut off, or vdbench wrote none)")
            for index in runs_without_histogram(result)]
    if missing or bare:
        result[DAMAGED] = "; ".join(loss.text() for loss in [*missing, *bare])
    return result


def runs_without_histogram(result: Mapping[str, Any]) -> list[int]:
    """The runs of a parsed output directory (:func:`parse_output_dir`) that did I/O (their
    totals.html average) but have no bucket in histogram.html: its end cut off, or a run vdbench
    wrote no histogram for (one that ended at its files' end, its own format run)."""
    if "histogram" not in result["histograms"]:
        return []
    have = {row["run_index"] for row in result["histograms"]["histogram"]}
    return [total["run_index"] for total in result["totals"] if total["run_index"] not in have
            and (total.get("iops") if total.get("iops") is not None else total.get("reqstdops_rate"))]


def _parse_files(files: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]],
                                                     list[dict[str, str]], dict[str, list[dict[str, Any]]]]:
    """Parse each file of an output directory on its own, before they are checked against each
    other: the result of :func:`parse_output_dir` (``unfinished`` still empty), the parsed summary
    reports by file name, flatfile.html's values as printed, and the runs of each histogram
    (histogram.html and every ``*.histogram.html``) by file name."""
    reports = {"totals.html": _parse_report(files["totals.html"], "totals.html", marker="Run totals")}
    flat_rows, flat_printed = (
        _parse_flatfile(files["flatfile.html"]) if "flatfile.html" in files else ([], [])
    )
    result: dict[str, Any] = {
        "totals": _totals_rows(reports["totals.html"]),
        "summary": [],
        "flatfile": flat_rows,
        "hosts": {},
        "slaves": {},
        "histograms": {},
        "errors": _errorlog_lines(files.get("errorlog.html", "")),
        "opened": open_modes(files),
        "unfinished": [],
    }
    histogram_runs: dict[str, list[dict[str, Any]]] = {}
    for name in sorted(files):
        text = files[name]
        if not name.endswith(".html"):
            continue
        if name == "summary.html":
            reports[name] = _parse_report(text, name, marker="summary report")
            result["summary"] = _summary_rows(reports[name])
        elif name == "histogram.html":
            result["histograms"]["histogram"], histogram_runs[name] = _parse_histogram(text, name)
        elif name.endswith(".histogram.html"):
            result["histograms"][name[: -len(".histogram.html")]], histogram_runs[name] = _parse_histogram(text, name)
        else:
            kind = _report_kind(text)
            if kind is not None:
                reports[name] = _parse_report(text, name, marker="summary report")
                result[f"{kind}s"][name[: -len(".html")]] = _summary_rows(reports[name])
    return result, reports, flat_printed, histogram_runs


def parse_vdbench_dir(path: str | Path) -> list[dict[str, Any]]:
    """Parse an output directory into one row per run: totals enriched from the flatfile
    (:func:`vdbench_rows` of its files, :func:`read_output_dir`).

    Args:
        path: The output directory.

    Returns:
        One row per run (what ``flashpoc parse vdbench OUTDIR`` prints); empty when vdbench
        started no run and nothing shows a failure.

    Raises:
        ParseError: as :func:`vdbench_rows` says.
    """
    return vdbench_rows(read_output_dir(path), str(path))


def vdbench_rows(files: Mapping[str, str], where: str) -> list[dict[str, Any]]:
    """One row per run of an output directory's ``files`` (:func:`read_output_dir`; ``where``
    says where they are, for messages): totals enriched from the flatfile.

    Each :func:`parse_totals` row gets, from the flatfile's ``avg_`` row of the same run
    (same ``run_index``, checked against ``rd`` and the ``avg_`` label): the loop keys that
    are None (the requested ``threads``, ``xfersize``, ``rdpct``, ``seekpct``... of a run
    without loops; whole numbers as int), and the flatfile columns the row does not have
    (``reqrate``, ``lunsize_gb``, ``dedupratio``, ``cpu_user_pct``, ``cpu_wait_pct``, the fsd
    ``*_std``/``*_max`` columns...), except those in :data:`FLATFILE_DUPLICATES`. The row's
    own values (e.g. ``queue_depth`` as printed in totals.html) are kept.
    ``flatfile_matched`` tells whether the run had a flatfile ``avg_`` row. A run that
    vdbench did not finish (:func:`parse_output_dir`'s ``unfinished``) is refused. A file the
    directory lacks (:func:`missing_files`, e.g. a removed flatfile.html) is named in every row's
    ``damaged`` column.

    Raises:
        ParseError: A file does not parse, the files disagree (see :func:`parse_output_dir`),
            or the run failed or stopped (the message is vdbench's, from
            :func:`vdbench_failure`, where it has one, its lines joined by `` / ``).
    """

    def refuse_a_failed_run() -> None:
        failure = vdbench_failure(files, files.get("console.txt"))
        if failure is not None:  # one line: vdbench's lines joined
            raise ParseError(f"vdbench run in {where} failed: {' / '.join(failure.splitlines())}")

    try:
        parsed = parse_output_dir(files)
    except ParseError:
        refuse_a_failed_run()  # a failed run's files may well disagree: say why it failed
        raise
    totals = parsed["totals"]
    if not totals or parsed["unfinished"]:
        refuse_a_failed_run()
    if parsed["unfinished"]:
        raise ParseError(f"vdbench in {where} did not finish {', '.join(parsed['unfinished'])}: "
                         "no file has its average")
    if not totals:
        return []
    averages = {row["run_index"]: row for row in parsed["flatfile"] if row["is_avg"]}
    damaged = {DAMAGED: parsed[DAMAGED]} if parsed.get(DAMAGED) else {}
    return [{**_with_flatfile(total, averages.get(total["run_index"])), **damaged} for total in totals]


def _with_flatfile(total: Mapping[str, Any], flat: Mapping[str, Any] | None) -> dict[str, Any]:
    """A totals row with what the flatfile's ``avg_`` row of its run adds (see
    :func:`parse_vdbench_dir`) and ``flatfile_matched``."""
    row = dict(total)
    row["flatfile_matched"] = flat is not None
    if flat is not None:  # the same run: parse_output_dir checked rd, label and numbers
        for key, value in flat.items():
            if key in ("tod", "timestamp", "run", "interval", "run_index", "is_avg"):
                continue
            if FLATFILE_DUPLICATES.get(key) in row:
                continue
            if key in LOOP_KEYS and row[key] is None:
                whole = isinstance(value, float) and value.is_integer()
                row[key] = int(value) if whole else value
            elif key not in row:
                row[key] = value
    return row
