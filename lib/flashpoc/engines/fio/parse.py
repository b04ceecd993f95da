"""Parse fio ``--output-format=json`` / ``json+`` output into tidy rows.

Pure functions: text in, rows (dicts) out. Nothing here reads files, prints or exits;
every problem with the input raises :class:`flashpoc.core.errors.ParseError`.

Units in the rows follow the key names: ``iops``, ``bw_mibps`` (MiB/s), ``io_bytes``,
``*_ms`` (milliseconds), ``*_us`` (microseconds), ``*_pct`` (percent), ``clat_ns``.

fio versions differ in units, and the parser normalizes them:

* fio 3.x: ``clat_ns`` / ``lat_ns`` (and their percentiles) are in nanoseconds,
  ``io_bytes`` is in bytes (next to ``io_kbytes``).
* fio 2.x (e.g. fio-2.1.4): ``clat`` / ``lat`` and their percentiles are in microseconds,
  and ``io_bytes`` is in KiB (there is no ``io_kbytes``): 361984 at ``bw`` 129836 KiB/s over
  ``runtime`` 2788 ms is KiB, not bytes. There is no ``total_ios``.
* ``bw`` is KiB/s in every version; ``runtime`` is milliseconds.

Client/server runs (``fio --client=...``) report ``client_stats[]`` instead of ``jobs[]``; each
entry carries a ``hostname``, and some versions add an ``All clients`` aggregate entry. fio 3.33
was seen giving every entry the last client's hostname, so hostnames are reported as printed.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flashpoc.core.damage import DAMAGED, Loss, carry, note_loss
from flashpoc.core.errors import ParseError
from flashpoc.core.records import SHARE_LIMITS_US

from flashpoc.engines.fio import crosscheck

DIRECTIONS: tuple[str, ...] = ("read", "write", "trim")
"""fio's I/O directions, in the order rows are emitted."""

AGGREGATE_JOBNAME = "All clients"
"""Job name of the aggregate entry fio adds to ``client_stats`` in client/server mode."""

PERCENTILES: dict[str, float] = {
    "p50": 50.0,
    "p90": 90.0,
    "p95": 95.0,
    "p99": 99.0,
    "p99_9": 99.9,
    "p99_99": 99.99,
}
"""Completion-latency percentiles kept in each row, as ``clat_<name>_us``."""

SUMMARY_PERCENTILES: tuple[str, ...] = ("p50", "p90", "p99", "p99_9")
"""Percentiles reported by :func:`summarize_fio_point`, as ``clat_<name>_ms``."""

ROW_KEYS: tuple[str, ...] = (
    "fio_version",
    "entry_index",
    "jobname",
    "groupid",
    "hostname",
    "is_aggregate",
    "direction",
    "iops",
    "bw_mibps",
    "io_bytes",
    "runtime_ms",
    "total_ios",
    "lat_mean_us",
    "lat_max_us",
    "clat_mean_us",
    "clat_stddev_us",
    *(f"clat_{name}_us" for name in PERCENTILES),
    "usr_cpu_pct",
    "sys_cpu_pct",
    "error",
    "rw",
    "bs",
    "iodepth",
    "numjobs",
    "ioengine",
    "steadystate_attained",
    "steadystate_criterion",
    DAMAGED,
)
"""Keys of every row returned by :func:`parse_fio_output`, in order (``damaged``: what a damaged
output cost the row, see :mod:`flashpoc.core.damage`; None when nothing)."""

HISTOGRAM_KEYS: tuple[str, ...] = (
    "entry_index",
    "jobname",
    "hostname",
    "direction",
    "clat_ns",
    "count",
)
"""Keys of every row returned by :func:`parse_fio_histogram`, in order."""

# The JSON object starts at the first line beginning with "{"; progress lines end in "\r".
_JSON_START = re.compile(r"(?:\A|[\r\n])\{")
# Strings (possibly unterminated at the end of the text) and brackets, to tell truncation
# from other syntax errors.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*("?)|[{}\[\]]', re.DOTALL)


def parse_fio_output(text: str, source: str = "fio output") -> list[dict[str, Any]]:
    """Parse fio JSON or JSON+ output into one row per job entry and direction with I/O.

    Args:
        text: fio's output. Clean JSON (``--output=FILE``) or JSON preceded by text lines
            (progress lines, ``hostname=...`` or ``<host> job: (g=0) ...`` lines printed when
            the JSON goes to stdout); the JSON starts at the first line beginning with ``{``
            and any text after it is ignored.
        source: the file's name, as a damaged row's ``damaged`` text names it.

    Returns:
        Rows with the keys in :data:`ROW_KEYS` (``None`` where fio did not report a value),
        one per entry of ``jobs`` (or ``client_stats``) and per direction (read, write, trim)
        whose ``io_bytes`` or ``iops`` is above zero, in entry order then direction order.
        Latencies are microseconds whatever the fio version; ``is_aggregate`` marks the
        ``All clients`` entry of client/server output. What fio prints twice is checked
        (:mod:`.crosscheck`): a latency figure that disagrees, or one fio always prints that is
        missing or unreadable (a damaged key), is None and the row's ``damaged`` says so.

    Raises:
        ParseError: The text holds no JSON object, the JSON is truncated or invalid, it has
            neither ``jobs`` nor ``client_stats``, a value has the wrong type or a sign, IOPS,
            bandwidth, bytes and runtime disagree, or no entry did any I/O.
    """
    return _output_rows(_load_fio_json(text), source, {})


def parse_fio_point(text: str, source: str = "fio output") -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """:func:`parse_fio_output`'s rows and :func:`parse_fio_histogram`'s bins of one output, its JSON
    read and each direction's bins checked once (they were twice: a tenth of a second a point of 16
    hosts). Raises what both raise."""
    document, checked = _load_fio_json(text), {}
    return _output_rows(document, source, checked), _histogram_rows(document, checked)


