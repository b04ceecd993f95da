"""Stored results read back: a campaign's points of its current settings, the points of the
campaigns it is compared with, their results directories, and the detail points' time series
and histograms.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from flashpoc.core.errors import AnalysisError, FlashpocError
from flashpoc.params import Campaign
from flashpoc.campaign.session import campaign_from_manifest
from flashpoc.core.store import HISTOGRAM_FILE, INTERVALS_FILE, CampaignStore


def load_results(cfg: Campaign, phase: str = "sweep") -> pd.DataFrame:
    """Stored rows of ``phase`` measured with this campaign's current measurement settings.

    Points measured with other settings (another block size, target or fio option) stay on
    disk but are never mixed in; every repeat of a point (``sweep.repeats``) is a row, and of
    measurements of the same repeat the latest is used.
    """
    return CampaignStore(cfg.resolved().results_path()).current_points(cfg.resolved().measurement_hash(), phase)


def _no_sweep(cfg: Campaign) -> AnalysisError:
    return AnalysisError(f"no sweep results for {cfg.campaign} in {cfg.results_path()}: run the sweep (03) first")


def load_comparison(cfg: Campaign) -> pd.DataFrame:
    """The sweep points of this campaign and of every ``report.compare`` campaign, with a
    ``config`` column holding each campaign's label (this campaign, the baseline, first).

    Each other campaign's points are those of the parameters in its ``manifest.json`` (its
    latest environment check), so points it measured with older settings are not mixed in.

    Raises:
        AnalysisError: a campaign has no results or no sweep points, naming it and its directory.
    """
    cfg = cfg.resolved()
    own = load_results(cfg, "sweep")
    if own.empty:
        raise _no_sweep(cfg)
    frames = [own.assign(config=cfg.report.label or cfg.campaign)]
    for i, (label, (campaign, root)) in enumerate(compared_campaigns(cfg).items()):
        points = CampaignStore(root).current_points(campaign.measurement_hash(), "sweep")
        if points.empty:
            raise AnalysisError(f"report.compare[{i}] ({campaign.campaign}): no sweep points in {root} for its "
                                "current parameters: run its sweep (03)")
        frames.append(points.assign(config=label))
    return pd.concat(frames, ignore_index=True)


def compared_campaigns(cfg: Campaign) -> dict[str, tuple[Campaign, Path]]:
    """Each ``report.compare`` campaign by its label: its parameters as its ``manifest.json`` (its
    latest environment check) has them, resolved, and its results directory.

    Raises:
        AnalysisError: a campaign has no results or an unreadable manifest, naming it and its directory.
    """
    out = {}
    for i, other in enumerate(cfg.resolved().report.compare):
        root = cfg.resolved().compared_root(other)
        key = f"report.compare[{i}] ({other.campaign})"
        if not (root / "manifest.json").is_file():
            raise AnalysisError(f"{key}: no campaign results in {root} (no manifest.json): run that campaign's "
                                f"phases first, or fix results_dir")
        try:
            manifest = CampaignStore(root).read_json("manifest.json")
            campaign = campaign_from_manifest(manifest, str(root / "manifest.json")).resolved()
            campaign.measurement_hash()
        except (FlashpocError, KeyError, ValueError) as error:
            raise AnalysisError(f"{key}: unreadable manifest.json in {root}: {error}") from None
        out[other.label or other.campaign] = (campaign, root)
    return out


def campaign_roots(cfg: Campaign) -> dict[str, Path]:
    """The results directory of the report's campaign and of each ``report.compare`` campaign,
    by its configuration label (:meth:`flashpoc.params.Campaign.results_roots`); ``cfg`` resolved."""
    return cfg.results_roots()


def load_point_details(cfg: Campaign, detail: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The interval time series and latency histograms of the ``detail`` points.

    Args:
        cfg: the report's campaign (its ``report.compare`` campaigns are read too).
        detail: points to load, with ``point_id``, ``workload``, ``threads`` (and ``config``
            when campaigns are compared), e.g. from :func:`flashpoc.present.summary.detail_points`.

    Returns:
        ``(intervals, histogram)``: the rows of the points' ``intervals.csv`` and
        ``histogram.csv`` (see :mod:`flashpoc.core.store`) with the detail columns [config,]
        workload and threads added; empty frames for points without them (SLOB keeps no
        histogram, fio with ``interval_s: 0`` no time series).
    """
    cfg = cfg.resolved()
    roots = campaign_roots(cfg)
    keys = [c for c in ("config", "workload", "threads") if c in detail]
    tables = {INTERVALS_FILE: [], HISTOGRAM_FILE: []}
    groups = detail.groupby("config", sort=False) if "config" in detail else [(None, detail)]
    for config, points in groups:
        store = CampaignStore(roots[config] if config is not None else cfg.results_path())
        ids = list(points["point_id"])
        for name, frames in tables.items():
            frame = store.load_point_tables("sweep", name, ids)
            if not frame.empty:
                frames.append(frame.merge(points[["point_id", *keys]], on="point_id"))
    return tuple(pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
                 for frames in tables.values())
