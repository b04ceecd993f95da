"""The engine interface the phases call (as papermill's engines and asv's environments): an engine
is a subclass of :class:`Engine` registered by name (:mod:`flashpoc.engines`); the probe, sweep
and report code asks it, never compares the engine's name."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from flashpoc.params import Campaign, HostParams
    from flashpoc.core.records import Measured, PointSpec
    from flashpoc.core.views import ReportView
    from flashpoc.hosts.workbench import Workbench


class LazyModule:
    """A module imported when first used: an engine object is loaded to validate parameters,
    which must not import the engine's planner or its host I/O (``tests/engines/test_engines.py``)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)


@dataclass(frozen=True)
class OwnSteadiness:
    """An engine's own rule that ends a point once it is steady (fio's ``steadystate``), as the
    report's steady-state section says it (:meth:`Engine.own_steadiness`)."""

    #: the rule's name in a sentence ("fio's own steadystate")
    rule: str
    #: the row's column holding the rule's criterion where the rule ended the point
    column: str
    #: what a criterion is, in words
    criterion: str
    #: the row's column saying whether the point attained it
    attained: str = "steadystate_attained"


class Engine:
    """One engine: what it measures, how long a point takes and how its points are run.

    The defaults are those of an engine that measures one point (a workload at a thread count) at
    a time on every host and writes the campaign's targets with its own data.
    """

    #: the name in the parameters (``engine:``) and in every row
    name: ClassVar[str] = ""
    #: the pydantic model of its settings (``engine: {name: {...}}``; see :mod:`flashpoc.params`)
    settings_model: ClassVar[type]
    #: campaign keys a manifest of this engine leaves out (keys the schema refuses with the engine)
    manifest_exclude: ClassVar[frozenset[str]] = frozenset()
    #: the title of the report's chart of the rate steps
    rate_curve_title: ClassVar[str] = "Rate curve: mean latency at each requested I/O rate"
    #: the hosts a campaign of this engine has when the parameters name none (empty: hosts are required)
    default_hosts: ClassVar[tuple[dict[str, Any], ...]] = ()

    def data_elsewhere(self, cfg: Campaign) -> str | None:
        """Where the engine's data lives when it is not the campaign's targets, in words for a refusal
        ("its data is the database's"): the engine then writes no target (no safety gate, scratch file,
        fill or write round, and the parameters refuse what would write one); None, by default: it
        reads and writes the campaign's targets, of which it needs one at least."""
        return None

    def rate_curve_refusal(self, cfg: Campaign) -> str | None:
        """Why the engine cannot run ``sweep.plan: rate-curve`` (the parameters refuse it with these
        words), or None when it runs rate-controlled points (specs with ``rate``,
        :class:`flashpoc.core.records.PointSpec`, or its own curve: :meth:`phase_rate_steps`)."""
        return "does not control its I/O rate; rate-curve needs one that does"

    def database_metrics(self, cfg: Campaign) -> str | None:
        """The database's own statistics its rows carry, as the report names them ('AWR'): the report
        then draws the database's latencies and its host's CPU rather than the load hosts'; None, by
        default: its rows are the load hosts' I/O."""
        return None

    def hashed_database(self, cfg: Campaign) -> dict[str, Any]:
        """The ``database`` keys that define the engine's points (what a point's time series counts),
        which the measurement hash takes in the engine's own block, as when they were its keys
        (SLOB's ``datafiles`` and ``nfs_mounts``); none by default."""
        return {}

    def skipped_text(self, cfg: Campaign, phase: str) -> str | None:
        """Markdown saying that ``phase`` (probe, sweep) was skipped and why, or None when it runs (an
        engine that measures no points of the hosts' I/O, a DBA's job, skips both: the probe and sweep
        notebooks say so and the report is its :meth:`report_view`)."""
        return None

    # -- parameters (:class:`flashpoc.params.Campaign` calls these) --------------------------
    def check_params(self, cfg: Campaign, host_names: set[str]) -> None:
        """Refuse parameters this engine cannot run, with a ValueError naming the key (the schema
        turns it into one clear line)."""

    def param_warnings(self, cfg: Campaign) -> list[str]:
        """What the engine finds worth a warning in valid parameters, one line each starting with the
        key (:attr:`flashpoc.params.Campaign.warnings`)."""
        return []

    def direct_io(self, cfg: Campaign) -> bool:
        """True when the engine's I/O bypasses the hosts' page cache (the check warns otherwise)."""
        return True

    def workloads(self, cfg: Campaign) -> list:
        """The campaign's workloads for this engine."""
        return cfg.workloads

    def path_hosts(self, cfg: Campaign) -> list[HostParams]:
        """The hosts the paths of its settings live on (:func:`flashpoc.params.paths.path_values`):
        every host, by default."""
        return list(cfg.hosts)

    # -- the environment check (:func:`flashpoc.campaign.check.check_environment` calls these) ------------
    def check_host(self, campaign: Campaign, host: str, host_params: HostParams, facts: dict[str, Any]) -> list:
        """Rows of the engine's own checks of one load host, from the host's facts."""
        return []

    def check_campaign(self, campaign: Campaign, facts_by_host: dict[str, Any], connect: Any) -> list:
        """The campaign-level rows: the targets over every host, then the database when there is one."""
        from flashpoc.engines.checks import check_database, evaluate_campaign

        rows = evaluate_campaign(campaign, facts_by_host)
        if campaign.oracle is not None:
            rows += check_database(campaign)
        return rows

    def database_host(self, campaign: Campaign) -> HostParams | None:
        """The database's own host when ``database.host`` does not name it, where the check reads its
        storage path (:mod:`flashpoc.hosts.dbstorage`); None: the engine does not know it."""
        return None

    #: how the database rows of :meth:`check_database_facts` name the data the load reads (the fields
    #: of :class:`flashpoc.oracle.checks.DataWords`); an engine whose data is its own names it (SLOB)
    database_words: ClassVar[dict[str, str]] = {
        "schemas": "the load's schemas", "listed": "the schemas seen here", "reads": "the database's reads"}

    def check_database_facts(self, campaign: Campaign, dbfacts: Any) -> list:
        """Rows of the database's facts: its own settings (no engine schema in it), the statistics row
        about the snapshots a ``sql_workload`` takes."""
        from flashpoc.oracle.checks import DataWords, evaluate_database_facts

        return evaluate_database_facts(dbfacts, words=DataWords(**self.database_words), host="database")

    def distribution_note(self, rows: Any) -> str:
        """Markdown for the report: what the latency distribution of this engine's detail points
        (``rows``, a DataFrame) rests on where the engine gives less than fio's bins; empty when it
        gives as much."""
        return ""

    #: the columns ``flashpoc parse ENGINE PATH --format table`` shows (key, header) of its rows
    parse_table_columns: ClassVar[list[tuple[str, str]]] = []
    #: what a point's ``threads`` count, in the report's words
    threads_word: ClassVar[str] = "threads"
    #: the row's column whose plateau the probe looks for, and its name in words
    rate_column: ClassVar[str] = "iops"
    rate_word: ClassVar[str] = "IOPS"
    #: the row's latency (ms) the probe and the knee weigh
    latency_column: ClassVar[str] = "lat_mean_ms"

    #: what the intervals before a point's measured ones are, for the interval chart's subtitle
    #: (:func:`flashpoc.present.chart.detail.interval_series`); "" when the engine's series have none
    warm_up_note: ClassVar[str] = ""

    #: the engine's own terms the report's glossary explains ((term, meaning), after the common ones)
    glossary: ClassVar[tuple[tuple[str, str], ...]] = ()

    def own_steadiness(self) -> OwnSteadiness | None:
        """The engine's own rule that ends a point once steady, whose verdicts its rows carry; None
        (the default): the loop's rules alone (scatter and drift, SNIA PTS) judge its points."""
        return None

    def host_shares_text(self, hosts: Any) -> str | None:
        """Markdown for the report's load hosts section (``hosts``: each host's share of the IOPS at
        the busiest points, :func:`flashpoc.analysis.hostlimit.busiest_points`): what the shares
        should be when the engine does not run the same threads on every host; None (the default):
        the report says they should be equal."""
        return None

    def interval_note(self, points: Any) -> str:
        """What the time series of the engine's detail ``points`` (a DataFrame) count, for the interval
        chart's subtitle, when it is not the engine's own I/O ("" by default)."""
        return ""

    def workload_text(self, row: dict[str, Any]) -> str | None:
        """What the workload of ``row`` does, in words, when the engine's workloads are not an I/O mode
        and a block size (SLOB's mix of updates and scans); None: the report says the I/O mode."""
        return None

    def read_output(self, path: Any) -> tuple[Any, list[dict[str, Any]]]:
        """One recorded output of the engine (``flashpoc parse``): the whole parse as JSON shows it
        and its rows.

        Raises:
            ParameterError: ``path`` is not such an output.
            ParseError: it cannot be read.
        """
        raise NotImplementedError

    # -- the report's words (:mod:`flashpoc.present.document` calls these) -------------------------
    #: the host fact (:func:`flashpoc.hosts.facts.collect_host_facts`) holding the engine's version, if any
    host_version_fact: ClassVar[str | None] = None
    #: what a point's numbers are, for the report's method section ("" when the defaults say it)
    method_note: ClassVar[str] = ""

    def describe(self, cfg: Campaign, version: str, points: Any) -> str:
        """The engine and its ``version`` as the report names them ('fio 3.33 (libaio, direct I/O)')."""
        return f"{self.name} {version}"

    def check_versions(self, check: Any) -> dict[str, str]:
        """The engine's version on each host as the check table ``check`` found it (the manifest's
        ``engine_versions``): by default the values of the rows named after the engine (fio's)."""
        if check.empty or "check" not in check:
            return {}
        return {str(r.host): str(r.value) for r in check[check["check"] == self.name].itertuples()}

    def recorded_version(self, check: Any) -> str | None:
        """The engine's version as the check table ``check`` recorded it, when the manifest has none."""
        return None

    def point_length_text(self, cfg: Campaign, runtime: str) -> str:
        """How long each point ran (``runtime``: the rows' measured seconds in words) and what preceded it."""
        return f"{runtime}."

    def interval_text(self, cfg: Campaign, min_intervals: int) -> str:
        """The time series of a point in words (a steady-state verdict needs ``min_intervals``)."""
        return "none."

    def averaged_text(self, cfg: Campaign, points: Any) -> str:
        """What a point's numbers average, as the engine's own output says it of the stored ``points``
        ("" when the point length says it: the measured seconds after the warm-up)."""
        return ""

    def point_tables(self, points: Any) -> list:
        """Tables of the engine's own numbers per point for the report's appendix
        (:class:`flashpoc.core.tables.Table`; none by default: the table of every point has the common ones)."""
        return []

    def own_data_text(self, cfg: Campaign) -> str | None:
        """The data the engine reads when it is not the campaign's targets (SLOB's schemas), else None."""
        return None

    def own_data_bytes(self, cfg: Campaign) -> int | None:
        """The bytes of that data (:meth:`own_data_text`) when known, else None."""
        return None

    # -- points ---------------------------------------------------------------------------
    def point_runtime_s(self, cfg: Campaign) -> int:
        """Measured seconds of a point unless the phase says otherwise."""
        raise NotImplementedError

    def point_seconds(self, cfg: Campaign, runtime_s: int) -> int:
        """Seconds of I/O one point of ``runtime_s`` measured seconds takes (ramp or warm-up included)."""
        return runtime_s

    def outstanding_per_thread(self, cfg: Campaign) -> int:
        """I/Os in flight per thread on one load host."""
        return 1

    def steadiness(self, cfg: Campaign, runtime_s: int) -> tuple[str, int] | None:
        """The criterion and window (s) that end a point once its IOPS are steady, or None for points
        of fixed length (engines without such a criterion)."""
        return None

    def remeasures_unsteady(self, cfg: Campaign, steady: tuple[str, int] | None) -> bool:
        """True when a probe point that did not become steady may be measured again (``steady``: the
        probe's criterion, :meth:`steadiness`, or None)."""
        return False

    def probe_batches(self, counts: list[int]) -> list[list[int]]:
        """The linear probe's ``counts`` as the engine measures them, one list per invocation: one count
        at a time by default (an engine that measures a list of counts in one invocation: one list)."""
        return [[t] for t in counts]

    def probe_rounds(self, stepper: Any, measured: Callable[[], list], bar: Any) -> Iterator[list[int]]:
        """The adaptive probe's rounds (``stepper``: :class:`flashpoc.analysis.AdaptiveProbe`), one list
        of counts per invocation, each chosen from the points measured so far (``measured()``): by
        default one count at a time, as the stepper picks it (``bar``: the progress, whose bound an
        engine measuring rounds grows)."""
        while (threads := stepper.next_threads(measured())) is not None:
            yield [threads]

    def point_definition(self, wb: Workbench, spec: PointSpec) -> dict[str, Any]:
        """Everything that defines the point ``spec``: its hash names the point on disk
        (:func:`flashpoc.engines.loop.point_id`), so a point of another definition is measured anew."""
        raise NotImplementedError

    def probe_latency_column(self, cfg: Campaign) -> str:
        """The row's column the probe weighs as latency (:attr:`latency_column`; HammerDB's fixed
        work, which has no response times, its completion time)."""
        return self.latency_column

    def reusable(self, wb: Workbench, phase: str, key: str, row: dict[str, Any]) -> bool:
        """Whether the stored ``row`` of the point ``key`` stands for a measurement now (by default
        any stored point does). An engine whose parameters can refuse a stored point (HammerDB's
        ``max_errors``) says no, and the loop measures it again."""
        return True

    def storage_keys(self, wb: Workbench, specs: list[PointSpec]) -> list[str]:
        """The id each spec is stored under: its point id (by default from :meth:`point_definition`),
        or the id of the group it is measured and stored in (an engine that stores the points of one
        invocation together, :meth:`save_rows`)."""
        from flashpoc.engines.loop import point_id

        return [point_id(spec, self.point_definition(wb, spec)) for spec in specs]

    def stored_rows(self, wb: Workbench, spec: PointSpec, key: str) -> list[dict[str, Any]] | None:
        """The stored rows of the unit ``key`` (:meth:`storage_keys`) that ``spec`` is measured in, or
        None when it is not stored: by default its one point (:func:`flashpoc.engines.loop.stored_point`)."""
        from flashpoc.engines.loop import stored_point

        return stored_point(wb, self, spec, key)

    def save_rows(self, wb: Workbench, phase: str, result: Measured) -> None:
        """Store the measured unit ``result`` of ``phase``: by default its one point (an engine that
        stores the points of one invocation together: its group, vdbench's thread list)."""
        (row,) = result.rows
        wb.store.save_point(phase, result.key, row, dict(result.raw))

    def run_points(self, wb: Workbench, specs: list[PointSpec], keys: list[str], bar: Any = None
                   ) -> Iterator[Measured]:
        """Measure ``specs`` (none of them stored; ``keys``: their :meth:`storage_keys`), yielding
        each point's (or group's) rows and raw files as soon as it is done: the loop
        (:func:`flashpoc.engines.loop.measure`) stores each before the next is measured."""
        raise NotImplementedError

    def measure_point(self, wb: Workbench, phase: str, workload: Any, threads: int, *, runtime_s: int,
                      repeat: int = 0, steady: tuple[str, int] | None = None) -> dict[str, Any]:
        """Measure one point (or reuse it when stored) through the loop and return its row."""
        from flashpoc.core.records import PointSpec
        from flashpoc.engines.loop import measure_one

        return measure_one(wb, PointSpec(phase, workload, threads, runtime_s, repeat=repeat, steady=steady))

    def create_scratch(self, wb: Workbench, host_params: HostParams, scratch: list, short: list
                       ) -> list[dict[str, Any]]:
        """Create the scratch-file targets ``scratch`` of ``host_params`` that need it (``short``:
        missing or too small); what was done, one dict per target."""
        return []

    # -- the precondition (:mod:`flashpoc.campaign.precondition` calls these) ---------------------------
    def fill_data(self, cfg: Campaign) -> str | None:
        """What the engine's fill writes (its data pattern and reducibility, in the engine's own
        words), or None when the engine cannot fill targets."""
        return None

    def fill_targets(self, wb: Workbench, host_params: HostParams, targets: list, sizes: dict[str, int]
                     ) -> dict[str, dict[str, Any]]:
        """Fill ``targets`` of one host once, sequentially from start to end of each working set
        (``sizes``: bytes per target name) with the campaign's data; per target name, what the
        engine's own output says: ``written_bytes``, ``block_bytes``, ``seconds`` and ``output``
        (the stored output's path in the campaign)."""
        raise NotImplementedError

    def measure_round(self, wb: Workbench, workload: Any, threads: int, runtime_s: int, round_no: int
                      ) -> dict[str, Any]:
        """One round of the write workloads' preconditioning (round ``round_no``, from 0), stored (or
        reused when stored) as a point of the phase ``precondition``; its row."""
        return self.measure_point(wb, "precondition", workload, threads, runtime_s=runtime_s, repeat=round_no)

    def measure_longer(self, wb: Workbench, phase: str, workload: Any, threads: int, runtime_s: int
                       ) -> dict[str, Any]:
        """A point of ``phase`` measured again for ``runtime_s`` seconds, ended the way the phase ends
        its points (a point extended until steady, :mod:`flashpoc.campaign.extend`), stored (or reused); its row."""
        from flashpoc.engines.loop import point_steadiness

        return self.measure_point(wb, phase, workload, threads, runtime_s=runtime_s,
                                  steady=point_steadiness(wb.cfg, phase, runtime_s))

    def first_host(self, wb: Workbench) -> str | None:
        """The host that stays when the probe's plateau is measured again on fewer hosts; None when the
        engine's plateau is not measured on fewer hosts (SLOB: one database host; HammerDB: every load
        host drives the one database)."""
        return wb.cfg.hosts[0].name

    def linear_probe_threads(self, cfg: Campaign) -> list[int]:
        """The thread counts of the linear probe."""
        from flashpoc.analysis import linear_probe_threads

        probe = cfg.probe
        return linear_probe_threads(probe.min_threads, probe.max_threads, probe.step)

    def measure_on_fewer_hosts(self, sub: Workbench, cfg: Campaign, workload: Any, threads: int, runtime_s: int,
                               steady: tuple[str, int] | None) -> list[dict[str, Any]]:
        """The probe's plateau (``threads`` per host of the whole campaign ``cfg``) measured on the
        fewer hosts of ``sub`` with the same outstanding I/Os per host."""
        return [self.measure_point(sub, "probe", workload, threads, runtime_s=runtime_s, steady=steady)]

    def phase_rate_steps(self, cfg: Campaign) -> list[float]:
        """The rate-curve steps (% of the uncontrolled maximum, ``sweep.rate_steps``) the sweep measures
        as points of their own (:func:`flashpoc.campaign.ratecurve.measure_rate_curves`), each once; none
        when the engine runs the curve in its own invocations (vdbench's ``iorate=curve``)."""
        return cfg.sweep.rate_steps

    def points_per_count(self, cfg: Campaign) -> int:
        """Rows a sweep measures per planned thread count (the rate-curve plan: its maximum, then each rate)."""
        return 1 + len(cfg.sweep.rate_steps)

    def report_view(self, cfg: Campaign, points: Any) -> ReportView | None:
        """The engine's own report as data (:class:`flashpoc.core.views.ReportView`: its words, tables,
        charts' series and names), which the present layer draws and writes; None for the storage
        report. ``points``: the sweep's (with ``config`` when campaigns are compared), or None when the
        engine skips the sweep (:meth:`skipped_text`). A job run by another engine's campaign (a DBA's
        job: ``sql_workload``) is asked too, with None, for the sections it adds to that report
        (:attr:`flashpoc.core.views.ReportView.within`)."""
        return None

    def close(self, wb: Workbench) -> None:
        """Stop what the engine left running for the campaign ``wb`` (fio: its servers), when the
        campaign closes (:meth:`flashpoc.hosts.workbench.Workbench.close`, before the host connections close
        and the campaign is released, which happen even when this fails); by default nothing."""

    def wait_histogram(self, point_dir: Any, event: str) -> list[dict[str, Any]]:
        """A database wait event's histogram per bucket from a stored point's files
        (:func:`flashpoc.oracle.awr_metrics.histogram_buckets` rows); ``[]`` for engines that read no AWR."""
        return []


def database_versions(check: Any) -> dict[str, str]:
    """The database's version by host, from the check's ``database`` rows: the version of an engine
    whose numbers are the database's (SLOB, a DBA's job)."""
    if check.empty or "check" not in check:
        return {}
    return {str(r.host): str(r.value) for r in check[check["check"] == "database"].itertuples()}