def _output_rows(document: Mapping[str, Any], source: str, checked: dict) -> list[dict[str, Any]]:
    """:func:`parse_fio_output` of the loaded ``document``; ``checked``: :func:`_bins_of`'s memo."""
    fio_version = _fio_version(document)
    section, entries = _entries(document)
    global_options = _options(document.get("global options"), "'global options'")
    document_problems = [] if fio_version is not None else [("the output has no 'fio version'", ("fio_version",))]
    rows: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        where = f"{section}[{index}]"
        entry_facts, problems = _entry_facts(entry, where, section, global_options)
        for direction in DIRECTIONS:
            stats = entry.get(direction)
            if stats is None:
                continue
            direction_where = f"{where}.{direction}"
            if not isinstance(stats, Mapping):
                raise ParseError(f"fio JSON {direction_where} is not an object: {stats!r:.80}")
            metrics, found = _direction_metrics(stats, direction_where, _is_fio2(fio_version, stats), checked)
            if metrics is None:
                continue
            row = {"fio_version": fio_version, "entry_index": index, **entry_facts, "direction": direction,
                   **metrics, DAMAGED: None}
            for what, lost in [*document_problems, *problems, *found]:
                note_loss(row, Loss(source, what, lost))
            rows.append({key: row[key] for key in ROW_KEYS})
    if not rows:
        raise ParseError(
            f"fio output has no I/O: none of the {len(entries)} {section} entries has "
            "read, write or trim with io_bytes > 0 or iops > 0"
        )
    return rows


def written_ms(text: str) -> tuple[int | None, str | None]:
    """When fio wrote ``text`` (``timestamp_ms``, by the host's clock, its jobs ended), and what is wrong
    with it: (None, None) where fio prints neither it nor ``timestamp``, (None, why) where it is no whole
    number or not ``timestamp`` (the same moment in whole seconds, printed beside it) in ms."""
    document = _load_fio_json(text)
    stamp_ms, stamp_s = document.get("timestamp_ms"), document.get("timestamp")
    if stamp_ms is None and stamp_s is None:
        return None, None
    if type(stamp_ms) is not int or type(stamp_s) is not int or stamp_ms // 1000 != stamp_s:
        return None, f"its 'timestamp_ms' ({str(stamp_ms)[:20]}) is not its 'timestamp' ({str(stamp_s)[:20]}) in ms"
    return stamp_ms, None


def parse_fio_histogram(text: str) -> list[dict[str, Any]]:
    """Parse the completion-latency histogram of fio JSON+ output.

    Args:
        text: fio output made with ``--output-format=json+`` (preceding text lines allowed, as
            in :func:`parse_fio_output`).

    Returns:
        Rows with the keys in :data:`HISTOGRAM_KEYS`, one per bin of ``clat_ns.bins``:
        ``clat_ns`` is the bin's latency in nanoseconds and ``count`` the number of I/Os in
        it. Sorted by entry index, direction (read, write, trim) and ``clat_ns``. Empty when
        the output has no bins (plain JSON output). A direction's bins that disagree with fio's
        other figures (their count is not ``total_ios``, or they do not give a printed percentile:
        damaged) or are unreadable are left out; :func:`parse_fio_output`'s row says so.

    Raises:
        ParseError: The text is not fio JSON (see :func:`parse_fio_output`), or the bins are fio
            2.x's index-keyed ``clat.bins``, which this parser does not convert.
    """
    return _histogram_rows(_load_fio_json(text), {})


def _histogram_rows(document: Mapping[str, Any], checked: dict) -> list[dict[str, Any]]:
    """:func:`parse_fio_histogram` of the loaded ``document``; ``checked``: :func:`_bins_of`'s memo."""
    section, entries = _entries(document)
    rows: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        where = f"{section}[{index}]"
        jobname = _optional_str(entry.get("jobname"), f"{where}.jobname")
        hostname = (
            _optional_str(entry.get("hostname"), f"{where}.hostname")
            if section == "client_stats"
            else None
        )
        for order, direction in enumerate(DIRECTIONS):
            stats = entry.get(direction)
            _refuse_fio2_bins(stats, f"{where}.{direction}")
            bins, problem = _bins_of(checked, stats, f"{where}.{direction}")
            for clat_ns, count in [] if problem else bins:
                rows.append(
                    {
                        "entry_index": index,
                        "jobname": jobname,
                        "hostname": hostname,
                        "direction": direction,
                        "clat_ns": clat_ns,
                        "count": count,
                        "_order": order,
                    }
                )
    rows.sort(key=lambda row: (row["entry_index"], row["_order"], row["clat_ns"]))
    return [{key: row[key] for key in HISTOGRAM_KEYS} for row in rows]


def _refuse_fio2_bins(stats: Any, where: str) -> None:
    """Refuse fio 2.x's index-keyed ``clat.bins``, which this parser does not convert."""
    legacy = stats.get("clat") if isinstance(stats, Mapping) else None
    if isinstance(legacy, Mapping) and "bins" in legacy:
        raise ParseError(
            f"fio JSON {where}.clat.bins is fio 2.x's index-keyed "
            "histogram; only fio 3.x clat_ns.bins (keys in ns) is supported"
        )


def _direction_bins(stats: Any, where: str) -> list[tuple[int, int]]:
    """``(clat_ns, count)`` of each bin of one direction's ``clat_ns.bins`` (``stats`` is the
    direction's object at ``where``); none when it has no bins.

    Raises:
        ParseError: a bin is not ``"<ns>": <count>``.
    """
    if not isinstance(stats, Mapping):
        return []
    clat = stats.get("clat_ns")
    if not isinstance(clat, Mapping) or clat.get("bins") is None:
        return []
    bins = clat["bins"]
    bins_where = f"{where}.clat_ns.bins"
    if not isinstance(bins, Mapping):
        raise ParseError(f"fio JSON {bins_where} is not an object: {bins!r:.80}")
    out = []
    for key, count in bins.items():
        if not key.isdigit():
            raise ParseError(f"fio JSON {bins_where} has key {key!r}; expected a latency in ns")
        count = _number(count, f"{bins_where}[{key!r}]")
        if count < 0 or count != int(count):
            raise ParseError(
                f"fio JSON {bins_where}[{key!r}] is {count!r}; expected a count >= 0"
            )
        out.append((int(key), int(count)))
    return out


