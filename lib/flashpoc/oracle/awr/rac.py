"""An AWR RAC global report (``WORKLOAD REPOSITORY REPORT (RAC)``), text or HTML: its header and instance
list, the cluster-wide key events and histograms, each instance's host CPU, statistics and time model,
and the ``System Statistics (Global)``, its transactions checked against the instances' and each paired
statistic against its pair."""

from __future__ import annotations

from typing import Any

from flashpoc.core.errors import ParseError
from flashpoc.oracle.awr.instance import _always_printed, _key_events, _key_events_whole_ms, _system_statistics_global
from flashpoc.oracle.reportparse.events import _histograms, _key_event_names, _key_event_waits
from flashpoc.oracle.reportparse.sections import (_Sections, _require, _section, _wait_event_tables, _whole_or_none,
                                                  transactions_checked)
from flashpoc.oracle.reportparse.tables import _HtmlReport, _TextReport, _norm
from flashpoc.oracle.reportparse.values import _float, _whole


def _parse_rac_global(report: _TextReport | _HtmlReport) -> dict[str, Any]:
    sections = _Sections()
    fg, bg = _wait_event_tables(report, sections, " (Global)")
    out = {
        "header": sections.read("header", lambda: _always_printed(_rac_header, report)),
        "load_profile": None,
        "top_events": None,
        "key_events": _key_events(fg, bg),
        "key_events_whole_ms": _key_events_whole_ms(fg, bg),
        "event_histograms": _histograms(report, sections, ("Wait Event Histogram (Global)",)),
        "iostat_by_function": None,
        "tablespace_io": None,
        "file_io": None,
        "host_cpu": None,
        "host_cpu_by_instance": sections.read("OS Statistics By Instance", lambda: _rac_host_cpu(report)),
        "system_statistics_per_second": sections.read(
            "System Statistics - Per Second", lambda: _rac_per_instance(report, "System Statistics - Per Second")),
        "key_event_waits": _key_event_waits(fg, bg),
        "key_event_names": _key_event_names(fg, bg),
        "time_model_by_instance": sections.read("Time Model", lambda: _rac_per_instance(report, "Time Model")),
        "system_statistics_global": sections.read("System Statistics (Global)",
                                                  lambda: _system_statistics_global(report)),
    }
    if out["system_statistics_global"]:
        out["system_statistics_global"] = _global_statistics_checked(out["system_statistics_global"],
                                                                     out["system_statistics_per_second"], sections)
    return {**out, "sections": sections.result()}


_PAIRED_STATISTICS = (("physical read IO requests", "physical read bytes"),
                      ("physical write IO requests", "physical write bytes"))
"""Statistics that come in pairs: requests that moved moved bytes (AWR lists no statistic of 0)."""


def _global_statistics_checked(rows: list[dict[str, Any]], per_instance: list[dict[str, Any]] | None,
                               sections: _Sections) -> list[dict[str, Any]]:
    """``System Statistics (Global)`` cross-checked with what the report prints twice: its
    transactions against the instances' ``Txns/s`` summed (:func:`transactions_checked`), and each
    statistic of :data:`_PAIRED_STATISTICS` with its pair (a lost one is named)."""
    txns = [row.get("Txns/s") for row in per_instance or ()]
    if txns and all(isinstance(v, (int, float)) for v in txns):
        rows = transactions_checked(rows, sum(txns), 0.05 * (len(txns) + 1), "System Statistics (Global)",
                                    "the instances' Txns/s summed", sections)
    stats = {row["statistic"]: row for row in rows}
    for first, second in _PAIRED_STATISTICS:
        lone = [(a, b) for a, b in ((first, second), (second, first)) if (stats.get(a) or {}).get("total") and b not in stats]
        if lone:
            sections.not_understood.append({"section": "System Statistics (Global)", "reason": (
                f"{lone[0][0]!r} is listed, {lone[0][1]!r} is not: a line lost?")})
    return rows


