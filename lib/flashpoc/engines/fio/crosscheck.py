"""What fio prints twice in its JSON output, checked, so that a changed figure is refused or lost
and named, never read (issue 28).

fio derives several figures of one direction (read, write, trim) from the same counters, and
prints them side by side; on real outputs of fio 2.1.4 to 3.36 they agree exactly:

* ``bw`` (KiB/s) is ``1000 * io_bytes / runtime`` (runtime in ms) in KiB, rounded down: with
  io_bytes in bytes (fio 3.x, whose ``bw_bytes`` is the same in bytes) or in KiB (fio 2.x). This
  tells fio 2.x's KiB from fio 3.x's bytes even when a damaged key hides ``io_kbytes``;
* ``io_kbytes`` is ``io_bytes`` in whole KiB; ``iops`` is ``1000 * total_ios / runtime``,
  printed to 6 decimals (fio 3.x);
* the mean total latency is the mean submission latency plus the mean completion latency when
  the three counted the same I/Os (``N``); each I/O's total latency is at least its completion
  latency, and every mean lies between its minimum and maximum;
* the printed percentiles grow with the percent, and a JSON+ histogram (``clat_ns.bins``) holds
  ``total_ios`` I/Os and gives, as fio computes it, every printed percentile;
* client/server: the ``All clients`` entry counts the I/Os and bytes of the clients' entries;
* a job's steady state (``--ss``): ``attained`` says whether its criterion is below the limit of
  ``ss``, the criterion is the slope or deviation of its ``data`` (in percent of their mean).

A disagreement in what every other number rests on (IOPS, bandwidth, bytes, runtime) refuses
the output (:class:`~flashpoc.core.errors.ParseError`); one in a latency or steady-state figure loses the figures it
could have changed: the functions here return ``(what is wrong, the row columns lost)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from flashpoc.core.errors import ParseError

Problem = tuple[str, tuple[str, ...]]
"""What is wrong with a figure, and the row columns it costs."""

#: fio prints a float with 6 decimals: half a unit of the last, and double arithmetic, at most
PRINTED = 1e-6
#: the relative error of fio's running means (double precision), far above what it accumulates
RUNNING = 1e-10
#: a percentile key as fio prints it: "99.900000" (fio 2.x: "99.90", padded with "0.00")
PERCENT_KEY = re.compile(r"^\d{1,3}(?:\.\d+)?$")
#: the row columns of each latency block's figures (the others are only cross-checked)
LATENCY_COLUMNS = {"lat": {"mean": "lat_mean_us", "max": "lat_max_us"},
                   "clat": {"mean": "clat_mean_us", "stddev": "clat_stddev_us"}}


def io_unit(where: str, io_bytes: int, bw: int, runtime: int, fio2: bool) -> int:
    """Bytes per unit of ``io_bytes``: 1024 for fio 2.x (``fio2``, from its version or the keys
    it prints), whose io_bytes is KiB, else 1; ``bw`` (KiB/s) must be 1000 x io_bytes / runtime
    in that unit (0 when fio measured no runtime).

    Raises:
        ParseError: bw is not that (bw, io_bytes or runtime is damaged).
    """
    unit = 1024 if fio2 else 1
    expected = 1000 * io_bytes * unit // runtime // 1024 if runtime > 0 else 0
    if abs(bw - expected) > 1:
        said = f"{io_bytes} {'KiB' if fio2 else 'bytes'} in {runtime} ms"
        raise ParseError(f"fio JSON {where}: bw {bw} KiB/s is not 1000 x io_bytes / runtime ({said}, "
                         f"{expected} KiB/s): a damaged figure")
    return unit


def check_rates(stats: Mapping[str, Any], where: str, io_bytes: int, iops: float, runtime: int,
                total_ios: int | None) -> None:
    """fio 3.x: ``io_kbytes``, ``bw_bytes`` and ``iops`` against ``io_bytes``, ``total_ios`` and
    ``runtime`` (``io_bytes`` in bytes).

    Raises:
        ParseError: one of them is not what fio computes from the others.
    """
    kbytes = stats.get("io_kbytes")
    if kbytes is not None and kbytes != io_bytes >> 10:
        raise ParseError(f"fio JSON {where}: io_kbytes {kbytes!r} is not io_bytes {io_bytes} in KiB: a damaged figure")
    bw_bytes = stats.get("bw_bytes")
    if bw_bytes is not None and runtime > 0 and not (isinstance(bw_bytes, int)
                                                     and abs(bw_bytes - 1000 * io_bytes // runtime) <= 1):
        raise ParseError(f"fio JSON {where}: bw_bytes {bw_bytes!r} is not 1000 x io_bytes / runtime "
                         f"({io_bytes} in {runtime} ms): a damaged figure")
    if total_ios is None:
        return
    expected = 1000.0 * total_ios / runtime if runtime > 0 else 0.0
    if abs(iops - expected) > PRINTED + RUNNING * expected:
        raise ParseError(f"fio JSON {where}: iops {iops:f} is not 1000 x total_ios / runtime "
                         f"(1000 x {total_ios} / {runtime} ms = {expected:f}): a damaged figure")


def latency_problems(blocks: Mapping[str, Mapping[str, float]], where: str, names: Mapping[str, str]) -> list[Problem]:
    """What the latency blocks (``lat``, ``clat``, ``slat``: their figures, as printed in fio's
    unit) say against each other: a mean outside its block's min and max, a total latency below
    the completion latency, or a mean total latency that is not the submission plus completion
    means of the same I/Os. ``names`` gives each block's key as printed (``clat_ns``)."""
    problems: list[Problem] = []
    for block, figures in blocks.items():
        low, mean, high = (figures.get(key) for key in ("min", "mean", "max"))
        if None not in (low, mean, high) and not low - PRINTED <= mean <= high + PRINTED:
            problems.append((f"{where}.{names[block]}: mean {mean:f} is not between min {low:g} and max {high:g}",
                             tuple(LATENCY_COLUMNS.get(block, {}).values())))
    lat, clat, slat = (blocks.get(block, {}) for block in ("lat", "clat", "slat"))
    total_lost = ("lat_mean_us", "lat_max_us", "clat_mean_us")
    for key in ("min", "mean", "max"):
        if lat.get(key) is not None and clat.get(key) is not None and lat[key] < clat[key] - PRINTED:
            problems.append((f"{where}: {names['lat']} {key} {lat[key]:g} is below {names['clat']} {key} "
                             f"{clat[key]:g}", total_lost))
    counts = {lat.get("N"), clat.get("N"), slat.get("N")}
    if len(counts) == 1 and None not in counts and counts != {0} and None not in (
            lat.get("mean"), clat.get("mean"), slat.get("mean")):
        total = clat["mean"] + slat["mean"]
        if abs(lat["mean"] - total) > 3 * PRINTED + RUNNING * lat["mean"]:
            problems.append((f"{where}: {names['lat']} mean {lat['mean']:f} is not {names['slat']} + {names['clat']} "
                             f"means ({total:f}) of the same {lat['N']} I/Os", ("lat_mean_us", "clat_mean_us")))
    return problems


