"""Every rule an engine enforces on the parameters alone is validation's (issue 28): for generated
campaigns of each engine, either the schema refuses them in one line naming the key, or every plan
the phases render from them (fio's job files, vdbench's parmfiles and ssh config, SLOB's slob.conf,
HammerDB's Tcl scripts) renders without a ParameterError or ValueError. The values are drawn on
both sides of each rule the plans check (vdbench's timings and names, a path with ',', a host
without a target, virtual users past HammerDB's bound, slob.conf's ranges)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashpoc.engines.fio import plan as fio_plan
from flashpoc.engines.hammerdb.plan import build_script, check_script, run_script
from flashpoc.engines.slob.measure import point_conf
from flashpoc.engines.vdbench.measure import run_definition
from flashpoc.engines.vdbench.plan import render_fill_parmfile, render_parmfile, probe_run, ssh_config
from flashpoc.core.errors import ParameterError
from flashpoc.params import campaign_from_dict
from flashpoc.analysis.sweep_plan import plan_sweep
from flashpoc.engines.loop import probe_runtime_s, sweep_runtime_s

RUNS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Tally:
    """How many generated campaigns were refused and how many rendered: a test whose campaigns are
    all refused (or all accepted) proves nothing, so each test asserts both happened."""

    def __init__(self) -> None:
        self.refused, self.rendered = 0, 0

    def validate(self, values: dict):
        try:
            cfg = campaign_from_dict(values, source="p.yaml")
        except ParameterError as error:
            assert "\n" not in str(error) and str(error).startswith("invalid parameters in p.yaml: ")
            self.refused += 1
            return None
        return cfg

    def check(self) -> None:
        assert self.refused >= 5 and self.rendered >= 5, (self.refused, self.rendered)


def mostly(good: list, bad: list) -> st.SearchStrategy:
    """One of ``good`` nine times in ten, else one of ``bad`` (a rule broken)."""
    return st.sampled_from(good * 9 * max(1, len(bad)) + bad * len(good))


def _hosts(draw, names: st.SearchStrategy, addresses: list[str], **optional) -> list[dict]:
    hosts = draw(st.lists(st.fixed_dictionaries({"name": names, "address": st.sampled_from(addresses)},
                                                optional=optional),
                          min_size=1, max_size=3, unique_by=lambda h: h["name"]))
    return [{**h, "workdir": "/srv/poc/work"} for h in hosts]


def _targets(draw, hosts, names: st.SearchStrategy, paths: st.SearchStrategy, size: st.SearchStrategy) -> list[dict]:
    host_names = [h["name"] for h in hosts]
    target = st.fixed_dictionaries(
        {"name": names, "path": paths, "size": size},
        optional={"create": st.booleans(), "allow_write": st.booleans(),
                  "hosts": st.lists(st.sampled_from(host_names), min_size=1, max_size=len(host_names), unique=True)})
    return [{k: v for k, v in t.items() if v is not None}
            for t in draw(st.lists(target, min_size=1, max_size=3, unique_by=lambda t: t["name"]))]


def _workloads(draw, names) -> list[dict]:
    workload = st.fixed_dictionaries(
        {"name": st.sampled_from(names), "rw": st.sampled_from(["randread", "randwrite", "read", "write"])},
        optional={"bs": st.sampled_from(["4k", "8k", "128k"]), "iodepth": st.sampled_from([1, 1, 4]),
                  "seekpct": st.sampled_from([0.1, 100.0, "eof"]), "skew": st.sampled_from([100.0, 50.0])})
    return draw(st.lists(workload, min_size=1, max_size=3, unique_by=lambda w: w["name"]))


def _phases(draw, most: int = 8, runtime=st.none() | st.integers(1, 30)) -> dict:
    low = draw(st.integers(1, most))
    return {"probe": {"strategy": draw(st.sampled_from(["adaptive", "linear"])), "min_threads": low,
                      "max_threads": draw(st.integers(low, most)), "runtime_s": draw(runtime)},
            "sweep": {"max_threads": draw(st.integers(1, most)), "step": 1, "runtime_s": draw(runtime)},
            "precondition": {"round_s": draw(runtime), "write_rounds": draw(st.sampled_from([0, 1]))}}


# -- vdbench ----------------------------------------------------------------------------

@st.composite
def vdbench_campaigns(draw) -> dict:
    hosts = _hosts(draw, mostly(["local", "h1", "h2", "h3", "h4"], ["default"]),
                   ["localhost", "10.0.0.1", "10.0.0.2", "srv1"], port=mostly([22], [2222]),
                   vdbench=mostly(["/opt/vdbench"], ["/opt/vd,bench", "opt/vdbench"]))
    for host in hosts:  # a remote slave's user (vdbench's ssh -l USER)
        user = draw(mostly(["root", "poc"], [None]))
        host.update({"user": user} if user else {})
    targets = _targets(draw, hosts, mostly(["sd1", "sd2", "sd3", "sd4", "lun1", "lun2"], ["default", "concat", "100g"]),
                       mostly(["/dev/sdb", "/dev/sdc", "/srv/poc/a.dat", "/srv/poc/b.dat", "scratch/c.dat"],
                              ["/srv/poc/a,b.dat", "/srv/poc/a=b.dat"]), mostly(["1g", "512m"], [None]))
    vd = {"elapsed_s": draw(mostly([10, 20, 30], [1, 3, 7])), "interval_s": draw(mostly([1, 5], [2, 3, 4])),
          "warmup_s": draw(mostly([None, 0, 10], [1, 3])), "openflags": draw(mostly(["o_direct"], [None])),
          "shell": draw(st.sampled_from(["ssh", "vdbench"])),
          "controller_address": draw(mostly([None, "10.0.0.9"], ["224.0.0.5", "255.255.255.255"]))}
    workloads = draw(st.lists(st.fixed_dictionaries(
        {"name": mostly(["wd1", "wd2", "wd3"], ["default", "4k"]),
         "rw": st.sampled_from(["randread", "randwrite", "read", "write"])},
        optional={"bs": st.sampled_from(["4k", "8k", "128k"]), "iodepth": mostly([1], [4]),
                  "seekpct": st.sampled_from([0.1, 100.0, "eof"]), "skew": mostly([100.0], [50.0])}),
        min_size=1, max_size=3, unique_by=lambda w: w["name"]))
    phases = _phases(draw, runtime=mostly([None, 10, 20, 60], [3, 7, 1]))
    return {"campaign": "gen", "engine": {"vdbench": vd}, "hosts": hosts, "targets": targets, "workloads": workloads,
            **phases}


def render_vdbench(cfg) -> None:
    """The parmfiles the check and every phase write (the check's with every workload, each
    invocation's with its own, as :func:`flashpoc.engines.vdbench.measure.parmfile_for`), the fill's
    per host and the ssh config."""
    cfg = cfg.resolved()

    def parmfile_for(cfg, rd):
        return render_parmfile(cfg, [rd.workload], rd)

    render_parmfile(cfg, [w.name for w in cfg.workloads], probe_run(cfg))  # the check's vdbench -s
    for phase, workloads, runtime in (("probe", [cfg.probe_workload], probe_runtime_s(cfg)),
                                      ("sweep", cfg.sweep_workloads, sweep_runtime_s(cfg))):
        for workload in workloads:
            parmfile_for(cfg, run_definition(cfg, phase, workload, [1, 2], runtime))
    for workload in (w for w in cfg.workloads if w.writes):
        round_s = cfg.precondition.round_s or cfg.settings.elapsed_s
        parmfile_for(cfg, run_definition(cfg, "precondition", workload, [cfg.precondition.threads], round_s))
        parmfile_for(cfg, run_definition(cfg, "sweep", workload, [3], 4 * sweep_runtime_s(cfg)))  # a longer run
    for host in cfg.hosts:
        written = [t for t in cfg.targets_of(host) if t.writable]
        if written:
            render_fill_parmfile(cfg, written, {t.name: 1024**3 for t in written})
    ssh_config(cfg)


def test_a_vdbench_campaign_that_validates_renders_every_parmfile():
    tally = Tally()

    @RUNS
    @given(values=vdbench_campaigns())
    def run(values):
        cfg = tally.validate(values)
        if cfg is not None:
            render_vdbench(cfg)
            tally.rendered += 1

    run()
    tally.check()


# -- fio --------------------------------------------------------------------------------

@st.composite
def fio_campaigns(draw) -> dict:
    hosts = _hosts(draw, st.sampled_from(["h1", "h2", "h3"]), ["localhost", "10.0.0.1", "srv2"])
    fio = {"runtime_s": draw(st.integers(1, 30)), "multi_host": draw(st.sampled_from(["client-server", "per-host"]))}
    fio |= draw(st.sampled_from([{}, {"steadystate": "iops_slope:0.3%"}, {"ss_dur_s": 20},
                                 {"steadystate": "iops:3%", "ss_dur_s": 5, "ss_ramp_s": 2}]))
    return {"campaign": "gen", "engine": {"fio": fio}, "hosts": hosts,
            "targets": _targets(draw, hosts, st.sampled_from(["lun1", "lun2", "f1"]),
                                st.sampled_from(["/dev/sdb", "/dev/sdc", "/srv/poc/a.dat"]), mostly(["1g"], [None])),
            "workloads": _workloads(draw, ["r1", "w1", "s1"]), **_phases(draw)}


def render_fio(cfg) -> None:
    """Each host's job of every workload (a rate step's too), its fill and its scratch files' layout."""
    cfg = cfg.resolved()
    for host in cfg.hosts:
        targets = cfg.targets_of(host)
        for workload in cfg.workloads:
            fio_plan.render_job(cfg, workload, cfg.probe.max_threads, targets, runtime_s=probe_runtime_s(cfg),
                                host=host.name, steady=fio_plan.until_steady(cfg.settings, probe_runtime_s(cfg)))
            fio_plan.render_job(cfg, workload, 1, targets, rate_iops=1000)
        written = [t for t in targets if t.writable]
        if written:
            fio_plan.render_fill_job(cfg, written, {t.name: t.size_bytes or 1024**3 for t in written})
        for target in (t for t in targets if t.create):
            fio_plan.render_layout_job(target, cfg.settings)


