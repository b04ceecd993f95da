"""Phase settings of a campaign: probe, sweep, precondition, report and the array."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, field_validator, model_validator

from flashpoc.params.common import DEFAULT_CURVE_PCT, Flag, MAX_THREADS, Name, StrictModel
from flashpoc.params.paths import ControllerPath


class ProbeSettings(StrictModel):
    """Saturation probe: find the thread count beyond which IOPS stop rising."""

    workload: str | None = Field(None, description="workload to probe (default the first)")
    strategy: Literal["adaptive", "linear"] = "adaptive"
    min_threads: int = Field(1, ge=1, le=MAX_THREADS)
    max_threads: int = Field(256, ge=1, le=MAX_THREADS)
    step: int = Field(1, ge=1, le=MAX_THREADS, description="linear: the step; adaptive: refine granularity")
    gain_pct: float = Field(2.0, gt=0, lt=100, description="a gain below this % is no gain")
    runtime_s: int | None = Field(None, ge=1, le=86400, description="per point (default the engine's: fio.runtime_s, "
                                  "vdbench.elapsed_s, slob.run_time_s); with "
                                  "until_steady the longest a point runs")
    remeasure_unsteady: Flag = Field(True, description="measure a point again when fio's steady state was not attained")
    until_steady: Flag = Field(True, description="fio: a probe point ends once its IOPS are steady (fio steadystate, "
                               "fio.steadystate or iops:3% over 2 s), at most runtime_s")
    start_threads: int | None = Field(None, ge=1, le=MAX_THREADS, description="adaptive: the first count (default: "
                                      "the middle of min..max on a log scale, at least one thread per host CPU)")
    expected_iops: float | None = Field(None, gt=0, le=1e10, description="adaptive: the IOPS the array should reach "
                                        "(data sheet), if known: the doubling skips counts that cannot reach them")
    refine_points: int = Field(1, ge=0, le=50, description="adaptive: most points added to the doubling where it "
                               "found no answer (bisections and repeats); a plateau found is not refined")
    refine_repeats: Flag = Field(False, description="adaptive: the refine points are repeats of the two counts "
                                 "bracketing the answer, not bisections")
    strict: Flag = Field(False, description="stop the run when the probe finds no saturation (default: the sweep "
                         "covers the probed range and the report says why there is no answer)")
    host_scaling: Flag = Field(
        True, description="several hosts: measure the plateau again on fewer hosts (1, half, all but one) to tell "
        "a host limit from an array limit")

    @model_validator(mode="after")
    def _range(self) -> ProbeSettings:
        if self.min_threads > self.max_threads:
            raise ValueError(f"min_threads ({self.min_threads}) is above max_threads ({self.max_threads})")
        if self.strategy == "linear" and (self.max_threads - self.min_threads) // self.step > 200:
            raise ValueError("a linear probe of more than 200 points: raise step")
        if self.start_threads is not None and not self.min_threads <= self.start_threads <= self.max_threads:
            raise ValueError(f"start_threads ({self.start_threads}) is outside min_threads..max_threads "
                             f"({self.min_threads}..{self.max_threads})")
        return self


class ExtendSettings(StrictModel):
    """A sweep point not steady at its length measured again longer, up to ``max_s`` (:mod:`flashpoc.campaign.extend`)."""

    max_s: int = Field(..., ge=1, le=86400, description="the longest a point is run (s): lengths double up to it")


class SweepSettings(StrictModel):
    """Fine thread sweep per workload, planned from the probe result."""

    plan: Literal["guide", "knee-dense", "rate-curve"] = "guide"
    max_threads: int | None = Field(None, ge=1, le=MAX_THREADS, description="default: the probe's answer")
    step: int | None = Field(None, ge=1, le=MAX_THREADS, description="guide plan step (default max/30)")
    points: int | None = Field(None, ge=2, le=500, description="knee-dense plan: number of points")
    extend_pct: float = Field(0.0, ge=0, le=400, description="also sweep this % beyond max_threads")
    workloads: list[str] | None = Field(None, max_length=256, description="workload names (default all)")
    runtime_s: int | None = Field(None, ge=1, le=86400, description="per point (default the engine's: fio.runtime_s, "
                                  "vdbench.elapsed_s, slob.run_time_s)")
    until_steady: Flag = Field(False, description="fio: a sweep point ends once its IOPS are steady, like the "
                               "probe's, at most runtime_s; the sweep then reuses the probe's points")
    curve_pct: list[float] | None = Field(None, min_length=1, max_length=50, description="rate-curve plan: the "
                                          "rates, in % of the uncontrolled maximum (default 10, 50, 70, 80, 90, 100)")
    stop_ms: float | None = Field(None, gt=0, le=100000, description="rate-curve plan: stop a curve once a step's "
                                  "mean latency passes this (ms)")
    repeats: int = Field(1, ge=1, le=20, description="each point measured this many times, interleaved (every "
                         "thread count once, then again), stored as repeats of one point: the tables and charts "
                         "give their mean, spread and 95 % interval")
    extend_until_steady: ExtendSettings | None = Field(
        None, description="a point not steady at its length (fio's steadystate, else the SNIA PTS rule on its "
        "intervals) is measured again at twice its length, and so on up to max_s, e.g. {max_s: 600}")

    @field_validator("workloads")
    @classmethod
    def _some(cls, value: list[str] | None) -> list[str] | None:
        if value == []:
            raise ValueError("an empty list sweeps no workload: leave workloads out to sweep every workload")
        return value

    @model_validator(mode="after")
    def _plan_settings(self) -> SweepSettings:
        if self.plan == "guide" and self.points is not None:
            raise ValueError("points applies to the knee-dense plan; the guide plan uses step")
        for key in ("curve_pct", "stop_ms"):
            if self.plan != "rate-curve" and getattr(self, key) is not None:
                raise ValueError(f"{key} applies to the rate-curve plan (plan: rate-curve)")
        if self.repeats > 1 and self.extend_until_steady is not None:
            raise ValueError("repeats and extend_until_steady cannot be combined: a longer run of one repeat "
                             "would stand for every repeat; choose one")
        return self

    @field_validator("curve_pct")
    @classmethod
    def _rates(cls, values: list[float] | None) -> list[float] | None:
        for value in values or []:
            if not (math.isfinite(value) and 0 < value <= 100):
                raise ValueError(f"{value!r} is not a % of the maximum above 0 and at most 100")
        if values is not None and len(set(values)) != len(values):
            raise ValueError("a rate is named twice")
        return values

    @property
    def rate_steps(self) -> list[float]:
        """The rate-curve plan's rates in % of the uncontrolled maximum, ascending ([] for other plans)."""
        if self.plan != "rate-curve":
            return []
        return sorted(self.curve_pct or DEFAULT_CURVE_PCT)


