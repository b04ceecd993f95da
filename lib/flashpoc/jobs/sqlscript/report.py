"""The report of a DBA's job: its labelled runs compared (the seed: 20 sessions of an insert job
took 19 min 47 s with UNDO on disk and 8 min 14 s with UNDO on flash, 2.4x faster).

- :func:`latest_runs`: the stored runs of the campaign, the latest of each label, the first
  label measured first (the baseline of the speed-up).
- :func:`speedup_table`, :func:`load_profile_table`, :func:`buffer_waits_table`,
  :func:`file_io_table`: the runs side by side, with human headers and units;
  :func:`flashpoc.present.chart.sql_runs` draws them.
- :func:`job_items`: the report's DBA-job section (text, tables, the charts' data).
- :func:`report_view`: the job's report as data (:class:`flashpoc.core.views.ReportView`): the
  whole report of a campaign that runs only the DBA's job (``engine: sqlscript``) and the section it
  adds to a sweep's report when the campaign also ran the job; the present layer draws and writes
  it under ``report/`` as the sweep's report is.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from flashpoc.core import tables
from flashpoc.core.store import CampaignStore
from flashpoc.core.views import ChartView, ConditionLines, FilesTable, ReportView, SectionView
from flashpoc.jobs.sqlscript.measure import PHASE
from flashpoc.jobs.sqlscript.profile import LOAD_PROFILE


def latest_runs(cfg) -> pd.DataFrame:
    """The campaign's stored runs of the DBA's job: the latest of each label, in the order the
    labels were first measured (the first is the speed-up's baseline), with ``config`` = label."""
    frame = CampaignStore(cfg.resolved().results_path()).load_points(PHASE)
    if frame.empty:
        return frame
    order = list(dict.fromkeys(frame["label"].astype(str)))
    latest = frame.drop_duplicates("label", keep="last").set_index("label").loc[order].reset_index()
    return latest.assign(config=latest["label"].astype(str))


def minutes_text(seconds: Any) -> str:
    """``1187`` -> ``19 min 47 s`` (the way a DBA times a job); under a minute ``42.1 s``."""
    if seconds is None or pd.isna(seconds):
        return tables.MISSING
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def speedups(runs: pd.DataFrame) -> pd.Series:
    """Each run's speed-up over the first (the baseline): its elapsed time over the run's."""
    elapsed = runs["elapsed_s"].astype(float)
    return elapsed.iloc[0] / elapsed.where(elapsed > 0)


def speedup_table(runs: pd.DataFrame) -> tables.Table:
    """One row per run: sessions, elapsed time, speed-up over the first run, the DB host's %user
    and %iowait over the snapshot interval (AWR Host CPU), redo and transactions per second."""
    rows = []
    for run, speedup in zip(runs.to_dict("records"), speedups(runs)):
        rows.append({"Run": run["label"], "Sessions": tables.count(run.get("sessions")),
                     "Elapsed": minutes_text(run["elapsed_s"]), "Elapsed (s)": f"{run['elapsed_s']:,.1f}",
                     f"Speed-up over {runs['label'].iloc[0]} (x)": _ratio(speedup),
                     "DB host %user": tables.pct(run.get("host_cpu_user_pct")),
                     "DB host %iowait": tables.pct(run.get("host_cpu_iowait_pct")),
                     "Redo (MB/s)": tables.pct(_scaled(run.get("redo_bytes_per_s"), 1e-6)),
                     "Transactions per s": tables.pct(run.get("transactions_per_s")),
                     "Snapshots": _snapshots(run)})
    return tables.table(rows, caption="The DBA's job: each run's time and the database host's CPU",
                        notes=["Speed-up: the first run's elapsed time over each run's. Elapsed: from the sessions' "
                               "common start to the last commit. %user and %iowait: the DB host's CPU over the "
                               "snapshot interval (AWR Operating System Statistics)."])


def load_profile_table(runs: pd.DataFrame) -> tables.Table:
    """The AWR Load Profile of each run (per second and per transaction), as awrrpt.sql prints it."""
    rows = []
    for key, (label, _) in LOAD_PROFILE.items():
        row: dict[str, Any] = {"Load Profile": label}
        for run in runs.to_dict("records"):
            row[f"{run['label']} per s"] = _number(run.get(f"{key}_per_s"))
            if key != "transactions":
                row[f"{run['label']} per transaction"] = _number(run.get(f"{key}_per_txn"))
        rows.append(row)
    return tables.table(rows, caption="AWR Load Profile of each run (the snapshot interval)",
                        notes=["A transaction is a user commit or rollback; the values are the DBA_HIST_SYSSTAT "
                               "(STATS$SYSSTAT) deltas between the run's snapshots."])


def buffer_waits_table(runs: pd.DataFrame) -> tables.Table:
    """Each run's buffer waits by block class (AWR Buffer Wait Statistics), the longest first."""
    rows = [{"Run": run["label"], "Class": wait["class"], "Waits": tables.count(wait["waits"]),
             "Total wait time (s)": f"{wait['time_s']:,.1f}", "Avg wait (ms)": tables.ms(wait["avg_ms"])}
            for run in runs.to_dict("records") for wait in _listed(run.get("buffer_waits"))]
    return tables.table(rows, columns=["Run", "Class", "Waits", "Total wait time (s)", "Avg wait (ms)"],
                        caption="Buffer waits by block class (AWR Buffer Wait Statistics)",
                        notes=["Waits on undo header or undo block at the top put the UNDO tablespace's storage "
                               "on the job's path (the seed's finding, before UNDO moved to flash)."])


FILE_IO_ROWS = 10
"""Files shown per run in :func:`file_io_table` (the hottest; the stored run keeps them all)."""


def file_io_table(runs: pd.DataFrame) -> tables.Table:
    """Each run's hottest files (AWR File IO Stats): reads, writes and buffer waits with their
    averages, the most I/O first; at most :data:`FILE_IO_ROWS` per run."""
    rows = [{"Run": run["label"], "Tablespace": f["tablespace"], "File": f["filename"],
             "Reads": tables.count(f["reads"]), "Reads per s": _number(f["reads_per_s"]),
             "Avg read (ms)": tables.ms(f["avg_read_ms"]), "Writes": tables.count(f["writes"]),
             "Writes per s": _number(f["writes_per_s"]), "Buffer waits": tables.count(f["buffer_waits"]),
             "Avg buffer wait (ms)": tables.ms(f["avg_buffer_wait_ms"])}
            for run in runs.to_dict("records") for f in _listed(run.get("file_io"))[:FILE_IO_ROWS]]
    columns = ["Run", "Tablespace", "File", "Reads", "Reads per s", "Avg read (ms)", "Writes", "Writes per s",
               "Buffer waits", "Avg buffer wait (ms)"]
    notes = ["DBA_HIST_FILESTATXS and DBA_HIST_TEMPSTATXS (STATS$FILESTATXS, STATS$TEMPSTATXS) deltas between "
             "the run's snapshots, data and temp files, the most reads + writes first. An UNDO tablespace's file near "
             "the top with many writes and buffer waits is the hot spot the seed moved to flash."]
    if not rows:
        notes.append("No run has file rows: the snapshots held no file statistics (the AWR report then prints "
                     "'No data exists' under File IO Stats, as the 12.2 to 19c reports at hand do).")
    return tables.table(rows, columns=columns, caption="I/O per file, the hottest first (AWR File IO Stats)",
                        notes=notes)


def host_cpu_table(runs: pd.DataFrame) -> tables.Table:
    """Each run's database host CPU during the job from its vmstat samples: the host, the samples, the
    mean and the highest %user and %iowait, the mean %sys and %idle (vmstat prints whole percents)."""
    rows = []
    notes = ["vmstat -t on the database host while the sessions ran, one sample every sql_workload.cpu_every_s "
             "seconds (its first line, the average since boot, left out): the CPU over time that AWR's Host CPU "
             "gives as one average of the snapshot interval (the runs table)."]
    for run in runs.to_dict("records"):
        series = _listed(run.get("cpu_series"))
        if not series:
            notes.append(f"{run['label']}: {run.get('cpu_note') or 'no vmstat samples (an earlier run)'}.")
            continue
        frame = pd.DataFrame(series)
        rows.append({"Run": run["label"], "Host": run.get("cpu_host") or tables.MISSING,
                     "Samples": tables.count(len(frame)), "Seconds": f"{frame['second'].iloc[-1]:,.0f}",
                     "%user mean": tables.pct(frame["us_pct"].mean()), "%user max": str(frame["us_pct"].max()),
                     "%sys mean": tables.pct(frame["sy_pct"].mean()),
                     "%iowait mean": tables.pct(frame["wa_pct"].mean()), "%iowait max": str(frame["wa_pct"].max()),
                     "%idle mean": tables.pct(frame["id_pct"].mean())})
    columns = ["Run", "Host", "Samples", "Seconds", "%user mean", "%user max", "%sys mean", "%iowait mean",
               "%iowait max", "%idle mean"]
    return tables.table(rows, columns=columns, notes=notes,
                        caption="The database host's CPU during the job (vmstat), per run")


def _has_cpu_series(runs: pd.DataFrame) -> bool:
    return "cpu_series" in runs and any(_listed(series) for series in runs["cpu_series"])


FILE_ROLES = ("UNDO", "TEMP", "SYSTEM", "data")
"""The kinds of file :func:`file_placement_table` lines up, in its order."""


def file_role(file: dict[str, Any]) -> str:
    """What a file of a run's File IO rows holds: TEMP (a temp file, or of a TEMP tablespace in a run
    stored before the rows said so), UNDO (a tablespace named UNDO..., as Oracle names its undo
    tablespaces), SYSTEM (SYSTEM, SYSAUX), else data."""
    name = str(file.get("tablespace", "")).upper()
    if file.get("temp") or (file.get("temp") is None and name.startswith("TEMP")):
        return "TEMP"
    if name.startswith("UNDO"):
        return "UNDO"
    return "SYSTEM" if name in ("SYSTEM", "SYSAUX") else "data"


def file_location(filename: str) -> str:
    """Where a database file sits as its name says: the ASM disk group (``+DATA``) or the directory."""
    if filename.startswith("+"):
        return filename.split("/", 1)[0]
    sep = "\\" if "\\" in filename and "/" not in filename else "/"
    return (filename.rsplit(sep, 1)[0] or sep) if sep in filename else filename


def file_placement(runs: pd.DataFrame) -> dict[tuple[str, str], dict[str, dict[str, int]]]:
    """``{(role, tablespace): {run label: {location: files}}}`` of the runs' File IO rows, by
    :data:`FILE_ROLES` then tablespace."""
    found: dict[tuple[str, str], dict[str, dict[str, int]]] = {}
    for run in runs.to_dict("records"):
        for f in _listed(run.get("file_io")):
            at = found.setdefault((file_role(f), f["tablespace"]), {}).setdefault(run["label"], {})
            at[file_location(f["filename"])] = at.get(file_location(f["filename"]), 0) + 1
    return dict(sorted(found.items(), key=lambda item: (FILE_ROLES.index(item[0][0]), item[0][1])))


def file_placement_table(runs: pd.DataFrame) -> tables.Table:
    """Which files (UNDO, TEMP, SYSTEM, data) sit where in each run: per tablespace, each run's
    directories or ASM disk groups with their count of files, as the run's File IO rows name them;
    a tablespace whose place differs between runs is marked."""
    labels = list(dict.fromkeys(runs["label"].astype(str)))
    rows = []
    for (role, tablespace), by_run in file_placement(runs).items():
        places = {label: "; ".join(f"{where} ({n} file{'s' if n > 1 else ''})" for where, n in by_run[label].items())
                  if label in by_run else tables.MISSING for label in labels}
        moved = len({frozenset(by_run[label]) for label in labels if label in by_run}) > 1
        rows.append({"Files": role, "Tablespace": tablespace, **places, "Moved": "yes" if moved else ""})
    notes = ["From each run's AWR File IO rows (DBA_HIST_FILESTATXS, DBA_HIST_TEMPSTATXS): a file that did no I/O "
             "during a run is not in its rows (–). UNDO: a tablespace named UNDO..., as Oracle names undo "
             "tablespaces. The online redo logs are not in these rows: their writes are the log file parallel write "
             "latency of the runs table. The rows name files, not devices: which device holds a directory is the "
             "database host's to say (df on it)."]
    return tables.table(rows, columns=["Files", "Tablespace", *labels, "Moved"], notes=notes,
                        caption="Where the job's files are in each run (directory or ASM disk group)")


def placement_text(runs: pd.DataFrame) -> str | None:
    """Markdown: the tablespaces whose place differs between the runs (the change the runs compare), or None."""
    moves = []
    for (role, tablespace), by_run in file_placement(runs).items():
        if len({frozenset(places) for places in by_run.values()}) > 1:
            moves.append(f"{tablespace} ({role}): " + ", ".join(f"{', '.join(places)} in {label}"
                                                                 for label, places in by_run.items()))
    return ("Between the runs the files of " + "; ".join(moves) + ".") if moves else None


def speedup_text(runs: pd.DataFrame) -> str:
    """Markdown: each run's time and its speed-up over the first run."""
    first = runs.iloc[0]
    parts = [f"**{first['label']}** (the baseline) took {minutes_text(first['elapsed_s'])}"]
    for run, speedup in zip(runs.iloc[1:].to_dict("records"), speedups(runs).iloc[1:]):
        parts.append(f"**{run['label']}** {minutes_text(run['elapsed_s'])}: "
                     + (f"{_ratio(speedup)}x as fast" if pd.notna(speedup) else "no time to compare"))
    sessions = ", ".join(dict.fromkeys(str(s) for s in runs["sessions"]))
    return f"The DBA's job in {sessions} concurrent sessions: " + "; ".join(parts) + "."


def awr_reports_text(runs: pd.DataFrame) -> str:
    """Markdown: where each run's AWR report is (in the campaign's folder), or why it has none."""
    lines = ["The AWR report of each run's snapshot pair, generated by the database:", ""]
    for run in runs.to_dict("records"):
        if run.get("awr_report"):
            names = _listed(run.get("awr_reports")) or [run["awr_report"]]  # runs stored before HTML: one
            lines.append(f"- {run['label']}: "
                         + ", ".join(f"`points/{PHASE}/{run['run_id']}/{name}`" for name in names))
        else:
            lines.append(f"- {run['label']}: {run.get('awr_report_note') or 'no AWR report (an earlier run)'}")
    return "\n".join(lines)


def job_items(runs: pd.DataFrame) -> tuple[Any, ...]:
    """The DBA-job section: the speed-up in words, the runs table, the chart, the hosts' CPU, where the
    files are, the Load Profile, the buffer waits and the files' I/O."""
    placement = tuple(text for text in [placement_text(runs)] if text)
    cpu = (ChartView("sql_cpu", "sql_cpu_over_time", runs),) if _has_cpu_series(runs) else ()
    return (speedup_text(runs), speedup_table(runs), ChartView("sql_runs", "sql_runs", runs), host_cpu_table(runs),
            *cpu, *placement, file_placement_table(runs), load_profile_table(runs), buffer_waits_table(runs),
            file_io_table(runs))


def report_view(cfg) -> ReportView:
    """The report of the DBA's job of ``cfg`` as data: the whole report of a campaign that runs only the job
    (``engine: sqlscript``: its runs compared, the charts and sql_runs.csv), and the section it adds to a
    sweep's report when the campaign also ran the job (:attr:`~flashpoc.core.views.ReportView.within`);
    without a stored run, ``missing`` says so."""
    cfg = cfg.resolved()
    runs = latest_runs(cfg) if cfg.sql_workload is not None else pd.DataFrame()
    if runs.empty:
        return ReportView(missing=f"no run of the DBA's job for {cfg.campaign} in {cfg.results_path()}: run notebook "
                                  "03 (with sql_workload) first")
    items = job_items(runs)
    first = runs.iloc[0]
    database = (f"Database {first.get('db_name')} (Oracle {first.get('version')}, instance {first.get('instance_number')}"
                + (", RAC" if first.get("rac") else "") + ").")
    sections = (
        SectionView("summary", "Executive summary", items[:2]),
        SectionView("conditions", "Test conditions", (
            database, f"The script: {cfg.sql_workload.script} ({_verbs(first.get('script'))}), run by each session.",
            ConditionLines())),
        SectionView("method", "Method", (cfg.engine_object.method_note + " The database's numbers are the deltas "
                                         "of its counters between the two snapshots (DBA_HIST views, or STATS$ "
                                         "tables with Statspack), read through SQL.",)),
        SectionView("results", "A DBA's own job", (*items[2:], awr_reports_text(runs))),
        SectionView("appendix", "Appendix", (FilesTable("Files of the report", FILE_NOTES, "Chart: the runs."),)),
    )
    return ReportView(f"A DBA's job: {cfg.campaign}", speedup_text(runs), sections,
                      within=(SectionView("results", "A DBA's own job", (*items, awr_reports_text(runs))),),
                      charts=tuple(item for item in items if isinstance(item, ChartView)),
                      tables=(("sql_runs.csv", runs.drop(columns=["script"], errors="ignore")),))


#: what each file of the job's report is, by the start of its name (the runs' chart otherwise)
FILE_NOTES = (("sql_cpu.", "Chart: the database host's CPU during each run (vmstat)."),
              ("sql_runs.csv", "Every run's row (elapsed, AWR metrics, Load Profile)."))


def _listed(value: Any) -> list:
    """A list column of a stored run (absent in runs stored before it existed: empty)."""
    return value if isinstance(value, list) else []


def _ratio(value: Any) -> str:
    """A speed-up as the seed states it: ``2.4``."""
    return tables.MISSING if value is None or pd.isna(value) else f"{value:.1f}"


def _verbs(summary: Any) -> str:
    if not isinstance(summary, dict):
        return "statements"
    verbs = ", ".join(f"{n} {v}" for v, n in summary.get("verbs", {}).items())
    return f"{summary.get('statements')} statements: {verbs}"


def _scaled(value: Any, factor: float) -> float | None:
    return None if value is None or pd.isna(value) else value * factor


def _number(value: Any) -> str:
    """A Load Profile value as awrrpt.sql prints it: one decimal, thousands separators."""
    return tables.MISSING if value is None or pd.isna(value) else f"{value:,.1f}"


def _snapshots(run: dict[str, Any]) -> str:
    method = "Statspack" if run.get("snapshots") == "statspack" else "AWR"
    return f"{method} {run.get('begin_snap')}-{run.get('end_snap')}"
