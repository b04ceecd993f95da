"""A campaign opened for a phase, and phase 1, the environment check.

:func:`open_campaign` opens a campaign for running: its parameters, its results store and its
lock, held by the :class:`~flashpoc.hosts.workbench.Workbench` in one :class:`contextlib.ExitStack`
(with the host connections it makes), so that whatever fails while opening or closing releases what
was opened. Here too are the check (:func:`run_check`), the manifest's parameters, the safety gate
run right before anything is written and the targets' sizes and preparation.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

import pandas as pd

from flashpoc.campaign import check, precondition, written
from flashpoc.core.errors import CheckFailed
from flashpoc.core.registry import default_engine, get_engine
from flashpoc.params import Campaign, check_results_dir, workbook_root
from flashpoc.hosts import host as hostlib
from flashpoc.hosts import safety
from flashpoc.hosts.facts import collect_host_facts
from flashpoc.hosts.workbench import Workbench
from flashpoc.hosts.paths import settle_campaign
from flashpoc.hosts.targets import target_sizes  # noqa: F401 - phases.target_sizes, as before
from flashpoc.core.store import CampaignStore, StoreError


def open_campaign(cfg: Campaign) -> Workbench:
    """Resolve relative paths, open the campaign's results directory and hold it for this run
    (:meth:`flashpoc.core.store.CampaignStore.lock`; released by :meth:`Workbench.close`).

    Raises:
        ParameterError: the results directory may not be written (:func:`flashpoc.params.check_results_dir`).
        StoreError: another process is running a phase of this campaign, or the directory
            holds another format's results.
    """
    cfg = cfg.resolved()
    with ExitStack() as opened:  # a failure before the Workbench holds them releases what was opened
        store = CampaignStore(check_results_dir(cfg))
        if (store.root / "manifest.json").exists():
            store.check_format()
        lock = store.lock()
        opened.enter_context(lock)
        return Workbench(cfg, store, lock=lock, opened=opened.pop_all())


# -- phase 1: environment check ------------------------------------------------------
def run_check(cfg: Campaign, *, connect=hostlib.connect) -> pd.DataFrame:
    """Check every host and target; store check.csv and the manifest; return the table.

    The table has one row per (host, check) with a ``status`` of pass, warn or fail; use
    :func:`flashpoc.campaign.check.require_pass` to stop before any I/O when something failed.
    """
    from flashpoc.campaign.environment import environment_section

    with open_campaign(cfg) as wb:
        table = check.check_environment(wb.cfg, connect=connect, left=written.left_records(wb.store))
        wb.store.write_table("check.csv", table)
        versions = wb.engine.check_versions(table)
        facts = table.attrs.get("facts") or {}
        wb.store.write_manifest(manifest_params(wb.cfg), wb.cfg.params_hash(), engine=wb.cfg.engine,
                                engine_versions=versions, host_facts=facts, workbook=workbook_root(),
                                environment=environment_section(facts, table.attrs.get("database_facts"),
                                                                table.attrs.get("database_storage")))
        wb.store.write_json("check.json", {"params_hash": wb.cfg.params_hash(), "verdict": check.verdict(table)})
        return table


def manifest_params(cfg: Campaign) -> dict[str, Any]:
    """The parameters as manifest.json stores them: every key, with its value or default, that
    :func:`campaign_from_manifest` reads back into the same campaign. A SLOB campaign's fio
    ``workloads`` are left out (SLOB's are ``slob.workloads``; the schema refuses both)."""
    return cfg.model_dump(mode="json", exclude=set(cfg.engine_object.manifest_exclude) or None)


def campaign_from_manifest(manifest: dict[str, Any], source: str) -> Campaign:
    """The campaign whose parameters ``manifest`` (manifest.json) records.

    Raises:
        ParameterError: the recorded parameters are not valid parameters (named by ``source``).
        KeyError: the manifest records no parameters.
    """
    from flashpoc.params import campaign_from_dict

    params = dict(manifest["params"])
    engine = manifest.get("engine") or params.get("engine") or default_engine()  # params: a name, or the engine block
    for key in get_engine(engine if isinstance(engine, str) else next(iter(engine), default_engine())).manifest_exclude:
        params.pop(key, None)  # manifests written before manifest_params held the fio default
    return campaign_from_dict(params, source=source)


def _require_checked(wb: Workbench) -> None:
    """Refuse to run I/O unless a passing check of these exact parameters is stored."""
    try:
        stored = wb.store.read_json("check.json")
    except StoreError:
        stored = None
    if not stored or stored.get("params_hash") != wb.cfg.params_hash():
        table = run_check(wb.cfg)
        check.require_pass(table)
    elif stored.get("verdict") == "fail":
        raise CheckFailed(f"the environment check of {wb.cfg.campaign} failed; see {wb.store.root / 'check.csv'} "
                          "and run the check again after fixing it")


def settle_paths(wb: Workbench) -> None:
    """Make every path of the parameters canonical on the host where it lives and judge it
    (:func:`flashpoc.hosts.paths.settle_campaign`) right before the phase writes anything (a symbolic
    link may have changed since the check); from then on the campaign and its host connections use
    each path as expanded on its host (``~`` and ``~user`` replaced), with the hashes of the
    parameters as given.

    Raises:
        CheckFailed: one line per refused path, each naming its key, before any I/O.
    """
    wb.cfg = settle_campaign(wb.cfg, {h.name: wb.host(h) for h in wb.cfg.hosts})
    for params in wb.cfg.hosts:
        wb.host(params).params = params  # the cached connection's workdir, fio and vdbench, as expanded


def safety_gate(wb: Workbench) -> None:
    """Probe every target the campaign may write, on every host that uses it, right before the
    phase writes anything: the check may be hours old, and a LUN may have been mapped, formatted
    or mounted since (see :mod:`flashpoc.hosts.safety`). Data the campaign left there itself is
    its own (:mod:`flashpoc.campaign.written`); what the phase leaves is recorded when it ends.

    Raises:
        CheckFailed: naming each host, target and what was found, before any I/O.
    """
    problems, passed = [], []
    left = written.left_records(wb.store)
    for host_params in wb.cfg.hosts:
        targets = [t for t in wb.cfg.targets_of(host_params) if wb.cfg.written(t)]
        if not targets:
            continue
        facts = written.with_left(collect_host_facts(wb.host(host_params), [t.path for t in targets])["targets"],
                                  left.get(host_params.name, {}))
        for target, target_facts in zip(targets, facts):
            found = safety.findings(target_facts)
            status, detail = check.write_verdict(wb.cfg, host_params.name, target, found)
            if status == "fail":
                problems.append(detail)
            passed.append(written.gated(host_params, target, target_facts, found))
    if problems:
        raise CheckFailed("nothing was written:\n- " + "\n- ".join(problems))
    wb.after_engine.append(lambda: written.record(wb, passed))


def prepare_targets(wb: Workbench) -> list[dict[str, Any]]:
    """Judge every path (:func:`settle_paths`) and check the targets the campaign writes
    (:func:`safety_gate`), then create the scratch-file
    targets that are missing or too small; return what was done.

    fio lays a scratch file out with its own job (its ``buffer_compress_percentage`` data);
    vdbench fills it with its own data of the campaign's ``compratio``/``dedupratio`` once,
    recorded (:func:`flashpoc.engines.vdbench.measure.fill_targets`), and again when those change.
    SLOB's data lives in the database (setup.sh loads it), so SLOB campaigns create nothing.
    With ``precondition.fill`` the scratch files are only made, then every target that allows it is
    filled once, recorded, and reads of unfilled targets are refused (:mod:`flashpoc.campaign.precondition`).
    """
    done: list[dict[str, Any]] = []
    engine = wb.engine
    settle_paths(wb)  # every engine writes job files in the workdirs
    if engine.data_elsewhere(wb.cfg) is not None:  # SLOB's, HammerDB's: the database's
        return done
    safety_gate(wb)
    for host_params in wb.cfg.hosts:
        scratch = [t for t in wb.cfg.targets_of(host_params) if t.create]
        if not scratch:
            continue
        sizes = target_sizes(wb.host(host_params), scratch)
        short = [t for t in scratch if not isinstance(sizes[t.path], int) or sizes[t.path] < t.size_bytes]
        done += (precondition.create_scratch if wb.cfg.precondition.fill else engine.create_scratch)(
            wb, host_params, scratch, short)
    return done + precondition.precondition_targets(wb)
