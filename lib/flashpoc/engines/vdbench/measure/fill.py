"""The data on the targets: the fill of scratch files (and LUNs that allow writing) with vdbench's own data, and its
records."""

from __future__ import annotations

import hashlib
import json
import time
from datetime import datetime, timezone
from typing import Any

from flashpoc.core.errors import CheckFailed, RemoteError
from flashpoc.params import HostParams, TargetParams
from flashpoc.engines.vdbench.parse import parse_output_dir, parse_summary
from flashpoc.engines.vdbench.plan import data_text, fill_xfersize, render_fill_parmfile
from flashpoc.hosts.targets import fill_timeout_s, make_scratch_files
from flashpoc.engines.vdbench.run import run_vdbench
from flashpoc.hosts.targets import target_sizes
from flashpoc.core.store import write_atomic
from flashpoc.engines.vdbench.measure.output import failure, run_intervals


#: where the records of the scratch-file fills live in the campaign's results (one JSON per host and target)
FILL_DIR = "targets"


# -- the data on the targets ----------------------------------------------------------

def fill_record(wb, host_params: HostParams, target: TargetParams) -> dict[str, Any] | None:
    """The stored record of the fill of ``target`` on ``host_params`` (:func:`fill_targets`), or
    None when the workbook has not filled it with this campaign's data and size."""
    path = wb.store.root / FILL_DIR / host_params.name / f"{target.name}.json"
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    current = (target.path, target.size_bytes, data_text(wb.cfg))
    return record if (record.get("path"), record.get("size_bytes"), record.get("data")) == current else None


