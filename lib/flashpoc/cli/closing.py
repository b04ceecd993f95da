"""What ``flashpoc run`` says after a phase and at the end, read from the stored results: the check's
verdict, the probe's answer and the closing summary (the face's words: it reads the phases' results)."""

from __future__ import annotations

import textwrap

import pandas as pd

from flashpoc.campaign import check
from flashpoc.campaign.probe_words import probe_answer_text
from flashpoc.campaign.results import load_results
from flashpoc.core.store import CampaignStore
from flashpoc.present.progress import steadiness_line, summary_lines


HOST_VERDICTS = {"hosts": "the load hosts are the limit, not the array", "array": "the array is the limit",
                 "unclear": "not clear"}


def check_lines(cfg) -> list[str]:
    """The environment check's verdict, its counts and each warning or failure (check.csv)."""
    table = pd.read_csv(cfg.resolved().results_path() / "check.csv", dtype=str, keep_default_na=False)
    counts = table["status"].value_counts()
    verdict = {"pass": "pass", "warn": "pass with warnings", "fail": "FAIL"}[check.verdict(table)]
    lines = [f"verdict: {verdict} ({', '.join(f'{counts.get(s, 0)} {s}' for s in ('pass', 'warn', 'fail'))})"]
    lines += [f"  {r.status}: {r.host} / {r.check}: {r.detail}" for r in table.itertuples(index=False)
              if r.status in ("warn", "fail")]
    return lines


def probe_lines(cfg) -> list[str]:
    """The probe's answer (:func:`flashpoc.phases.probe_answer_text`, as notebook 02 and the report
    state it) and its verdict on hosts or array (probe.json of the current settings)."""
    probe = CampaignStore(cfg.resolved().results_path()).current_probe(cfg.resolved().measurement_hash())
    if probe is None:
        return []
    answer = probe.get("answer") or probe_answer_text(probe)  # the same words as notebook 02 and the report
    lines = textwrap.wrap(f"probe: {answer}", width=90, subsequent_indent="  ")
    limit = probe.get("host_limit")
    if limit:
        lines.append(f"hosts or array: {HOST_VERDICTS.get(limit.get('verdict'), 'not clear')}")
        lines += [f"  - {sign}" for sign in limit.get("signs", [])]
        if limit.get("suggestion"):
            lines.append(f"  {limit['suggestion']}")
    return lines


def closing_summary(cfg, width: int = 100, *, reported: bool = True) -> list[str]:
    """What a batch run ends with: :func:`summary_lines`, the probe's answer and verdict, the
    points that were not steady, and where the report is (``reported``: written by this run, else
    said to be older). Empty without sweep points."""
    cfg = cfg.resolved()
    points = load_results(cfg, "sweep")
    if points.empty:
        return []
    lines = [f"Summary of {cfg.campaign}:"]
    if "iops" in points:  # an engine whose points are not I/O (HammerDB's NOPM): its probe and report say it
        lines = summary_lines(points, cfg.campaign, cfg.slo_ms, width)
    lines += ["", *probe_lines(cfg), steadiness_line(points)]
    report = cfg.results_path() / "report" / "report.html"
    if report.exists():
        lines.append(f"report: {report}" if reported else
                     f"report (of an earlier run: `flashpoc run --phases report` brings it up to date): {report}")
    return lines
