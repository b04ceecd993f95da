"""The four phases of a POC campaign, as the notebooks (and ``flashpoc run``) call them.

check -> probe -> sweep -> report. Each phase takes a validated :class:`Campaign`, stores
what it measured under ``results/<campaign>/`` and returns tables for display. Points that
are already stored with the same defining parameters are reused, not measured again.

Each phase lives in its own module: :mod:`flashpoc.campaign.session` (a campaign opened for running,
the environment check, the safety gate, the targets), :mod:`flashpoc.campaign.probe`,
:mod:`flashpoc.campaign.sweep`, :mod:`flashpoc.campaign.results` (stored points read back) and
:mod:`flashpoc.present.reporting`. This module gathers the names the notebooks, the CLI, the tests and
the benchmarks call, and the modules the notebooks display with (chart, check, explore, live,
summary): the notebooks import this module only; new library code imports the phase modules.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from flashpoc.campaign import check
from flashpoc.campaign.precondition import load_status, status_text
from flashpoc.params import Campaign
from flashpoc.present import chart, explore, live, summary
from flashpoc.campaign.probe import adaptive_probe, probe_point_bound, summarize_probe, with_host_limit
from flashpoc.campaign.probe_words import LOW_CONFIDENCE, probe_answer_text
from flashpoc.present.summary.probe import probe_hosts_table, probe_table, probe_text
from flashpoc.campaign import probe as _probe, sweep as _sweep
from flashpoc.present.document import precondition_items
from flashpoc.present.progress import Progress
from flashpoc.present.reporting import Report, build_report, hosts_text
from flashpoc.campaign.results import campaign_roots, load_comparison, load_point_details, load_results
from flashpoc.campaign.session import (campaign_from_manifest, manifest_params, open_campaign, prepare_targets, run_check,
                      safety_gate, target_sizes)
from flashpoc.engines.loop import point_steadiness
from flashpoc.hosts.workbench import Workbench
from flashpoc.campaign.sweep import (SWEEP_COLUMNS, plan_campaign_sweep, plan_points, probe_points_reused,
                    sweep_plan_lines, sweep_plan_text, sweep_reach, sweep_table, sweep_threads, sweep_top)

__all__ = [
    "chart", "check", "explore", "live", "summary",  # the modules the notebooks display with
    "load_status", "precondition_items", "status_text",
    "LOW_CONFIDENCE", "SWEEP_COLUMNS", "Report", "Workbench", "adaptive_probe", "build_report", "campaign_from_manifest",
    "campaign_roots", "hosts_text", "load_comparison", "load_point_details", "load_results", "manifest_params",
    "open_campaign", "plan_campaign_sweep", "plan_points", "point_steadiness", "prepare_targets",
    "probe_answer_text", "probe_hosts_table", "probe_point_bound", "probe_points_reused", "probe_table",
    "probe_text", "run_check", "run_probe", "run_sweep", "safety_gate", "summarize_probe", "sweep_plan_lines",
    "sweep_plan_text", "sweep_reach", "sweep_table", "sweep_threads", "sweep_top", "target_sizes",
    "with_host_limit",
]


def run_probe(cfg: Campaign, *, progress: bool = True) -> dict[str, Any]:
    """The probe (:func:`flashpoc.campaign.probe.run_probe`) with its live progress
    (:class:`~flashpoc.present.progress.Progress`: in the notebook when ``progress``, and the events
    ``flashpoc run`` prints)."""
    return _probe.run_probe(cfg, progress=progress, display=Progress)


def run_sweep(cfg: Campaign, plan: dict[str, list[int]] | None = None, *, progress: bool = True) -> pd.DataFrame:
    """The sweep (:func:`flashpoc.campaign.sweep.run_sweep`) with its live progress, as :func:`run_probe`."""
    return _sweep.run_sweep(cfg, plan, progress=progress, display=Progress)