def fill_targets(wb, host_params: HostParams, targets: list[TargetParams], sizes: dict[str, int] | None = None
                 ) -> dict[str, Any]:
    """Fill the scratch files ``targets`` of one host with vdbench's own data, of the campaign's
    ``compratio``/``dedupratio``/``dedupunit``: each file is made (or extended) at its size,
    then written once from start to end (:func:`flashpoc.engines.vdbench.plan.render_fill_parmfile`),
    and the fill is recorded under ``targets/<host>/`` (parmfile, console, totals, summary and
    one ``<target>.json`` each), so that the rows can say what the reads read. LUNs that allow
    writing are filled the same way (``sizes``: the working set of a target without a ``size``).

    Returns:
        The record written for each target: ``{"host", "target", "path", "size_bytes", "data",
        "xfersize_bytes", "written_bytes", "seconds", "completed_utc"}``.

    Raises:
        RemoteError: vdbench failed (its own words and where its output is), or wrote less than
            the files' sizes.
    """
    cfg = wb.cfg
    host = wb.host(host_params)
    names = ", ".join(t.name for t in targets)
    purpose = f"fill {names} with vdbench data"
    start = time.perf_counter()
    make_fill_targets(host, f"{host_params.name}: {purpose}", targets)
    parmfile = render_fill_parmfile(cfg, targets, sizes)
    # named by its parmfile (the targets' paths): two campaigns of one name never share the directory
    run_dir = f"{host_params.workdir}/{cfg.campaign}/fill-{hashlib.sha256(parmfile.encode()).hexdigest()[:10]}"
    xfer = fill_xfersize(cfg, targets, sizes)
    expected = sum((t.size_bytes or (sizes or {})[t.name]) // xfer * xfer for t in targets)
    run = run_vdbench(host, parmfile, run_dir, timeout_s=fill_timeout_s(host_params, expected), purpose=purpose)
    where = f"vdbench's output directory: {host_params.name}:{run_dir}/output"
    if run.exit_code != 0:
        raise failure(run, purpose, where)
    parsed = parse_output_dir(run.files)
    totals = [t for t in parsed["totals"] if t["rd"] == "fill"]
    written = round(sum((r.get("iops") or 0) * cfg.settings.interval_s * (r.get("bytes_per_io") or 0)
                        for total in totals for r in run_intervals(total, parsed)))
    if not totals or written < 0.99 * expected:
        raise RemoteError(f"{host_params.name}: {purpose}: vdbench wrote {written:,} bytes of {expected:,}; the files "
                          f"are not filled; {where}")
    each = written_per_target(run.files, [t.name for t in targets], cfg.settings.interval_s, written,
                              f"{host_params.name}: {purpose}: {where}")
    folder = wb.store.root / FILL_DIR / host_params.name
    for name, text in (("fill.parmfile", parmfile), ("fill.console.txt", run.console),
                       ("fill.totals.html", run.files.get("totals.html", "")),
                       ("fill.summary.html", run.files.get("summary.html", "")),
                       *((f"fill.{t.name}.html", run.files[f"{t.name}.html"]) for t in targets if each)):
        write_atomic(folder / name, text)
    completed = datetime.now(timezone.utc).isoformat(timespec="seconds")
    records = {}
    for target in targets:
        records[target.name] = {"host": host_params.name, "target": target.name, "path": target.path,
                                "size_bytes": target.size_bytes, "data": data_text(cfg), "xfersize_bytes": xfer,
                                "written_bytes": each[target.name] if each else written,
                                **({} if each or len(targets) == 1 else {"written_with": sorted(t.name for t in targets)}),
                                "seconds": time.perf_counter() - start, "completed_utc": completed}
        wb.store.write_json(f"{FILL_DIR}/{host_params.name}/{target.name}.json", records[target.name])
    return records


def written_per_target(files: dict[str, str], names: list[str], interval_s: int, written: int, where: str
                       ) -> dict[str, int] | None:
    """The bytes the fill wrote to each target, from vdbench's own SD report of each (``<sd>.html``:
    its interval lines' rate x interval x bytes per I/O), which must add up to the run's total
    (``written``, from summary.html) to 1 %; None when an SD report is missing (the total is then
    the targets' together).

    Raises:
        RemoteError: the SD reports do not add up to the total (``where``: the host, purpose and output).
    """
    if not all(f"{name}.html" in files for name in names):
        return None
    each = {}
    for name in names:
        rows = parse_summary(files[f"{name}.html"], f"{name}.html")
        each[name] = round(sum((r.get("iops") or 0) * interval_s * (r.get("bytes_per_io") or 0) for r in rows
                               if r.get("rd") == "fill" and r.get("row_type") == "interval"))
    if abs(sum(each.values()) - written) > 0.01 * written:
        raise RemoteError(f"{where}: vdbench's SD reports add up to {sum(each.values()):,} bytes written, its summary "
                          f"to {written:,}: the output is damaged")
    return each


def make_fill_targets(host, name: str, targets: list[TargetParams]) -> None:
    """Make the scratch files among ``targets`` at their size (sparse: vdbench would otherwise run its
    own format before the fill), then check that every target is there at its size (``name``: the
    host and purpose the error begins with).

    Raises:
        CheckFailed: a target is missing or short: vdbench's own format run would extend it.
    """
    make_scratch_files(host, [t for t in targets if t.create])
    found = target_sizes(host, targets)  # a missing or short target would be extended by vdbench's own format run
    short = [f"{t.name} ({t.path}): {found[t.path]}" for t in targets
             if not isinstance(found[t.path], int) or (t.size_bytes and found[t.path] < t.size_bytes)]
    if short:
        raise CheckFailed(f"{name}: vdbench was not started: these targets are missing or "
                          f"smaller than their size, and vdbench would write them to extend them: {'; '.join(short)}")


def target_data(wb) -> str:
    """What the targets hold, in one line for the rows: ``vdbench fill: compratio=2`` for the
    scratch files the workbook filled with this campaign's data (:func:`fill_targets`), ``not
    written by flashpoc`` for the others (their own data: compratio and dedupratio apply only to
    what vdbench writes); several kinds are listed with their targets."""
    kinds: dict[str, list[str]] = {}
    for target in wb.cfg.targets:
        hosts = [h for h in wb.cfg.hosts if target in wb.cfg.targets_of(h)]
        filled = hosts and all(fill_record(wb, h, target) is not None for h in hosts)
        kinds.setdefault(f"vdbench fill: {data_text(wb.cfg)}" if filled else "not written by flashpoc",
                         []).append(target.name)
    if len(kinds) == 1:
        return next(iter(kinds))
    return "; ".join(f"{', '.join(names)}: {kind}" for kind, names in kinds.items())