def test_a_fio_campaign_that_validates_renders_every_job_file():
    tally = Tally()

    @RUNS
    @given(values=fio_campaigns())
    def run(values):
        cfg = tally.validate(values)
        if cfg is not None:
            render_fio(cfg)
            tally.rendered += 1

    run()
    tally.check()


# -- SLOB -------------------------------------------------------------------------------

@st.composite
def slob_campaigns(draw) -> dict:
    workload = st.fixed_dictionaries(
        {"name": st.sampled_from(["s1", "s2"]), "update_pct": st.integers(0, 100)},
        optional={"scan_pct": st.integers(0, 100), "scan_table_sz": st.sampled_from(["1M", "50G", "0G", "8K"]),
                  "work_unit": st.integers(1, 256), "redo_stress": st.sampled_from(["LITE", "HEAVY"])})
    slob = {"schemas": draw(st.integers(1, 8)), "scale": draw(st.sampled_from(["8G", "655360M", "1024"])),
            "run_time_s": draw(st.integers(10, 600)), "work_loop": draw(st.sampled_from([0, 0, 5])),
            "workloads": draw(st.lists(workload, min_size=1, max_size=2, unique_by=lambda w: w["name"]))}
    slob |= draw(st.fixed_dictionaries({}, optional={
        "think_tm_min": st.sampled_from([0.0, 0.1, 2.0]), "think_tm_max": st.sampled_from([0.0, 0.5, 1.0]),
        "admin_sqlnet_service": st.sampled_from(["slob", "db1:1521/slob", "slob svc", "$x"]),
        "dba_priv_user": st.sampled_from(["system", "sys'"]), "sysdba_passwd_env": st.sampled_from(["PW", "pass word"]),
        "hotspot_mb": st.integers(0, 64), "do_hotspot": st.booleans()}))
    return {"campaign": "gen", "engine": {"slob": slob}, "hosts": [{"name": "db1", "address": "localhost"}],
            **_phases(draw, runtime=st.none() | st.integers(1, 900))}