def summarize_fio_point(
    rows: Sequence[Mapping[str, Any]],
    histogram: Iterable[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Aggregate the rows of one fio run (one run point) into one record.

    If any row is an aggregate (``All clients``), only aggregate rows are counted, so clients
    are not counted twice; otherwise every row is.

    Percentiles: with a JSON+ ``histogram`` the bins of the counted entries are merged per
    direction (all directions for the unprefixed keys) and the percentile is, as fio computes
    it, the first bin value where the cumulative count reaches the percentile of the total:
    exact. Without bins, one row gives its own value; several rows give the IOPS-weighted
    mean of their percentiles (an estimate: ``percentiles_exact`` is then False). If the
    aggregate rows carry no percentiles (fio prints none for ``All clients``), the estimate
    uses the per-client rows.

    Args:
        rows: Rows from :func:`parse_fio_output` for one run.
        histogram: Rows from :func:`parse_fio_histogram` for the same run, or None.

    Returns:
        ``iops``, ``read_iops``, ``write_iops`` (IOPS; unprefixed sums every direction),
        ``bw_mibps``, ``read_bw_mibps``, ``write_bw_mibps``, ``lat_mean_ms``,
        ``read_lat_mean_ms``, ``write_lat_mean_ms`` (IOPS-weighted mean of the rows' total
        latency), ``clat_p50_ms``, ``clat_p90_ms``, ``clat_p99_ms``, ``clat_p99_9_ms``, the
        shares ``clat_under_{512us,1ms,2ms,4ms}_pct`` (JSON+ bins only, else None; see
        :func:`latency_distribution`) and their ``read_`` / ``write_`` variants,
        ``percentiles_exact``, ``usr_cpu_pct``, ``sys_cpu_pct`` (mean
        over entries, percent of one CPU as fio reports), ``steadystate_attained`` (True if
        every entry that reports it attained it, False if any did not, None if none reports
        it), ``runtime_ms`` (max), ``fio_version`` and ``n_entries``. A direction without I/O
        gives 0 IOPS and bandwidth and None latencies.

    Raises:
        ParseError: ``rows`` is empty.
    """
    if not rows:
        raise ParseError("no fio rows to summarize: parse_fio_output returned nothing")
    aggregate_indices = {row["entry_index"] for row in rows if row["is_aggregate"]}
    if aggregate_indices:
        counted = [row for row in rows if row["is_aggregate"]]
        fallback = [row for row in rows if not row["is_aggregate"]]
    else:
        counted, fallback = list(rows), []
    bins, binned = _select_histogram(histogram, counted, fallback)
    json_plus = bool(bins) or any(BINS_LEFT_OUT in (row[DAMAGED] or "") for row in rows)

    summary: dict[str, Any] = {}
    exact = True
    for prefix, directions in (("", DIRECTIONS), ("read_", ("read",)), ("write_", ("write",))):
        whole = not json_plus or _bins_whole(bins, [row for row in binned if row["direction"] in directions])
        exact = _summarize_directions(summary, counted, fallback, bins if whole else None, prefix,
                                      directions) and exact
    summary["percentiles_exact"] = exact
    summary.update(_summarize_entries(counted))
    return carry(summary, *(row[DAMAGED] for row in rows))


def _summarize_entries(counted: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What :func:`summarize_fio_point` gives per fio entry (job or client) of the counted rows:
    mean CPU, steady state attained, runtime, fio's version and the number of entries (a figure
    one entry lost is lost: a mean of the others would be another number)."""
    summary: dict[str, Any] = {}
    entries = {row["entry_index"]: row for row in counted}
    summary["usr_cpu_pct"] = _mean(row["usr_cpu_pct"] for row in entries.values())
    summary["sys_cpu_pct"] = _mean(row["sys_cpu_pct"] for row in entries.values())
    steady = [row for row in entries.values()
              if row["steadystate_attained"] is not None or row["steadystate_criterion"] is not None]
    attained = [row["steadystate_attained"] for row in steady]
    summary["steadystate_attained"] = all(attained) if attained and None not in attained else None
    runtimes = [row["runtime_ms"] for row in counted if row["runtime_ms"] is not None]
    summary["runtime_ms"] = max(runtimes) if runtimes else None
    summary["fio_version"] = counted[0]["fio_version"]
    summary["n_entries"] = len(entries)
    return summary


def _summarize_directions(summary: dict[str, Any], counted: Sequence[Mapping[str, Any]],
                          fallback: Sequence[Mapping[str, Any]], bins: Sequence[Mapping[str, Any]] | None,
                          prefix: str, directions: Sequence[str]) -> bool:
    """Add the ``<prefix>`` IOPS, bandwidth, mean latency, percentiles and shares of the counted
    rows in ``directions`` to ``summary`` (see :func:`summarize_fio_point`); whether the
    percentiles are exact. ``bins`` None: a JSON+ output some of whose bins were left out
    (damaged): no shares, and only a percentile fio printed for the one row counted."""
    exact = True
    part = [row for row in counted if row["direction"] in directions]
    summary[f"{prefix}iops"] = float(sum(row["iops"] for row in part))
    summary[f"{prefix}bw_mibps"] = float(sum(row["bw_mibps"] for row in part))
    lat_mean_us = _weighted_mean(part, "lat_mean_us")
    summary[f"{prefix}lat_mean_ms"] = None if lat_mean_us is None else lat_mean_us / 1000
    from_bins = _distribution(bins, directions, prefix) if part and bins is not None else {}
    for name in SUMMARY_PERCENTILES:
        key = f"{prefix}clat_{name}_ms"
        if not part or key in from_bins:
            summary[key] = from_bins.get(key)
        else:
            value_us, value_exact = _rows_percentile(
                part, fallback, directions, f"clat_{name}_us"
            )
            if bins is None and not value_exact:
                value_us = None  # an estimate where fio's exact bins were lost would be another number
            summary[key] = None if value_us is None else _ms(value_us, value_exact)
            exact = exact and value_exact
    for limit in SHARE_LIMITS_US:
        summary[f"{prefix}clat_under_{limit}_pct"] = from_bins.get(f"{prefix}clat_under_{limit}_pct")
    return exact


def _ms(value_us: float, printed: bool) -> float:
    """A latency in ms from microseconds; one fio printed (a whole number of ns) as ns / 1e6, the
    same number as the JSON+ bins give for it."""
    return round(value_us * 1000) / 1e6 if printed else value_us / 1000


def histogram_whole(rows: Sequence[Mapping[str, Any]], histogram: Iterable[Mapping[str, Any]]) -> bool:
    """Whether ``histogram`` (:func:`parse_fio_histogram`) holds the JSON+ bins of every row of
    ``rows`` (:func:`parse_fio_output`) with I/O (the clients' when an ``All clients`` entry has
    none), none left out as damaged; True for an output without bins (plain JSON)."""
    counted = [row for row in rows if row["is_aggregate"]] or list(rows)
    fallback = [row for row in rows if not row["is_aggregate"]] if len(counted) < len(rows) else []
    bins, binned = _select_histogram(histogram, counted, fallback)
    if not bins and not any(BINS_LEFT_OUT in (row[DAMAGED] or "") for row in rows):
        return True
    return _bins_whole(bins, binned)


def _bins_whole(bins: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]) -> bool:
    """Whether every row of ``rows`` (the rows the bins come from) has its JSON+ bins among
    ``bins``, none of them left out as damaged (:data:`BINS_LEFT_OUT`)."""
    have = {(row["entry_index"], row["direction"]) for row in bins}
    return all((row["entry_index"], row["direction"]) in have and BINS_LEFT_OUT not in (row[DAMAGED] or "")
               for row in rows)


def latency_distribution(histogram: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Completion-latency percentiles and shares of JSON+ bins (of one or several hosts).

    The bins of every row are merged per direction. A percentile is, as fio computes it, the
    first bin value whose cumulative count reaches it. A bin counts under a limit when its
    value is below the limit; fio's bin value is within 1/64 (1.6 %) of the latencies it holds,
    so a share is exact except for I/Os that close to the limit.

    Args:
        histogram: rows from :func:`parse_fio_histogram`.

    Returns:
        For the prefixes ``""`` (all directions), ``read_`` and ``write_``:
        ``<prefix>clat_<p>_ms`` (ms) for :data:`SUMMARY_PERCENTILES` and
        ``<prefix>clat_under_<limit>_pct`` (% of I/Os) for :data:`SHARE_LIMITS_US`. A prefix
        whose directions have no bins is left out.
    """
    rows = list(histogram)
    out: dict[str, Any] = {}
    for prefix, directions in (("", DIRECTIONS), ("read_", ("read",)), ("write_", ("write",))):
        out.update(_distribution(rows, directions, prefix))
    return out


def histogram_table(histogram: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Merge JSON+ bins (of one or several hosts) into one histogram per direction.

    Returns:
        Rows ``{"direction", "clat_us", "count"}`` sorted by direction then ``clat_us`` (fio's
        bin value in microseconds), one per non-empty bin.
    """
    merged: Counter = Counter()
    for row in histogram:
        merged[(row["direction"], row["clat_ns"])] += row["count"]
    order = {direction: index for index, direction in enumerate(DIRECTIONS)}
    return [{"direction": direction, "clat_us": clat_ns / 1000.0, "count": count}
            for (direction, clat_ns), count in sorted(merged.items(), key=lambda item: (order[item[0][0]], item[0][1]))
            if count]


# --- decoding -------------------------------------------------------------------------------


def split_client_output(text: str, hosts: Sequence[str]) -> dict[str, str]:
    """Split the output of a ``fio --client`` run into one fio JSON document per host.

    Each host's job sections are named ``<host>.<workload>`` (job names say which host ran
    them: fio 3.33 was seen printing the last client's hostname on every entry), so the
    ``client_stats`` entries go to the host their job name starts with; the ``All clients``
    aggregate is left out. A host's document is ``{"fio version", "global options", "jobs"}``,
    which :func:`parse_fio_output` and :func:`parse_fio_histogram` read as a one-host run.

    Raises:
        ParseError: the output is not fio JSON, an entry's job name names no host, or a host
            has no entry (its server refused or lost the job; fio's own words, which it puts
            before the JSON, are quoted).
    """
    document = _load_fio_json(text)
    section, entries = _entries(document)
    if section != "client_stats":
        raise ParseError("fio --client output has no 'client_stats'")
    per_host: dict[str, list[Mapping[str, Any]]] = {host: [] for host in hosts}
    for index, entry in enumerate(entries):
        jobname = _optional_str(entry.get("jobname"), f"client_stats[{index}].jobname") or ""
        if jobname == AGGREGATE_JOBNAME:
            continue
        host = jobname.split(".", 1)[0]
        if host not in per_host:
            raise ParseError(f"fio --client output: job {jobname!r} is not named after one of the hosts {list(hosts)}")
        per_host[host].append(entry)
    missing = [host for host, found in per_host.items() if not found]
    if missing:
        said = text_before_json(text)
        raise ParseError(f"fio --client output has no job of {', '.join(missing)}"
                         + (": " + " / ".join(said) if said else ""))
    head = {key: document[key] for key in ("fio version", "global options") if key in document}
    return {host: json.dumps({**head, "jobs": found}) for host, found in per_host.items()}


def text_before_json(text: str, limit: int = 6) -> list[str]:
    """The first ``limit`` non-blank lines fio printed before its JSON (or in place of it):
    where a client/server run puts a server's own complaint."""
    match = _JSON_START.search(text)
    head = text if match is None else text[: match.start()]
    return [line.strip() for line in head.splitlines() if line.strip()][:limit]


def _load_fio_json(text: str) -> dict[str, Any]:
    """Find and decode the fio JSON object in ``text``; see :func:`parse_fio_output`."""
    if not isinstance(text, str):
        raise ParseError(f"fio output must be text (str), got {type(text).__name__}")
    if not text.strip():
        raise ParseError("fio output is empty: expected a JSON object")
    match = _JSON_START.search(text)
    if match is None:
        first_line = (text.lstrip().splitlines() or [""])[0]
        raise ParseError(
            f"no JSON object found in fio output (first line: {first_line[:80]!r}): "
            "expected a line starting with '{'; was fio run with --output-format=json?"
        )
    start = match.end() - 1
    try:
        document, _end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        if _is_unclosed(text, start):
            raise ParseError(
                f"fio JSON is truncated at char {len(text)}: the object starting at char "
                f"{start} never closes (fio killed, or output cut short?)"
            ) from None
        raise ParseError(
            f"fio JSON is invalid at line {exc.lineno} column {exc.colno} (char {exc.pos}): "
            f"{exc.msg}"
        ) from None
    except RecursionError:
        raise ParseError(f"fio JSON starting at char {start} is nested too deeply") from None
    if not isinstance(document, dict):  # pragma: no cover - raw_decode of "{" gives a dict
        raise ParseError(f"fio JSON at char {start} is not an object")
    return document


def _is_unclosed(text: str, start: int) -> bool:
    """Return True if the JSON value starting at ``start`` runs off the end of ``text``."""
    depth = 0
    for match in _JSON_TOKEN.finditer(text, start):
        token = match.group(0)
        if token[0] == '"':
            if not match.group(1):
                return True  # a string still open at the end of the text
        elif token in "{[":
            depth += 1
        else:
            depth -= 1
            if depth <= 0:
                return False
    return depth > 0


def _fio_version(document: Mapping[str, Any]) -> str | None:
    """Return the ``fio version`` string (e.g. ``"fio-3.33"``) or None."""
    return _optional_str(document.get("fio version"), "'fio version'")


def _entries(document: Mapping[str, Any]) -> tuple[str, list[Mapping[str, Any]]]:
    """Return (section name, entries) from ``client_stats`` if present, else ``jobs``.

    Raises:
        ParseError: the section is not a list of objects, or (client/server) an entry has no job
            name or is not what its name says: the ``All clients`` entry must count the clients'
            I/Os, and no other entry may (a damaged name would count the clients twice).
    """
    for section in ("client_stats", "jobs"):
        if section in document:
            entries = document[section]
            if not isinstance(entries, list):
                raise ParseError(f"fio JSON '{section}' is not a list: {entries!r:.80}")
            for index, entry in enumerate(entries):
                if not isinstance(entry, Mapping):
                    raise ParseError(
                        f"fio JSON {section}[{index}] is not an object: {entry!r:.80}"
                    )
            if section == "client_stats":
                _check_clients(entries)
            return section, entries
    raise ParseError(
        "fio JSON has neither 'jobs' nor 'client_stats' "
        f"(top-level keys: {sorted(document)[:10]})"
    )


def _check_clients(entries: Sequence[Mapping[str, Any]]) -> None:
    """The checks of :func:`_entries` on ``client_stats``."""
    names = [entry.get("jobname") for entry in entries]
    for index, name in enumerate(names):
        if not isinstance(name, str):
            raise ParseError(f"fio JSON client_stats[{index}] has no jobname (damaged?): the All clients "
                             "entry cannot be told from the clients'")
    aggregates = [index for index, name in enumerate(names) if name == AGGREGATE_JOBNAME]
    for index in aggregates:
        clients = [entry for i, entry in enumerate(entries) if i not in aggregates]
        problem = crosscheck.aggregate_problem(entries[index], clients, f"client_stats[{index}]", DIRECTIONS)
        if problem:
            raise ParseError(f"fio JSON {problem}")
    if aggregates or len(entries) < 3:
        return
    for index, entry in enumerate(entries):  # an All clients entry whose name was damaged
        others = [e for i, e in enumerate(entries) if i != index]
        if crosscheck.aggregate_problem(entry, others, "", DIRECTIONS) is None and any(
                isinstance(entry.get(d), Mapping) and entry[d].get("total_ios") for d in DIRECTIONS):
            raise ParseError(f"fio JSON client_stats[{index}] ({names[index]!r}) counts the other entries' I/Os: "
                             f"fio's {AGGREGATE_JOBNAME!r} entry with a damaged name?")


# --- one entry ------------------------------------------------------------------------------


ENTRY_FIGURES = {"usr_cpu": "usr_cpu_pct", "sys_cpu": "sys_cpu_pct", "error": "error", "groupid": "groupid"}
"""The figures fio prints in every job entry (of every version): key -> row column."""


def _entry_facts(
    entry: Mapping[str, Any],
    where: str,
    section: str,
    global_options: Mapping[str, str],
) -> tuple[dict[str, Any], list[crosscheck.Problem]]:
    """Return the per-entry row values (names, CPU, error, options and steady state) and what is
    missing of what fio always prints there (a damaged key) or disagrees (the steady state's
    figures, :func:`.crosscheck.steadystate_problem`)."""
    problems: list[crosscheck.Problem] = []
    for key, column in ENTRY_FIGURES.items():
        if key not in entry:
            problems.append((f"{where} has no '{key}'", (column,)))
    printed = [("jobname", "jobname")] + ([("hostname", "hostname")] if section == "client_stats" else [])
    problems += [(f"{where} has no '{key}'", (column,)) for key, column in printed if key not in entry]
    jobname = _optional_str(entry.get("jobname"), f"{where}.jobname")
    options = {**global_options, **_options(entry.get("job options"), f"{where}.'job options'")}
    steadystate = entry.get("steadystate")
    attained = criterion = None
    if steadystate is not None:
        if not isinstance(steadystate, Mapping):
            raise ParseError(f"fio JSON {where}.steadystate is not an object")
        if steadystate.get("attained") is not None:
            attained = bool(_number(steadystate["attained"], f"{where}.steadystate.attained"))
        criterion = _optional_str(steadystate.get("criterion"), f"{where}.steadystate.criterion")
        missing = [key for key in ("attained", "criterion") if key not in steadystate]
        problems += [(f"{where}.steadystate has no '{key}'", (f"steadystate_{key}",)) for key in missing]
        found = None if missing else crosscheck.steadystate_problem(steadystate, f"{where}.steadystate")
        problems += [(found, crosscheck.STEADY_COLUMNS)] if found else []
    return {
        "jobname": jobname,
        "groupid": _optional_int(entry.get("groupid"), f"{where}.groupid"),
        "hostname": (
            _optional_str(entry.get("hostname"), f"{where}.hostname")
            if section == "client_stats"
            else None
        ),
        "is_aggregate": section == "client_stats" and jobname == AGGREGATE_JOBNAME,
        "usr_cpu_pct": _optional_float(entry.get("usr_cpu"), f"{where}.usr_cpu"),
        "sys_cpu_pct": _optional_float(entry.get("sys_cpu"), f"{where}.sys_cpu"),
        "error": _optional_int(entry.get("error"), f"{where}.error"),
        "rw": options.get("rw"),
        "bs": options.get("bs"),
        "iodepth": _option_int(options, "iodepth", where),
        "numjobs": _option_int(options, "numjobs", where),
        "ioengine": options.get("ioengine"),
        "steadystate_attained": attained,
        "steadystate_criterion": criterion,
    }, problems


def _is_fio2(fio_version: str | None, stats: Mapping[str, Any]) -> bool:
    """Whether a direction is fio 2.x's (io_bytes in KiB, latencies in us): by its ``fio version``,
    else by the keys only fio 3.x prints (any one of them: a damaged key hides one)."""
    if fio_version is not None and re.match(r"fio-\d", fio_version):
        return fio_version.startswith("fio-2.")
    return not any(key in stats for key in ("io_kbytes", "total_ios", "clat_ns", "lat_ns", "slat_ns"))


def _direction_metrics(stats: Mapping[str, Any], where: str, fio2: bool,
                       checked: dict) -> tuple[dict[str, Any] | None, list[crosscheck.Problem]]:
    """One direction's metrics (None when it did no I/O) and what is wrong with them (see
    :mod:`.crosscheck`); ``checked``: :func:`_bins_of`'s memo.

    Raises:
        ParseError: a rate figure is missing, not a number, signed, or disagrees with the others.
    """
    for key in ("io_bytes", "iops", "bw", "runtime"):
        if key not in stats:
            raise ParseError(f"fio JSON {where} has no '{key}'")
    io_bytes = _count(stats["io_bytes"], f"{where}.io_bytes")
    iops = _unsigned(stats["iops"], f"{where}.iops")
    if io_bytes <= 0 and iops <= 0:
        return None, []
    runtime = _count(stats["runtime"], f"{where}.runtime")
    bw = _count(stats["bw"], f"{where}.bw")
    io_bytes *= crosscheck.io_unit(where, io_bytes, bw, runtime, fio2)
    total_ios = None if stats.get("total_ios") is None else _count(stats["total_ios"], f"{where}.total_ios")
    problems: list[crosscheck.Problem] = []
    if not fio2:
        crosscheck.check_rates(stats, where, io_bytes, iops, runtime, total_ios)
        if total_ios is None:
            problems.append((f"{where} has no 'total_ios' (iops not cross-checked)", ("total_ios",)))
    blocks, names, found = _latency_blocks(stats, where, fio2)
    problems += found + crosscheck.latency_problems(blocks, where, names)
    per_us = 1 if fio2 else 1000
    lat, clat = blocks.get("lat", {}), blocks.get("clat", {})
    def in_us(figures: Mapping[str, Any], key: str) -> float | None:
        return None if figures.get(key) is None else figures[key] / per_us

    metrics: dict[str, Any] = {
        "iops": float(iops), "bw_mibps": bw / 1024, "io_bytes": io_bytes, "runtime_ms": runtime,
        "total_ios": total_ios, "lat_mean_us": in_us(lat, "mean"), "lat_max_us": in_us(lat, "max"),
        "clat_mean_us": in_us(clat, "mean"), "clat_stddev_us": in_us(clat, "stddev"),
    }
    percentiles, found = _percentiles(clat.get("percentile"), f"{where}.{names['clat']}.percentile")
    problems += found
    for name, percent in PERCENTILES.items():
        metrics[f"clat_{name}_us"] = None if percentiles.get(percent) is None else percentiles[percent] / per_us
    if "bins" in clat and not fio2:
        bins_problem = _bins_of(checked, stats, where)[1]
        if bins_problem is not None:
            problems.append((f"{where}.{names['clat']}.bins {bins_problem}: {BINS_LEFT_OUT}", ()))
    return metrics, problems


LATENCY_FIGURES = ("min", "max", "mean", "stddev")
"""The figures fio prints in every latency block (``lat_ns``, ``clat_ns``, ``slat_ns``)."""


def _latency_blocks(stats: Mapping[str, Any], where: str, fio2: bool
                    ) -> tuple[dict[str, dict[str, Any]], dict[str, str], list[crosscheck.Problem]]:
    """A direction's latency blocks (``lat``, ``clat``, ``slat``: their numbers as printed, the
    ``percentile`` and ``bins`` objects of clat kept as they are), each block's key as fio names
    it, and what is missing of what fio always prints (a damaged key)."""
    names = {block: block if fio2 else f"{block}_ns" for block in ("lat", "clat", "slat")}
    blocks: dict[str, dict[str, Any]] = {}
    problems: list[crosscheck.Problem] = []
    for block, key in names.items():
        columns = crosscheck.LATENCY_COLUMNS.get(block, {})
        lost = (*columns.values(), *(("lat_max_us",) if block == "lat" else ()),
                *((*(f"clat_{n}_us" for n in PERCENTILES),) if block == "clat" else ()))
        if key not in stats:
            problems.append((f"{where} has no '{key}'", lost))
            continue
        raw = _optional_mapping(stats[key], f"{where}.{key}")
        figures: dict[str, Any] = {k: v for k, v in raw.items() if k in ("percentile", "bins")}
        for name, value in raw.items():
            if name in (*LATENCY_FIGURES, "N"):
                figures[name] = _unsigned(value, f"{where}.{key}.{name}")
        for name in LATENCY_FIGURES:
            if name not in figures:
                column = {**columns, **({"max": "lat_max_us"} if block == "lat" else {})}.get(name)
                problems.append((f"{where}.{key} has no '{name}'", (column,) if column else ()))
        blocks[block] = figures
    return blocks, names, problems


def _percentiles(block: Any, where: str) -> tuple[dict[float, float], list[crosscheck.Problem]]:
    """fio's ``percentile`` object as ``{percent: value}`` (keys like ``"99.900000"``; fio 2.x's
    ``"0.00"`` padding left out), every printed one, and what is wrong with it: a key that is no
    percent, one of :data:`PERCENTILES` missing where fio printed others, values that do not grow
    with the percent. None of them when fio printed none, or only zeros (it computed none)."""
    if block is None:
        return {}, []
    if not isinstance(block, Mapping):
        raise ParseError(f"fio JSON {where} is not an object: {block!r:.80}")
    out: dict[float, float] = {}
    problems: list[crosscheck.Problem] = []
    for key, value in block.items():
        if not crosscheck.PERCENT_KEY.match(key):
            problems.append((f"{where} has key {key!r}, not a percent", ()))
            continue
        value = _unsigned(value, f"{where}[{key!r}]")
        if float(key) > 0:
            out[float(key)] = value
    if not any(out.values()):
        return {}, problems
    problems += crosscheck.percentile_problems(out, PERCENTILES, where)
    kept: dict[float, float] = {}
    for name, wanted in PERCENTILES.items():
        found = [value for percent, value in out.items() if abs(percent - wanted) < 1e-6]
        if found:
            kept[wanted] = found[0]
        else:
            problems.append((f"{where} has no {wanted:g}", (f"clat_{name}_us",)))
    return {**out, **kept}, problems


BINS_LEFT_OUT = "the histogram is left out"
"""What a direction's ``damaged`` text says when its JSON+ bins disagree with fio's other figures."""


def _bins_of(checked: dict, stats: Any, where: str) -> tuple[list[tuple[int, int]], str | None]:
    """:func:`_checked_bins` of the direction at ``where``, once per parse (``checked``: by ``where``)."""
    if where not in checked:
        checked[where] = _checked_bins(stats, where)
    return checked[where]


def _checked_bins(stats: Any, where: str) -> tuple[list[tuple[int, int]], str | None]:
    """``(clat_ns, count)`` of each bin of one direction's ``clat_ns.bins`` (none when it has
    none) and what is wrong with them (:func:`.crosscheck.bins_problem`; an unreadable bin)."""
    try:
        bins = _direction_bins(stats, where)
    except ParseError as error:
        return [], str(error).removeprefix(f"fio JSON {where}.clat_ns.bins ")
    if not bins:
        return [], None
    total_ios = stats.get("total_ios")
    printed = _optional_mapping(stats["clat_ns"].get("percentile"), f"{where}.clat_ns.percentile")
    values = {float(k): v for k, v in printed.items() if crosscheck.PERCENT_KEY.match(k) and float(k) > 0
              and isinstance(v, (int, float)) and not isinstance(v, bool)}
    counts: dict[int, int] = {}
    for clat_ns, count in bins:
        counts[clat_ns] = counts.get(clat_ns, 0) + count
    total = total_ios if isinstance(total_ios, int) and not isinstance(total_ios, bool) else None
    return bins, crosscheck.bins_problem(counts, total, values)


def _options(block: Any, where: str) -> dict[str, str]:
    """Return a fio options object (``job options``/``global options``) as a dict of str."""
    if block is None:
        return {}
    if not isinstance(block, Mapping):
        raise ParseError(f"fio JSON {where} is not an object: {block!r:.80}")
    return {str(key): str(value) for key, value in block.items()}


def _option_int(options: Mapping[str, str], key: str, where: str) -> int | None:
    """Return an integer job option (``iodepth``, ``numjobs``) or None when absent."""
    if key not in options:
        return None
    try:
        return int(options[key])
    except ValueError:
        raise ParseError(
            f"fio JSON {where} option {key}={options[key]!r} is not an integer"
        ) from None


# --- summary helpers ------------------------------------------------------------------------


def _select_histogram(
    histogram: Iterable[Mapping[str, Any]] | None,
    counted: Sequence[Mapping[str, Any]],
    fallback: Sequence[Mapping[str, Any]],
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The histogram rows of the counted entries, and the rows they are of.

    If the aggregate entries have no bins, the per-client bins (``fallback``'s) are used (their
    merge is the aggregate's histogram).
    """
    if histogram is None:
        return [], []
    histogram = list(histogram)
    counted_indices = {row["entry_index"] for row in counted}
    selected = [row for row in histogram if row["entry_index"] in counted_indices]
    if not selected and fallback:
        clients = {row["entry_index"] for row in fallback}
        return [row for row in histogram if row["entry_index"] in clients], list(fallback)
    return selected, list(counted)


def _distribution(bins: Iterable[Mapping[str, Any]], directions: Sequence[str], prefix: str) -> dict[str, Any]:
    """Percentiles (ms) and shares (%) of the bins of ``directions``; {} when they have none."""
    merged: Counter = Counter()
    for bin_row in bins:
        if bin_row["direction"] in directions:
            merged[bin_row["clat_ns"]] += bin_row["count"]
    total = sum(merged.values())
    if total <= 0:
        return {}
    out: dict[str, Any] = {f"{prefix}clat_{name}_ms": _bins_percentile(merged, PERCENTILES[name]) / 1e6
                           for name in SUMMARY_PERCENTILES}
    for limit, limit_us in SHARE_LIMITS_US.items():
        under = sum(count for value, count in merged.items() if value < limit_us * 1000)
        out[f"{prefix}clat_under_{limit}_pct"] = 100.0 * under / total
    return out


_bins_percentile = crosscheck.bins_percentile


def _rows_percentile(
    part: Sequence[Mapping[str, Any]],
    fallback: Sequence[Mapping[str, Any]],
    directions: Sequence[str],
    key: str,
) -> tuple[float | None, bool]:
    """Return (percentile in us, exact) from rows: one row's value, else an IOPS-weighted mean
    (None when one of the rows lost its value: the others' mean would be another number)."""
    if all(row[key] is None for row in part):
        clients = [row for row in fallback if row["direction"] in directions]
        value = _weighted_mean(clients, key)
        return value, value is None
    if len(part) == 1:
        return part[0][key], True
    return _weighted_mean(part, key), False


def _weighted_mean(rows: Sequence[Mapping[str, Any]], key: str) -> float | None:
    """Return the IOPS-weighted mean of ``row[key]`` (plain mean if no row has IOPS); None when
    a row has none (lost: the mean of the others would be another number)."""
    pairs = [(row["iops"], row[key]) for row in rows]
    if not pairs or any(value is None for _, value in pairs):
        return None
    weight = sum(iops for iops, _ in pairs)
    if weight <= 0:
        return sum(value for _, value in pairs) / len(pairs)
    return sum(iops * value for iops, value in pairs) / weight


def _mean(values: Iterable[float | None]) -> float | None:
    """Return the mean of the values, or None when one is None (lost) or there are none."""
    values = list(values)
    return sum(values) / len(values) if values and None not in values else None


# --- typed access ---------------------------------------------------------------------------


def _number(value: Any, where: str) -> int | float:
    """Return ``value`` if it is a finite JSON number, else raise ParseError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParseError(f"fio JSON {where} is not a number: {value!r:.80}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ParseError(f"fio JSON {where} is not finite: {value!r}")
    return value


def _unsigned(value: Any, where: str) -> int | float:
    """A JSON number that fio prints unsigned (a count, a rate, a latency, a percentage): a sign
    is damage (a ``-`` over the space before a number makes another number)."""
    number = _number(value, where)
    if number < 0:
        raise ParseError(f"fio JSON {where} is {number!r}: fio prints it unsigned (damaged?)")
    return number


def _count(value: Any, where: str) -> int:
    """A JSON number that fio prints as a whole, unsigned count (bytes, I/Os, ms, KiB/s)."""
    number = _unsigned(value, where)
    if number != int(number):
        raise ParseError(f"fio JSON {where} is not an integer: {number!r}")
    return int(number)


def _optional_float(value: Any, where: str) -> float | None:
    """Return an unsigned JSON number as float, None when absent."""
    return None if value is None else float(_unsigned(value, where))


def _optional_int(value: Any, where: str) -> int | None:
    """Return an unsigned integral JSON number (a group id, an error number) as int, None when absent."""
    return None if value is None else _count(value, where)


def _optional_str(value: Any, where: str) -> str | None:
    """Return a JSON string, None when absent."""
    if value is None or isinstance(value, str):
        return value
    raise ParseError(f"fio JSON {where} is not a string: {value!r:.80}")


def _optional_mapping(value: Any, where: str) -> Mapping[str, Any]:
    """Return a JSON object, an empty one when absent."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ParseError(f"fio JSON {where} is not an object: {value!r:.80}")
    return value


def parse_fill_output(text: str) -> dict[str, int]:
    """Bytes each job of a fill (:func:`flashpoc.engines.fio.plan.render_fill_job`) wrote, by job
    name (the target's), from fio's own ``write.io_bytes``; a job that fio reports with an error,
    or without a whole number of bytes written that its other figures agree with
    (:mod:`.crosscheck`), is refused rather than counted.

    Raises:
        ParseError: the output is not fio's JSON, or a job's figures are missing, broken or
            disagree (its ``error`` is one: a damaged key would hide a failed fill).
    """
    document = _load_fio_json(text)
    jobs = document.get("jobs")
    if not isinstance(jobs, list) or not jobs:
        raise ParseError("fio fill output has no jobs[]")
    fio_version = _fio_version(document)
    written: dict[str, int] = {}
    for i, job in enumerate(jobs):
        where = f"jobs[{i}]"
        if not isinstance(job, dict) or not isinstance(job.get("jobname"), str):
            raise ParseError(f"{where}: no jobname")
        if not isinstance(job.get("error"), int) or isinstance(job["error"], bool):
            raise ParseError(f"{where} ({job['jobname']}): error is {job.get('error')!r}, not fio's error number")
        if job["error"]:
            raise ParseError(f"{where} ({job['jobname']}): fio reports error {job['error']}")
        write = job.get("write")
        if not isinstance(write, dict) or not isinstance(write.get("io_bytes"), int) or write["io_bytes"] < 0:
            raise ParseError(f"{where} ({job['jobname']}): write.io_bytes is "
                             f"{write.get('io_bytes') if isinstance(write, dict) else None!r}, not a byte count")
        metrics, _ = _direction_metrics(write, f"{where}.write", _is_fio2(fio_version, write), {})
        written[job["jobname"]] = written.get(job["jobname"], 0) + (metrics["io_bytes"] if metrics else 0)
    return written
