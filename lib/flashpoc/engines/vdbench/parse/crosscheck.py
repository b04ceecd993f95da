"""The cross-checks between the files of one output directory: every number vdbench prints twice
(totals.html and summary.html, the logfile's copy, flatfile.html's averages) and every run each file
lists (the reports, logfile.html, status.html, the histograms) must agree, else the file and what
differs are named."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.engines.vdbench.parse.files import _links
from flashpoc.engines.vdbench.parse.text import (_DATA, _LABEL, _STARTING, _half_unit, _lines, _parse_loops,
                                                 _report_kind, _run_context, _strip_tags)

FLATFILE_TWINS: dict[str, dict[str, str]] = {
    "sd": {
        "rate": "iops", "mb_per_s": "mb_per_s", "bytes_per_io": "bytes_per_io",
        "read_pct": "read_pct", "resp_ms": "resp_ms", "read_resp_ms": "read_resp_ms",
        "write_resp_ms": "write_resp_ms", "resp_max_ms": "resp_max_ms",
        "read_max_ms": "read_resp_max_ms", "write_max_ms": "write_resp_max_ms",
        "resp_std_ms": "resp_stddev_ms", "queue_depth": "queue_depth",
    },
    "fsd": {
        "rate": "reqstdops_rate", "resp_ms": "reqstdops_resp_ms", "mb_per_s": "mb_total_per_s",
        "read_rate": "read_rate", "read_resp_ms": "read_resp_ms",
        "write_rate": "write_rate", "write_resp_ms": "write_resp_ms",
        "mb_read_per_s": "mb_read_per_s", "mb_write_per_s": "mb_write_per_s",
    },
}
"""flatfile column -> the totals.html column that prints the same average (by report format);
:func:`parse_output_dir` checks that they agree to the precision both print. SD reports round
to the last digit printed, file-system reports cut the digits off (``1104872`` for
1104872.7091), so the latter may differ by one unit. The CPU columns are not the same
average (flatfile ``cpu_used`` 20.06 where totals.html prints 63.3) and are not compared."""
#: logfile.html: vdbench spread an SD's threads over the slaves and left this one without any
_REMOVED_SLAVE = re.compile(r"Workload removed, not enough threads for slave=([^,\s]+),")


def _describe(run: Mapping[str, Any]) -> str:
    """``rd1 threads=16`` (the rd and its loop values) for messages."""
    loop = " ".join(f"{key}={value}" for key, value in run.get("loop", {}).items())
    return f"{run['rd']} {loop}".strip()


def _runs_text(runs: Sequence[Mapping[str, Any]]) -> str:
    """``3 runs (rd1 threads=1, ..., rd1 threads=4)`` for messages."""
    if not runs:
        return "no run"
    names = [_describe(run) for run in runs]
    shown = names if len(names) <= 3 else [names[0], "...", names[-1]]
    return f"{len(runs)} run{'s' if len(runs) != 1 else ''} ({', '.join(shown)})"


def _same_run(ref: Mapping[str, Any], other: Mapping[str, Any], level: str) -> bool:
    """Whether two files' runs are the same run: ``report`` compares everything a
    ``Starting RD`` line prints, ``status`` the rd and loop values, ``flatfile`` the rd and
    the thread count (when totals.html prints one)."""
    if ref["rd"] != other["rd"]:
        return False
    if level == "flatfile":
        threads, printed = ref["loop"].get("threads"), other.get("threads")
        return threads is None or printed is None or float(printed) == threads
    keys = ("loop",) if level == "status" else ("loop", "iorate_setting", "elapsed_s", "warmup_s")
    return all(ref[key] == other[key] for key in keys)


def _check_runs(
    files: Mapping[str, str],
    reports: Mapping[str, list[dict[str, Any]]],
    logged: list[dict[str, Any]] | None,
    flat_rows: list[dict[str, Any]],
    histogram_runs: Mapping[str, list[dict[str, Any]]],
) -> list[str]:
    """Check that every file holds the same runs, finished alike; return the unfinished ones.

    A file may stop before the runs that no file finished (vdbench stopped during them);
    any other difference is refused, naming the file that differs from most others (on a tie,
    from totals.html, or from the one with more runs finished: a cut loses runs) and the run.
    """
    sources = _run_sources(files, reports, logged, flat_rows, histogram_runs)
    runs_of = {name: runs for name, _, runs, _ in sources}
    longest = max((runs for _, level, runs, _ in sources if level == "report"), key=len)
    for index in range(len(longest)):
        held = [(name, level, runs[index]) for name, level, runs, _ in sources if index < len(runs)]
        ref = _majority([run for _, level, run in held if level == "report"], _run_identity)
        agree = [name for name, level, run in held if _same_run(ref, run, level)]
        for name, level, run in held:
            if not _same_run(ref, run, level):
                raise ParseError(
                    f"{name} has run {index} as {_run_text(run, ref, level)}, {_names(agree)} as "
                    f"{_run_text(ref, run, level)} (a damaged 'Starting RD' line?)"
                )
    done_lists = [(name, tuple(i for i, flag in enumerate(done) if flag))
                  for name, _, _, done in sources if done is not None]
    finished = _majority([done for _, done in done_lists], lambda done: done, prefer=len)
    agree = [name for name, done in done_lists if done == finished]
    for name, done in done_lists:
        if done != finished:
            raise ParseError(
                f"{name} has an average for {_runs_text([runs_of[name][i] for i in done])}, "
                f"{_names(agree)} for {_runs_text([longest[i] for i in finished])}: {name} looks "
                "cut off or damaged"
            )
    for name, _, runs, _ in sources:
        if finished and len(runs) <= finished[-1]:
            raise ParseError(
                f"{name} has {_runs_text(runs)}, {_names(agree)} an average for "
                f"{_runs_text([longest[i] for i in finished])}: {name} looks cut off"
            )
    return [_describe(run) for index, run in enumerate(longest) if index not in finished]


def _run_sources(
    files: Mapping[str, str],
    reports: Mapping[str, list[dict[str, Any]]],
    logged: list[dict[str, Any]] | None,
    flat_rows: list[dict[str, Any]],
    histogram_runs: Mapping[str, list[dict[str, Any]]],
) -> list[tuple[str, str, list[dict[str, Any]], list[bool] | None]]:
    """The files :func:`_check_runs` compares: ``(file name, level of :func:`_same_run`, its runs,
    whether each run has an average (None for a file that prints no averages))``."""
    sources: list[tuple[str, str, list[dict[str, Any]], list[bool] | None]] = []
    for name in ("totals.html", "summary.html"):
        if name in reports:
            sources.append((name, "report", reports[name], [run["averaged"] for run in reports[name]]))
    if logged is not None:
        sources.append(("logfile.html", "report", logged, [run["averaged"] for run in logged]))
    for name, runs in sorted(histogram_runs.items()):  # every histogram (of the run, an sd, a host...) lists every run
        sources.append((name, "report", runs, None))
    if "status.html" in files:
        sources.append(("status.html", "status", _status_runs(files["status.html"]), None))
    if "flatfile.html" in files:
        flat_runs: list[dict[str, Any]] = []
        for row in flat_rows:
            if row["run_index"] == len(flat_runs):
                flat_runs.append({"rd": row.get("run"), "threads": row.get("threads"),
                                  "loop": {"threads": row.get("threads")}})
        averaged = {row["run_index"] for row in flat_rows if row["is_avg"]}
        sources.append(("flatfile.html", "flatfile", flat_runs,
                        [index in averaged for index in range(len(flat_runs))]))
    idle = set(_REMOVED_SLAVE.findall(files.get("logfile.html", "")))
    for name, runs in reports.items():  # host and slave reports
        if name not in ("totals.html", "summary.html"):
            # a slave vdbench gave no thread of a run (and a host whose slaves all got none)
            # starts the run and reports no interval: that run counts as finished alike
            report = name.removesuffix(".html")
            given_none = report in idle or (bool(idle) and any(s.rsplit("-", 1)[0] == report for s in idle))
            sources.append((name, "report", runs, [run["averaged"] or (given_none and not run["last_interval"])
                                                   for run in runs]))
    return sources


def _majority(values: Sequence[Any], key: Any, prefer: Any = lambda value: 0) -> Any:
    """The value most files hold (by ``key``); on a tie the one ``prefer`` ranks higher, else
    the first (totals.html's)."""
    counts: dict[Any, int] = {}
    for value in values:
        counts[key(value)] = counts.get(key(value), 0) + 1
    return max(values, key=lambda value: (counts[key(value)], prefer(value)))


def _run_identity(run: Mapping[str, Any]) -> tuple:
    """What a ``Starting RD`` line says of a run, hashable."""
    return (run["rd"], tuple(run["loop"].items()), run["iorate_setting"], run["elapsed_s"], run["warmup_s"])


def _run_text(run: Mapping[str, Any], other: Mapping[str, Any], level: str) -> str:
    """``'rd1 threads=4'``, with the rate, elapsed and warmup when only they differ."""
    text = repr(_describe(run))
    if level == "report" and _describe(run) == _describe(other):
        text += "".join(f", {key}={run[key]}" for key in ("iorate_setting", "elapsed_s", "warmup_s")
                        if run[key] != other[key])
    return text


def _names(names: Sequence[str]) -> str:
    """``totals.html, summary.html and 3 more`` for messages."""
    if len(names) <= 3:
        return ", ".join(names) or "no file"
    return f"{', '.join(names[:2])} and {len(names) - 2} more"


def _check_numbers(
    reports: Mapping[str, list[dict[str, Any]]],
    logged: list[dict[str, Any]] | None,
    flat_rows: list[dict[str, Any]],
    flat_printed: list[dict[str, str]],
) -> None:
    """Check the numbers printed twice: totals.html's ``avg_`` lines against summary.html's,
    every summary line against the logfile's copy, and flatfile.html's ``avg_`` rows against
    totals.html to the precision both print. Call after :func:`_check_runs`."""
    totals = [_only_avg(run) for run in reports["totals.html"] if run["averaged"]]
    if "summary.html" in reports:
        summary = reports["summary.html"]
        for total, run in zip(totals, (run for run in summary if run["averaged"])):
            avg = _only_avg(run)
            if total["_tokens"] != avg["_tokens"]:
                raise ParseError(
                    f"totals.html and summary.html disagree on run {total['run_index']} "
                    f"({_describe(total)}): {_first_difference(total['_tokens'], avg['_tokens'])}"
                )
        copies = [row["_line"] for run in summary for row in run["rows"]]
    else:
        copies = [row["_line"] for row in totals]
    if logged is not None:
        lines = [line for run in logged for line in run["lines"]]
        if "summary.html" not in reports:
            lines = [line for line in lines if line[0].startswith("avg_")]
        source = "summary.html" if "summary.html" in reports else "totals.html"
        for ours, theirs in zip(copies, lines):
            if ours != theirs:
                raise ParseError(
                    f"logfile.html and {source} disagree on the line {ours[0]!r}: "
                    f"{' '.join(theirs)!r} in logfile.html, {' '.join(ours)!r} in {source}"
                )
        if len(copies) != len(lines):
            raise ParseError(f"logfile.html has {len(lines)} report lines, {source} "
                             f"{len(copies)}: one of them is cut off or damaged")
    averages = [(row, printed) for row, printed in zip(flat_rows, flat_printed) if row["is_avg"]]
    if averages and not {"rate", "resp_ms"} <= set(averages[0][1]):
        raise ParseError("flatfile.html has no 'rate' or no 'resp' column (a damaged header?)")
    for total, (row, printed) in zip(totals, averages):
        twins = FLATFILE_TWINS.get(total["report_format"], {})
        if total["rd"] != row.get("run") or total["interval"] != row.get("interval"):
            raise ParseError(
                f"flatfile.html and totals.html disagree on run {total['run_index']}: "
                f"{row.get('run')} {row.get('interval')} in flatfile.html, {total['rd']} "
                f"{total['interval']} in totals.html"
            )
        for flat_key, key in twins.items():
            ours, theirs = total["_tokens"].get(key), printed.get(flat_key)
            if ours is None or theirs is None or "n/a" in (ours, theirs):
                continue
            slack = _half_unit(ours) * (2 if total["report_format"] == "fsd" else 1)
            if abs(float(ours) - float(theirs)) > slack + _half_unit(theirs) + 1e-9:
                raise ParseError(
                    f"flatfile.html and totals.html disagree on run {total['run_index']} "
                    f"({_describe(total)}): {flat_key} is {theirs} in flatfile.html, {key} is "
                    f"{ours} in totals.html"
                )


def _check_report_kinds(files: Mapping[str, str]) -> None:
    """Refuse a host or slave report that summary.html or a host report links to but whose
    first lines do not say what it is (a damaged title would drop its rows unseen)."""
    linked = [(name, "host", "summary.html")
              for name in _links(files.get("summary.html", ""), "Link to HOST reports:")]
    linked += [(name, "slave", host)
               for host in sorted(files) if host.endswith(".html") and _report_kind(files[host]) == "host"
               for name in _links(files[host], "Link to slave summary report:")
               if not name.endswith(".stdout.html")]
    for name, kind, source in linked:
        if name in files and _report_kind(files[name]) != kind:
            raise ParseError(f"{source} links {name} as a {kind} report, but {name} does not start "
                             f"like one (a damaged first line?)")


def _check_expected_runs(
    totals: list[dict[str, Any]], unfinished: list[str], expected: Mapping[str, Sequence[int]]
) -> None:
    """Refuse when an rd of ``expected`` did not run its thread counts in order, whole."""
    for rd, threads in expected.items():
        want = list(threads)
        got = [row["threads"] for row in totals if row["rd"] == rd]
        if not want or not got or len(got) % len(want) or got != want * (len(got) // len(want)):
            stopped = [name for name in unfinished if name.split()[0] == rd]
            raise ParseError(
                f"totals.html has rd={rd} at threads {got}, the parmfile asked for forthreads "
                f"{tuple(want)}: "
                + (f"vdbench did not finish {', '.join(stopped)}" if stopped else
                   "runs are missing or damaged")
            )


def _only_avg(run: Mapping[str, Any]) -> dict[str, Any]:
    """The ``avg_`` row of a finished run."""
    return next(row for row in run["rows"] if row["row_type"] == "avg")


def _first_difference(ours: Mapping[str, str], theirs: Mapping[str, str]) -> str:
    """``resp_ms is 0.844 in totals.html, 0.845 in summary.html`` (or the columns that differ)."""
    if list(ours) != list(theirs):
        return f"columns {list(ours)} in totals.html, {list(theirs)} in summary.html"
    key = next(key for key in ours if ours[key] != theirs[key])
    return f"{key} is {ours[key]} in totals.html, {theirs[key]} in summary.html"


def _logfile_runs(text: str) -> list[dict[str, Any]]:
    """The runs of logfile.html: the context of each ``Starting RD`` line vdbench marked as a
    report line (inside a tag; 5.04.01 prints it once more without), whether the run has an
    ``avg_`` line, and the report lines (label and values, split) it copied from summary.html."""
    runs: list[dict[str, Any]] = []
    if not text.strip():
        return runs
    for number, raw in enumerate(_lines(text, "logfile.html"), start=1):
        line = _strip_tags(raw)
        starting = _STARTING.search(line)
        if starting and line != raw:
            runs.append({**_run_context(starting, len(runs), "logfile.html", number),
                         "averaged": False, "lines": []})
            continue
        data = _DATA.match(line)
        if runs and data and (data["label"].isdigit() or _LABEL.match(data["label"])):
            tokens = line.split()[1:]
            runs[-1]["lines"].append(tokens)
            runs[-1]["averaged"] |= tokens[0].startswith("avg_")
    return runs


def _status_runs(text: str) -> list[dict[str, Any]]:
    """The runs status.html started (``Starting<TAB>rd=rd1<TAB>For loops: threads=1``)."""
    runs: list[dict[str, Any]] = []
    if not text.strip():
        return runs
    for number, line in enumerate(_lines(text, "status.html"), start=1):
        parts = [part.strip() for part in line.split("\t")[1:]]
        if len(parts) >= 2 and parts[0] == "Starting" and parts[1].startswith("rd="):
            loops = parts[2] if len(parts) > 2 else ""
            if loops and not loops.startswith("For loops:"):
                raise ParseError(f"status.html line {number}: expected 'For loops:', got {loops[:40]!r}")
            runs.append({"rd": parts[1][3:],
                         "loop": _parse_loops(loops[len("For loops:"):], f"status.html line {number}")})
    return runs