def test_a_slob_campaign_that_validates_renders_every_slob_conf():
    tally = Tally()

    @RUNS
    @given(values=slob_campaigns())
    def run(values):
        values["precondition"].pop("write_rounds")  # no target: a round is refused (tests/cli)
        cfg = tally.validate(values)
        if cfg is not None:
            for workload in cfg.engine_workloads:
                for threads, runtime in ((cfg.probe.max_threads, cfg.probe.runtime_s),
                                         (cfg.sweep.max_threads, cfg.sweep.runtime_s)):
                    point_conf(cfg, workload, threads, runtime)
            tally.rendered += 1

    run()
    tally.check()


# -- HammerDB ---------------------------------------------------------------------------

@st.composite
def hammerdb_campaigns(draw) -> dict:
    database = draw(st.sampled_from(["postgresql", "oracle"]))
    hammerdb = {"database": database, "password_env": "P", "superuser_password_env": "S", "warehouses": 10}
    if database == "oracle":
        hammerdb["service"] = "db1:1521/PDB1"
    hammerdb |= draw(st.fixed_dictionaries({}, optional={
        "host": st.sampled_from(["db1", "db1:5433", "10.0.0.5"]), "port": st.sampled_from([5432, 5433]),
        "dbname": st.sampled_from(["tpcc", "tpcc2"]), "build_schema": st.booleans()}))
    counts = st.sampled_from([1, 4, 96, 9000, 9700, 9999, 10_000, 10_001, 20_000])
    most = draw(counts)
    sweep = {"max_threads": draw(st.none() | counts), "extend_pct": draw(st.sampled_from([0, 0, 3, 25, 400])),
             "step": draw(st.none() | st.sampled_from([7, 100]))}
    phases = {"probe": {"strategy": draw(st.sampled_from(["adaptive", "linear"])), "min_threads": 1,
                        "max_threads": most, "step": max(1, most // 100),
                        "runtime_s": draw(st.sampled_from([None, None, 60]))}, "sweep": sweep}
    return {"campaign": "gen", "engine": {"hammerdb": hammerdb}, "hosts": [{"name": "load1", "address": "localhost"}],
            **phases}


def sweep_counts(cfg) -> set[int]:
    """The sweep's top count for each answer the probe may give near its max_threads (a sweep's top
    grows with the answer, give or take its step, at most 334: the largest is among the top
    answers), or for sweep.max_threads."""
    s = cfg.sweep
    top = cfg.probe.max_threads
    answers = [s.max_threads] if s.max_threads else range(max(1, top - 400), top + 1)
    return {plan_sweep(a, plan=s.plan, step=s.step, points=s.points, extend_pct=s.extend_pct)[-1] for a in answers}


def test_a_hammerdb_campaign_that_validates_renders_every_tcl_script():
    tally = Tally()

    @RUNS
    @given(values=hammerdb_campaigns())
    def run(values):
        cfg = tally.validate(values)
        if cfg is not None:
            for users in {cfg.probe.max_threads, *sweep_counts(cfg)}:
                run_script(cfg.settings, users)
            build_script(cfg.settings)
            check_script(cfg.settings)
            tally.rendered += 1

    run()
    tally.check()