def percentile_problems(values: Mapping[float, float], kept: Mapping[str, float], where: str) -> list[Problem]:
    """The printed percentiles (``{percent: value}``) that do not grow with the percent: the one
    value whose removal makes them grow (or both of the first pair that does not, when either
    would) loses its ``kept`` percentile (name -> percent); all of them when no one value does."""
    ordered = sorted(values.items())
    bad = next((i for i in range(1, len(ordered)) if ordered[i][1] < ordered[i - 1][1]), None)
    if bad is None:
        return []

    def grows(items: list[tuple[float, float]]) -> bool:
        return all(b[1] >= a[1] for a, b in zip(items, items[1:]))

    suspects = [ordered[i][0] for i in (bad - 1, bad) if grows(ordered[:i] + ordered[i + 1:])]
    lost = tuple(f"clat_{name}_us" for name, percent in kept.items()
                 if not suspects or any(abs(percent - s) < 1e-6 for s in suspects))
    (low_pct, low), (high_pct, high) = ordered[bad - 1], ordered[bad]
    return [(f"{where}: percentile {high_pct:g} ({high:g}) is below percentile {low_pct:g} ({low:g})", lost)]


def bins_percentile(bins: Mapping[int, int], percent: float) -> int:
    """fio's percentile of a histogram: the first bin whose cumulative count reaches it."""
    total = sum(bins.values())
    threshold = percent / 100.0 * total
    cumulative = 0
    value = 0
    for value in sorted(bins):
        cumulative += bins[value]
        if cumulative >= threshold:
            return value
    return value  # pragma: no cover - the last bin always reaches 100 %


def bins_problem(bins: Mapping[int, int], total_ios: int | None, printed: Mapping[float, float]) -> str | None:
    """What a direction's JSON+ bins (``{ns: count}``) say against its ``total_ios`` and its
    printed percentiles (``{percent: ns}``), or None when they agree."""
    counted = sum(bins.values())
    if total_ios is not None and counted != total_ios:
        return f"hold {counted} I/Os, total_ios {total_ios}"
    for percent, value in sorted(printed.items()):
        computed = bins_percentile(bins, percent)
        if value and computed != value:
            return f"give percentile {percent:g} as {computed}, fio printed {value:g}"
    return None


