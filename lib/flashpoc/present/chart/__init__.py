"""Charts: pure functions from a tidy DataFrame to an Altair chart, plus the house theme.

Every function here takes a DataFrame (one row per run-point, the tidy table the parse/store
stages write) and returns an Altair chart; nothing reads or writes files. Test a chart through
``chart.to_dict()``.

The notebooks call, once::

    from flashpoc.present import chart
    chart.enable_offline_renderer()   # inline SVG + Vega-Lite JSON, no CDN; the house theme

Files (SVG, PNG, Vega-Lite JSON, report.html) are always drawn in the house theme
(:func:`themed_spec`), whatever theme is active.

Colours (:data:`PALETTE`, Okabe-Ito without the yellow that vanishes on paper): a series takes
the palette's colours in the order of the colour domain, and every chart of a report gets the
same domain (:func:`series_domain`): the campaign's workloads in the order of its parameters
(so the four default workloads are always blue, orange, green and vermillion), or, when
campaigns are compared, the configurations with the baseline first (the baseline blue). A chart
that shows only some series keeps the others' colours; load hosts take colours of their own
(:data:`HOST_PALETTE`), so that no host looks like a workload.

A series is a workload, or a configuration when ``df`` has a ``config`` column with more than one
value (or the colour domain names its configurations); the workload is then told apart by dash
(hockey stick) or by panel (percentiles, CPU, where dashes mark the percentile or CPU time).

Every spec handed out (files, the notebook's Vega-Lite, report.html) is strict JSON:
:func:`json_safe` turns NaN and infinities, which Vega-Lite and JupyterLab refuse, into null.
"""

from __future__ import annotations

# Every name keeps its old path (flashpoc.present.chart.X): the package re-exports its modules' names.
from flashpoc.present.chart.detail import (HISTOGRAM_EDGES_US, MAX_INTERVALS, SHARE_MARKS_MS, _DIRECTION_NAMES, _bucket_label,
                     _downsample, _point_lines, _snia_layers, _verdict, _whole_ticks, interval_series,
                     latency_histogram, precondition_rounds, snia_windows)
from flashpoc.present.chart.encodings import (_DASHES, _dash_channel, _has_configs, _in_domain_order, _in_given_order, _iops_x, _keys,
                        _knee_layers,
                        _latency_y, _mean_per_point, _melt, _point_name, _present, _require, _saturation_layers,
                        _series_channels, _series_tooltip, _slo_layers, _threads_x)
from flashpoc.present.chart.oracle import (ORACLE_DB_TIME, ORACLE_HOST_CPU, ORACLE_LATENCIES, ORACLE_WRITE_LATENCIES, _known_columns, db_cpu,
                     db_time_shares, oracle_latencies, oracle_write_latency, sql_cpu_over_time, sql_runs,
                     wait_histogram)
from flashpoc.present.chart.sweep import (KIND_TITLES, LOAD_TITLES, _hockey_panel, _knees_of, _lines_vs_threads, hockey_stick, host_cpu,
                    latency_percentiles, latency_shares, load_vs_threads, per_host_iops, probe_curve, rate_curve,
                    write_latency)
from flashpoc.present.chart.theme import (ANNOTATION_COLOR, FONT, HOST_PALETTE, MAX_ROWS, PALETTE, RENDERER_NAME, THEME_NAME, TITLE_CLAT,
                    TITLE_CLAT_LOG, TITLE_CPU, TITLE_IOPS, TITLE_LAT_MEAN, TITLE_MIBPS, TITLE_THREADS,
                    VEGALITE_MIME_TYPE, VEGALITE_VERSION, _CPU_METRICS, _PERCENTILES, _spec_title, _svg_of,
                    enable_offline_renderer, json_safe, offline_renderer, render_svg, series_domain, theme_config,
                    themed_spec, use_theme)
from flashpoc.present.chart.views import draw
