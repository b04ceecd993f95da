"""The keys of vdbench's rows: the loop and run keys every row carries, the metric keys of each
table, and the names vdbench prints over the columns of its reports, flatfile and histograms."""

from __future__ import annotations

LOOP_KEYS: tuple[str, ...] = (
    "threads",
    "rdpct",
    "xfersize",
    "iorate",
    "seekpct",
    "rhpct",
    "whpct",
    "hitarea",
    "compratio",
)
"""vdbench ``for...`` loop parameters flattened into every row (None when not looped).

Loop keys printed by vdbench that are not in this list are flattened too, after these.
"""

RUN_KEYS: tuple[str, ...] = (
    "rd",
    "run_index",
    "loop",
    *LOOP_KEYS,
    "iorate_setting",
    "elapsed_s",
    "warmup_s",
    "report_format",
)
"""Run context that starts every totals/summary row (extra loop keys follow ``LOOP_KEYS``)."""

SD_METRIC_KEYS: tuple[str, ...] = (
    "iops",
    "mb_per_s",
    "bytes_per_io",
    "read_pct",
    "resp_ms",
    "read_resp_ms",
    "write_resp_ms",
    "resp_max_ms",
    "resp_stddev_ms",
    "queue_depth",
    "cpu_sys_user_pct",
    "cpu_sys_pct",
)
"""The metric columns of vdbench's SD (raw I/O) reports; present in every row (None if absent).

Other columns a header has (5.04.07 ``read_resp_max_ms``/``write_resp_max_ms``, the
file-system columns such as ``reqstdops_rate``, ``open_resp_ms``) follow them.
"""


TOTALS_KEYS: tuple[str, ...] = (
    *RUN_KEYS,
    "tod",
    "interval_label",
    "interval_start",
    "interval_end",
    *SD_METRIC_KEYS,
)
"""Keys every :func:`parse_totals` row starts with (header-specific columns follow)."""

SUMMARY_KEYS: tuple[str, ...] = (
    *RUN_KEYS,
    "tod",
    "interval",
    "row_type",
    "is_avg",
    "interval_start",
    "interval_end",
    *SD_METRIC_KEYS,
)
"""Keys every :func:`parse_summary` row starts with (header-specific columns follow)."""

HISTOGRAM_KEYS: tuple[str, ...] = (
    "rd",
    "run_index",
    "loop",
    *LOOP_KEYS,
    "section",
    "direction",
    "bucket_index",
    "bucket_lo_us",
    "bucket_hi_us",
    "count",
    "pct",
    "cum_pct",
)
"""Keys of every :func:`parse_histogram` row, in order (extra loop keys after LOOP_KEYS)."""

HISTOGRAM_SECTIONS: dict[str, str] = {
    "reads and writes": "total",
    "reads": "read",
    "writes": "write",
    "only reads done for this workload": "read",
    "only writes done for this workload": "write",
    "total of all requested operations": "total",
    "total of all requested operations since warmup": "total",
}
"""Histogram section titles (lower-cased, without the colon) and their ``direction``; any
other title is refused (a damaged title would file its buckets under no direction)."""

SD_HEADER_NAMES: dict[tuple[str, str], str] = {
    ("i/o", "rate"): "iops",
    ("mb/sec", "1024**2"): "mb_per_s",
    ("bytes", "i/o"): "bytes_per_io",
    ("read", "pct"): "read_pct",
    ("resp", "time"): "resp_ms",
    ("read", "resp"): "read_resp_ms",
    ("write", "resp"): "write_resp_ms",
    ("resp", "max"): "resp_max_ms",
    ("resp", "stddev"): "resp_stddev_ms",
    ("queue", "depth"): "queue_depth",
    ("cpu%", "sys+u"): "cpu_sys_user_pct",
    ("cpu%", "sys"): "cpu_sys_pct",
    ("read", "max"): "read_resp_max_ms",
    ("write", "max"): "write_resp_max_ms",
}
"""Report header labels (upper word, lower word; lower-cased, dots stripped) -> row keys.

Other labels are named by :func:`report_column_key`: ``<group>_<name>``, with ``_ms`` after
``resp``, ``cpu_<name>_pct`` under ``cpu%``, ``mb_<name>_per_s`` under ``mb/sec`` and
``xfer_size_bytes`` (e.g. ``.ReqstdOps...`` over ``rate`` -> ``reqstdops_rate``).
"""

FLATFILE_NAMES: dict[str, str] = {
    "mb/sec": "mb_per_s",
    "mb_read": "mb_read_per_s",
    "mb_write": "mb_write_per_s",
    "bytes/io": "bytes_per_io",
    "read%": "read_pct",
    "lunsize": "lunsize_gb",
}
"""flatfile column names (lower-cased) renamed for their unit; see :func:`flatfile_column_key`."""

FLATFILE_TEXT_COLUMNS: tuple[str, ...] = ("tod", "timestamp", "run", "interval", "version")
"""flatfile columns kept as text (``interval`` becomes an int when it is a number)."""

FLATFILE_DUPLICATES: dict[str, str] = {
    "rate": "iops",
    "resp_std_ms": "resp_stddev_ms",
    "read_max_ms": "read_resp_max_ms",
    "write_max_ms": "write_resp_max_ms",
    "cpu_used_pct": "cpu_sys_user_pct",
    "cpu_kernel_pct": "cpu_sys_pct",
}
"""flatfile columns that repeat a totals column; :func:`parse_vdbench_dir` does not add them."""