class PreconditionSettings(StrictModel):
    """Before the probe: fill every target once with the campaign's data (an all-flash array answers
    reads of never-written blocks from metadata), recorded per target (:mod:`flashpoc.campaign.precondition`)."""

    fill: Flag = Field(True, description="fill each target the campaign may write (create or allow_write) once, "
                       "sequentially in 1 MiB writes of the engine's data (fio buffer_compress_percentage/"
                       "dedupe_percentage, vdbench compratio/dedupratio), before the probe; again when it changed")
    unfilled: Literal["refuse", "warn"] = Field(
        "refuse", description="a read workload on a target never filled (not by flashpoc, not in "
        "filled_elsewhere): refuse before any I/O, or warn and go on")
    filled_elsewhere: list[Name] = Field(default_factory=list, max_length=4096,
                                         description="targets (by name) that hold data written outside flashpoc "
                                                     "(e.g. a copy of the database): their reads are not refused")
    write_rounds: int = Field(0, ge=0, le=100, description="write workloads: after the fill, at most this many rounds "
                              "of each (SNIA PTS workload-dependent preconditioning; SNIA's bound is 25) until its IOPS "
                              "are steady over 5 rounds; 0: none")
    round_s: int | None = Field(None, ge=1, le=86400, description="seconds per round (default the engine's point length)")
    threads: int = Field(16, ge=1, le=MAX_THREADS, description="threads of the rounds (per host; vdbench: per SD)")


class CompareWith(StrictModel):
    """Another campaign whose stored sweep is overlaid on this one in the report."""

    campaign: Name = Field(description="the other campaign's name (its results are results_dir/campaign)")
    label: str | None = Field(None, min_length=1, max_length=60,
                              description="its name in charts and tables, e.g. 'C800 QLC' (default the campaign)")
    results_dir: ControllerPath | None = Field(None, description="where its results are (default this campaign's "
                                                                 "results_dir)")


class ReportSettings(StrictModel):
    """What the report compares: this campaign against others, at equal latency and equal IOPS."""

    label: str | None = Field(None, min_length=1, max_length=60,
                              description="this campaign's name in comparisons (default the campaign)")
    compare: list[CompareWith] = Field(default_factory=list, max_length=7,
                                       description="other campaigns to overlay; this campaign is the baseline")
    latencies_ms: list[float] = Field(default_factory=list, max_length=10,
                                      description="latencies (ms) to compare IOPS at, besides slo_ms")
    iops_levels: list[float] = Field(default_factory=list, max_length=10,
                                     description="IOPS to compare latency and CPU at (default: half and all of "
                                                 "the lower max IOPS of each pair)")
    equal_threads: list[int] = Field(default_factory=list, max_length=10,
                                     description="thread counts (users) to compare the configurations at, equal load "
                                                 "(default: the highest both measured and the one nearest half of it)")
    noise_pct: float = Field(10.0, ge=0, le=100, description="point-to-point noise (%): without repeats, a "
                             "difference smaller than this is reported as within measurement noise, not as a win")
    pdf: Flag = Field(True, description="print report.pdf with Chromium (false: report.html only, no Chromium needed)")
    detail_threads: int | None = Field(None, ge=1, le=100000,
                                       description="point shown in detail (time series, latency histogram): the "
                                                   "measured thread count nearest to this; default each workload's "
                                                   "max IOPS within slo_ms")

    @field_validator("equal_threads")
    @classmethod
    def _counts(cls, values: list[int]) -> list[int]:
        for value in values:
            if not 1 <= value <= MAX_THREADS:
                raise ValueError(f"{value!r} is not a thread count from 1 to {MAX_THREADS}")
        return sorted(set(values))

    @field_validator("latencies_ms", "iops_levels")
    @classmethod
    def _positive(cls, values: list[float], info) -> list[float]:
        top = 100_000 if info.field_name == "latencies_ms" else 10**9
        for value in values:
            if not (math.isfinite(value) and 0 < value <= top):
                raise ValueError(f"{value!r} is not a number above 0 and at most {top}")
        return sorted(set(values))


class ArraySettings(StrictModel):
    """What is known of the array under test."""

    expected_iops: float | None = Field(None, gt=0, le=1e10, description="the IOPS the array should reach (its "
                                        "data sheet or the vendor's sizing): the report gives the share reached and "
                                        "the hosts-or-array verdict weighs it")