def aggregate_problem(aggregate: Mapping[str, Any], clients: Sequence[Mapping[str, Any]], where: str,
                      directions: Sequence[str]) -> str | None:
    """What fio's ``All clients`` entry says against the clients' entries: its ``total_ios`` and
    ``io_bytes`` of each direction are their sums; None when they agree."""
    for direction in directions:
        mine = aggregate.get(direction)
        if not isinstance(mine, Mapping):
            continue
        for key in ("total_ios", "io_bytes"):
            theirs = [c.get(direction, {}).get(key) if isinstance(c.get(direction), Mapping) else None for c in clients]
            if mine.get(key) is None or any(not isinstance(v, int) for v in theirs):
                continue
            if mine[key] != sum(theirs):
                return (f"{where}.{direction}.{key} {mine[key]} is not the clients' sum ({sum(theirs)}): "
                        "a damaged figure")
    return None


#: fio's steady-state criterion as it prints it (``"iops_slope:0.300000%"``): the figure, slope or
#: not, the limit (6 decimals) and ``%`` when the limit is a percent of the mean
STEADY_KIND = re.compile(r"^(iops|bw)(_slope)?:(\d+\.\d+)(%?)$")
#: a criterion fio computed (``"%f%s"``: ``"-0.002276%"``, ``"-109.000000"``)
STEADY_VALUE = re.compile(r"^-?\d+\.\d{6}%?$")
#: the row columns a steady-state block's figures give
STEADY_COLUMNS = ("steadystate_attained", "steadystate_criterion")


def steadystate_problem(block: Mapping[str, Any], where: str) -> str | None:
    """What a job's ``steadystate`` block says against itself, or None when it agrees: fio
    ``attained`` its criterion (0 or 1) exactly when the criterion it computed (not 0: it computed
    one) is below the limit of ``ss``; its data's mean (``iops_mean``, ``bw_mean``) is their sum
    over their count, in whole units; the slope of a ``_slope`` criterion is the least-squares
    slope of the data in their order, the ``max_deviation`` of another the largest distance from
    their mean; the criterion is that figure, in percent of the mean with a ``%`` limit."""
    kind, text, attained = block.get("ss"), block.get("criterion"), block.get("attained")
    if not isinstance(text, str) or not STEADY_VALUE.match(text):
        return f"{where}.criterion {text!r} is not a criterion fio computed"
    if attained not in (0, 1) or isinstance(attained, bool):
        return f"{where}.attained {attained!r} is not 0 or 1"
    match = STEADY_KIND.match(kind) if isinstance(kind, str) else None
    if match is None:
        return f"{where}.ss {kind!r} is not a steady-state criterion fio knows"
    value, limit, percent = float(text.rstrip("%")), float(match[3]), match[4] == "%"
    if text.endswith("%") != percent:
        return f"{where}.criterion {text} and ss {kind} are not in the same unit"
    if value and (abs(value) < limit - PRINTED) != bool(attained):
        return f"{where}: attained {attained} but the criterion {text} is {'not ' * attained}below {kind}"
    return _steady_data_problem(block, where, match[1], bool(match[2]), value, percent)


def _steady_data_problem(block: Mapping[str, Any], where: str, figure: str, slope: bool, value: float,
                         percent: bool) -> str | None:
    """:func:`steadystate_problem`'s check of the data against the mean, slope or deviation and
    criterion fio computed from them."""
    data = block.get("data")
    series = data.get(figure) if isinstance(data, Mapping) else None
    mean = data.get(f"{figure}_mean") if isinstance(data, Mapping) else None
    if (not isinstance(series, list) or not series or not isinstance(mean, int)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in series)):
        return f"{where}.data has no {figure} series and {figure}_mean as fio prints them"
    if sum(series) // len(series) != mean:
        return f"{where}.data.{figure}_mean {mean} is not the mean of its {len(series)} values"
    if not value:
        return None  # fio computed no criterion (its window was never full)
    count, exact = len(series), sum(series) / len(series)
    if slope:
        xs = (count - 1) / 2
        spread = sum((x - xs) ** 2 for x in range(count)) or 1.0
        computed, printed_key = sum((x - xs) * y for x, y in enumerate(series)) / spread, "slope"
    else:
        computed, printed_key = max(abs(y - exact) for y in series), "max_deviation"
    printed = block.get(printed_key)
    if not isinstance(printed, (int, float)) or abs(printed - computed) > PRINTED + RUNNING * abs(computed):
        return f"{where}.{printed_key} {printed!r} is not the data's ({computed:f})"
    # fio divides by the mean in whole units for a slope, the exact mean for a deviation
    bounds = [100 * printed / m for m in (mean, exact) if m] if percent else [printed]
    if not bounds or not min(bounds) - 2 * PRINTED <= value <= max(bounds) + 2 * PRINTED:
        return f"{where}.criterion {value:f} is not {printed_key} {printed:f}{' in percent of the mean' * percent}"
    return None