def _rac_header(report: _TextReport | _HtmlReport) -> dict[str, Any]:
    if isinstance(report, _TextReport):
        summary = _section(report, "Database Summary")
        instances = _section(report, "Database Instances Included In Report")
    else:
        summary = _whole_or_none(report.by_summary(r"^Database Summary"))
        instances = _whole_or_none(report.by_summary(r"^Database Instances Included In Report"))
    summary = _require(summary, "Database Summary")
    instances = _require(instances, "Database Instances Included In Report")
    row = summary.rows[0]
    # Column names repeat (Begin/End, In Report/Total), so read them by position: the
    # layout is the same in text and HTML (Id Name ... Begin End, In Report Total, In Report
    # Total, DB time, Elapsed time).
    names = [_norm(h).split()[-1] if h else "" for h in summary.header]
    expected = ["id", "name", "name", "role", "edition", "rac", "cdb", "size", "begin", "end"]
    if names[:10] != expected or len(row) < 16:
        raise ParseError(f"section 'Database Summary': unexpected columns {summary.header}")
    inst_rows = [r for r in instances.rows if r and r[0].strip().isdigit()]
    c_num, c_inst = instances.col("I#"), instances.col("Instance")
    c_host, c_rel = instances.col("Host"), instances.col("Release")
    c_begin, c_end = instances.col("Begin Snap Time"), instances.col("End Snap Time")
    c_ela, c_dbt = instances.col("Elapsed Time(min)"), instances.col("DB time(min)")
    inst_list = [
        {
            "inst_num": _whole(r[c_num]),
            "instance": r[c_inst],
            "host": r[c_host],
            "elapsed_min": _float(r[c_ela], "instance elapsed"),
            "db_time_min": _float(r[c_dbt], "instance DB time"),
        }
        for r in inst_rows
    ]
    return {
        "db_name": row[1],
        "db_id": _whole(row[0]),
        "version": inst_rows[0][c_rel] if inst_rows else None,
        "instances": inst_list,
        "instance_count": _whole(row[10]),
        "rac": row[5] == "YES",
        "cdb": row[6] == "YES",
        "begin_snap": _whole(row[8]),
        "end_snap": _whole(row[9]),
        # The RAC report prints snapshot times to the minute, per instance.
        "begin_time": inst_rows[0][c_begin] if inst_rows else None,
        "end_time": inst_rows[0][c_end] if inst_rows else None,
        "elapsed_min": _float(row[15], "Report Total elapsed time"),
        "db_time_min": _float(row[14], "Report Total DB time"),
    }


def _rac_host_cpu(report: _TextReport | _HtmlReport) -> list[dict[str, Any]] | None:
    table = _section(report, "OS Statistics By Instance")
    if table is None:
        return None
    heads = [_norm(h).split()[-1] if h else "" for h in table.header]
    # 'Begin'/'End' (load) and '#CPUs' occur once before the end-value columns.
    def idx(name: str) -> int:
        if name not in heads:
            raise ParseError(f"section 'OS Statistics By Instance': expected column {name!r}, found {table.header}")
        return heads.index(name)

    out = []
    for row in table.rows:
        if not row[0].strip().isdigit():
            continue
        out.append(
            {
                "inst_num": _whole(row[0]),
                "cpus": _whole(row[idx("#cpus")]),
                "load_begin": _float(row[idx("begin")], "load begin"),
                "load_end": _float(row[idx("end")], "load end"),
                "busy_pct": _float(row[idx("busy")], "% Busy"),
                "user_pct": _float(row[idx("usr")], "% Usr"),
                "system_pct": _float(row[idx("sys")], "% Sys"),
                "wio_pct": _float(row[idx("wio")], "% WIO"),
                "idle_pct": _float(row[idx("idl")], "% Idl"),
            }
        )
    return out


def _rac_per_instance(report: _TextReport | _HtmlReport, title: str) -> list[dict[str, Any]] | None:
    table = _section(report, title)
    if table is None:
        return None
    out = []
    for row in table.rows:
        if not row[0].strip().isdigit():
            continue
        entry: dict[str, Any] = {"inst_num": _whole(row[0])}
        for head, cell in zip(table.header[1:], row[1:]):
            entry[head] = _float(cell, f"{title} {head}")
        out.append(entry)
    return out
