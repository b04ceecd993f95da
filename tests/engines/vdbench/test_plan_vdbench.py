"""vdbench parmfile planning: whole files against golden files, and the same definitions as the
POC guide's example and as the parmfiles of real vdbench runs (fixtures/vdbench)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import DATA, REPO
from flashpoc.core.errors import ParameterError
from flashpoc.params import campaign_from_dict, load_campaign
from flashpoc.analysis.sweep_plan import plan_sweep
from flashpoc.engines.vdbench.plan import (RunDefinition, data_text, fill_xfersize, format_threads, outstanding_ios, probe_run,
                                   render_fill_parmfile, render_parmfile, ssh_config, sweep_run, threads_per_host)

GOLDEN = DATA / "golden"

# The POC guide's parmfile (NetApp POC guide, vdbench example), and its follow-up rd after the probe.
GUIDE = """\
hd=hd1,system=srv1,user=root,shell=ssh,jvms=16
hd=hd2,system=srv2,user=root,shell=ssh,jvms=16
hd=hd3,system=srv3,user=root,shell=ssh,jvms=16
hd=hd4,system=srv4,user=root,shell=ssh,jvms=16
hd=hd5,system=srv5,user=root,shell=ssh,jvms=16
sd=sd1,lun=/dev/mapper/360080e500029b3c800002f25553218d7,size=250g,openflags=o_direct
sd=sd2,lun=/dev/mapper/360080e500029b3c800002f26553218e8,size=250g,openflags=o_direct
sd=sd3,lun=/dev/mapper/360080e500029b3c8000030275536959d,size=250g,openflags=o_direct
sd=sd4,lun=/dev/mapper/360080e500029b3c800003028553695b4,size=250g,openflags=o_direct
wd=wd1,sd=sd*,rdpct=100,seekpct=100
wd=wd2,sd=sd*,rdpct=0,seekpct=100
wd=wd3,sd=sd*,rdpct=100,seekpct=0.1
wd=wd4,sd=sd*,rdpct=0,seekpct=0.1
"""
GUIDE_PROBE_RD = "rd=rd1,wd=wd1,iorate=max,elapsed=60,interval=1,xfersize=4k,forthreads=(100-500,100)\n"
GUIDE_SWEEP_RD = "rd=rd1,wd=wd1,iorate=max,elapsed=60,interval=1,xfersize=4k,forthreads=(10-300,10)\n"

# Parmfiles of real vdbench 5.04.06 runs (tests/data/vdbench/*/parmfile.txt, see PROVENANCE.md)
RECORDED = DATA / "vdbench"
RR_THREADS_SWEEP = (RECORDED / "rr_threads_sweep" / "parmfile.txt").read_text()
MULTI_HOST = (RECORDED / "multi_host" / "parmfile.txt").read_text()
FOUR_WORKLOADS = (RECORDED / "four_workloads" / "parmfile.txt").read_text()


# -- a small reader of parmfile definitions, resolving hd=default / sd=default ----------

def _split_top(line: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in line:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return parts + [current]


def definitions(text: str, *, drop: tuple[str, ...] = ()) -> list[tuple[str, dict[str, str]]]:
    """(keyword, {key: value}) per definition line, with the ``xx=default`` values folded in and
    the keys in ``drop`` left out. General parameters are (keyword, {keyword: value})."""
    defaults: dict[str, dict[str, str]] = {}
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "*#/":
            continue
        pairs = [part.split("=", 1) for part in _split_top(line)]
        assert all(len(p) == 2 for p in pairs), line
        keyword, name = pairs[0]
        values = dict(pairs[1:])
        if name == "default":
            defaults.setdefault(keyword, {}).update(values)
            continue
        d = {**defaults.get(keyword, {}), keyword: name, **values}
        out.append((keyword, {k: v for k, v in d.items() if k not in drop}))
    return out


def definition_set(text: str, **kwargs) -> set:
    return {(kw, frozenset(d.items())) for kw, d in definitions(text, **kwargs)}


def effective_runs(text: str, **kwargs) -> set:
    """Each rd with its wd's settings folded in (rd settings such as xfersize override the wd's)."""
    defs = definitions(text, **kwargs)
    wds = {d["wd"]: d for kw, d in defs if kw == "wd"}
    return {frozenset({**wds[d["wd"]], **d}.items()) for kw, d in defs if kw == "rd"}


# -- the guide -------------------------------------------------------------------------

def guide():
    return load_campaign(REPO / "parameters" / "guide-vdbench-5hosts.yaml")


def test_guide_probe_matches_golden_and_the_guide():
    cfg = guide()
    text = render_parmfile(cfg, [w.name for w in cfg.workloads], probe_run(cfg))
    assert text == (GOLDEN / "guide_probe.parm").read_text()
    assert definition_set(text) == definition_set(GUIDE + GUIDE_PROBE_RD)
    assert text.endswith(GUIDE_PROBE_RD)
    lines = text.splitlines()
    assert all(line in lines for line in GUIDE.splitlines()[5:])  # sd= and wd= lines as the guide's


def test_guide_sweep_matches_golden_and_the_guide():
    cfg = guide()
    threads = plan_sweep(300, plan=cfg.sweep.plan, step=cfg.sweep.step)  # the probe's answer: 300
    assert len(threads) == 30
    text = render_parmfile(cfg, None, sweep_run(cfg, threads, cfg.sweep_workloads[0]))
    assert text == (GOLDEN / "guide_sweep.parm").read_text()
    assert definition_set(text) == definition_set(GUIDE + GUIDE_SWEEP_RD)


def test_guide_outstanding_ios_are_threads_times_sds():
    cfg = guide()
    assert outstanding_ios(100, cfg) == 400
    assert round(558_627 * 0.714 / 1000) == 399  # Little's law on the guide's 100-thread point
    assert outstanding_ios(300, cfg) == 1200
    assert abs(1198 / outstanding_ios(300, cfg) - 1) < 0.01  # totals.html queue depth at 300 threads
    with pytest.raises(ParameterError, match="threads"):
        outstanding_ios(0, cfg)


# -- real vdbench runs -----------------------------------------------------------------

def test_local_campaign_has_the_definitions_of_rr_threads_sweep():
    cfg = load_campaign(REPO / "parameters" / "vdbench-local.yaml").resolved()
    assert all(Path(t.path).is_absolute() and "results/scratch/" in t.path for t in cfg.targets)
    text = render_parmfile(cfg, None, probe_run(cfg))
    assert "hd=" not in text  # one local host
    assert "forthreads=(1-16,d)" in text
    kinds = ("sd", "wd", "rd")
    ours, real = (definitions(t, drop=("lun",)) for t in (text, RR_THREADS_SWEEP))
    assert [kw for kw, _ in ours] == [kw for kw, _ in real] and {kw for kw, _ in ours} <= set(kinds)
    assert definition_set(text, drop=("lun",)) - definition_set(RR_THREADS_SWEEP, drop=("lun",)) == {
        ("rd", frozenset({"rd": "rd1", "wd": "wd1", "iorate": "max", "elapsed": "10", "interval": "1",
                          "warmup": "2", "xfersize": "4k", "forthreads": "(1-16,d)"}.items())),
        ("wd", frozenset({"wd": "wd1", "sd": "sd*", "rdpct": "100", "seekpct": "100"}.items()))}
    # the differences: the transfer size sits on the rd line (as the guide's), not the wd's, and
    # the probe's runs have a warm-up of two intervals (vdbench.warmup_s unset)
    assert effective_runs(text, drop=("warmup",)) == effective_runs(RR_THREADS_SWEEP)
    sds = [d for kw, d in definitions(text, drop=()) if kw == "sd"]
    assert [d["lun"] for d in sds] == [t.path for t in cfg.targets]


def test_multi_host_parmfile_of_a_real_run():
    cfg = campaign_from_dict({
        "campaign": "multi-host", "engine": "vdbench",
        "hosts": [{"name": "hd1", "address": "localhost", "user": "root", "vdbench": "/opt/vdbench", "jvms": 2},
                  {"name": "hd2", "address": "127.0.0.1", "user": "root", "vdbench": "/opt/vdbench", "jvms": 2}],
        "targets": [{"name": f"sd{i}", "path": f"/srv/poc/luns/lun{i}", "size": "512m",
                     "allow_write": True, "hosts": ["hd1" if i <= 2 else "hd2"]} for i in range(1, 5)],
        "workloads": [{"name": "wd1", "rw": "randrw", "rwmixread": 70, "bs": "4k"}],
        "vdbench": {"elapsed_s": 5, "warmup_s": 0, "shell": "vdbench"}})
    assert [w.writes for w in cfg.workloads] == [True]
    text = render_parmfile(cfg, None, sweep_run(cfg, [2, 4], "wd1"))
    assert "hd=default,vdbench=/opt/vdbench,user=root,shell=vdbench,jvms=2\nhd=hd1,system=localhost\n" in text
    assert "sd=sd1,host=hd1,lun=/srv/poc/luns/lun1,size=512m,openflags=o_direct\n" in text
    assert definition_set(text, drop=("xfersize",)) == definition_set(MULTI_HOST, drop=("xfersize",))
    assert effective_runs(text) == effective_runs(MULTI_HOST)
    assert "* wd1 writes: run only on LUNs and files whose data may be destroyed\n" in text


def test_four_workloads_parmfile_of_a_real_run():
    cfg = campaign_from_dict({
        "campaign": "four", "engine": "vdbench", "hosts": [{"name": "local"}],
        "targets": [{"name": f"sd{i}", "path": f"/srv/poc/luns/lun{i}", "size": "512m", "create": True}
                    for i in range(1, 5)],
        "workloads": [{"name": "wd1", "rw": "randread", "bs": "4k"},
                      {"name": "wd2", "rw": "randwrite", "bs": "4k"},
                      {"name": "wd3", "rw": "read", "bs": "128k"},
                      {"name": "wd4", "rw": "write", "bs": "128k", "seekpct": "seq"}],
        "vdbench": {"elapsed_s": 5, "warmup_s": 0, "compratio": 2, "dedupratio": 2, "dedupunit": "4k"}})
    rds = [sweep_run(cfg, [1, 4, 8], w, name=f"rd{i}_{kind}")
           for i, (w, kind) in enumerate(zip(cfg.workloads, ["randread", "randwrite", "seqread", "seqwrite"]), 1)]
    text = render_parmfile(cfg, None, rds)
    assert text.split("*\n", 1)[1].startswith("compratio=2\ndedupratio=2\ndedupunit=4k\n\nsd=sd1,")
    assert definition_set(text, drop=("xfersize",)) == definition_set(FOUR_WORKLOADS, drop=("xfersize",))
    assert effective_runs(text) == effective_runs(FOUR_WORKLOADS)


# -- rendering details -----------------------------------------------------------------

def small(**overrides):
    values = {"campaign": "small", "engine": "vdbench", "hosts": [{"name": "local"}],
              "targets": [{"name": "scratch", "path": "/srv/poc/scratch.dat", "size": "1g", "create": True}],
              "workloads": [{"name": "randread-4k", "rw": "randread", "bs": "4k"}]}
    values.update(overrides)
    return campaign_from_dict(values)


def test_threads_formats():
    assert format_threads([1, 2, 4, 8, 16]) == "(1-16,d)"
    assert format_threads(list(range(10, 301, 10))) == "(10-300,10)"
    assert format_threads([2, 4]) == "(2,4)"
    assert format_threads([1, 2, 4, 8, 16, 32, 64, 100]) == "(1,2,4,8,16,32,64,100)"


def test_probe_run_strategies():
    cfg = small(probe={"strategy": "adaptive", "min_threads": 1, "max_threads": 100, "runtime_s": 30})
    rd = probe_run(cfg)
    assert rd.threads == (1, 2, 4, 8, 16, 32, 64, 100) and rd.elapsed_s == 30 and rd.xfersize == "4k"
    cfg = small(probe={"strategy": "linear", "min_threads": 8, "max_threads": 60, "step": 8})
    assert probe_run(cfg).line() == ("rd=rd1,wd=randread-4k,iorate=max,elapsed=60,interval=1,warmup=2,xfersize=4k,"
                                     "forthreads=(8-56,8)")


def test_the_probe_is_a_thread_fit_at_full_speed_and_no_point_is_measured_cold():
    """The probe fits IOPS against threads: with iorate: curve (or a fixed rate) for the sweep it
    still runs iorate=max. Every run has warmup= (two intervals unless vdbench.warmup_s says;
    0 leaves vdbench's default), also at the refine points of a round."""
    cfg = small(vdbench={"iorate": "curve", "curve": [50, 100], "interval_s": 2, "elapsed_s": 10})
    rd = probe_run(cfg, threads=[3, 5, 6])
    assert (rd.iorate, rd.curve, rd.warmup_s, rd.threads) == ("max", None, 4, (3, 5, 6))
    assert rd.line() == "rd=rd1,wd=randread-4k,iorate=max,elapsed=10,interval=2,warmup=4,xfersize=4k,forthreads=(3,5,6)"
    sweep = sweep_run(cfg, [1, 2], "randread-4k")
    assert (sweep.iorate, sweep.curve, sweep.warmup_s, sweep.runs) == ("curve", (50.0, 100.0), 4, 6)
    assert [sweep.owns(n) for n in ("rd1", "rd1_(50%)", "rd1_(100%)", "SD_format", "rd2")] == [True] * 3 + [False] * 2
    assert [sweep.curve_pct(n) for n in ("rd1", "rd1_(50%)", "rd1_(10.5%)")] == [None, 50.0, 10.5]
    assert probe_run(small(vdbench={"warmup_s": 6})).warmup_s == 6
    assert probe_run(small(vdbench={"warmup_s": 0})).warmup_s is None  # no warmup= line
    assert sweep_run(small(vdbench={"warmup_s": 0}), [1], "randread-4k").warmup_s is None
    assert probe_run(cfg).curve_pct("rd1_(50%)") is None  # a probe has no curve steps


def test_the_fill_writes_each_scratch_file_once_with_the_campaign_s_data():
    cfg = small(targets=[{"name": "sd1", "path": "/srv/poc/a.dat", "size": "64m", "create": True},
                         {"name": "sd2", "path": "/srv/poc/b.dat", "size": "32m", "create": True}],
                workloads=[{"name": "randread-48k", "rw": "randread", "bs": "48k"}],
                vdbench={"compratio": 2, "dedupratio": 3, "dedupunit": "48k"})
    assert render_fill_parmfile(cfg, cfg.targets).split("*\n", 1)[1] == (
        "compratio=2\ndedupratio=3\ndedupunit=48k\n\n"
        "sd=sd1,lun=/srv/poc/a.dat,size=64m,openflags=o_direct\n"
        "sd=sd2,lun=/srv/poc/b.dat,size=32m,openflags=o_direct\n\n"
        "wd=fill,sd=(sd1,sd2),rdpct=0,seekpct=eof,xfersize=144k\n\n"  # 128k rounded up to 3 x 48k
        "rd=fill,wd=fill,iorate=max,elapsed=86400,interval=1,forthreads=(2)\n")
    assert data_text(cfg) == "compratio=2 dedupratio=3 dedupunit=48k"
    assert data_text(small()) == "vdbench's default data (compratio=1, no dedup)"
    tiny = small(targets=[{"name": "t", "path": "/srv/poc/t.dat", "size": "1m", "create": True}],
                 workloads=[{"name": "randread-1m", "rw": "randread", "bs": "1m"}],
                 vdbench={"dedupratio": 2, "dedupunit": "1m"})
    assert fill_xfersize(tiny, tiny.targets) == 1024**2  # smaller than two 1m transfers: one dedupunit
    with pytest.raises(ParameterError, match="targets"):
        render_fill_parmfile(small(targets=[{"name": "lun", "path": "/dev/sdb"}], vdbench={"openflags": "o_direct"}),
                             [])


def test_a_block_size_that_is_not_a_multiple_of_dedupunit_is_refused_naming_the_key():
    with pytest.raises(ParameterError, match=r"workloads\[1\]\.bs: 6k is not a multiple of vdbench\.dedupunit \(4k\)"):
        small(workloads=[{"name": "a", "rw": "randread", "bs": "8k"}, {"name": "b", "rw": "randread", "bs": "6k"}],
              vdbench={"dedupratio": 2, "dedupunit": "4k"})
    with pytest.raises(ParameterError, match="dedupunit.*multiple of 512"):
        small(vdbench={"dedupratio": 2, "dedupunit": "1000"})


def test_one_wd_carries_the_size_when_the_rd_does_not():
    cfg = small(vdbench={"iorate": "curve", "curve": [10, 50, 90], "warmup_s": 10, "messagescan": False,
                         "data_errors": 5})
    rd = RunDefinition("rd1", "randread-4k", [4, 8], forrdpct=[100, 70], iorate="curve", curve=[10, 50, 90])
    text = render_parmfile(cfg, ["randread-4k"], rd)
    assert "data_errors=5\nmessagescan=no\n" in text
    assert "sd=scratch,lun=/srv/poc/scratch.dat,size=1g,openflags=o_direct\n" in text
    assert "wd=randread-4k,sd=scratch,xfersize=4k,rdpct=100,seekpct=100\n" in text
    assert text.endswith("rd=rd1,wd=randread-4k,iorate=curve,curve=(10,50,90),elapsed=60,interval=1,"
                         "forrdpct=(100,70),forthreads=(4,8)\n")
    run = sweep_run(cfg, [4], "randread-4k")
    assert (run.iorate, run.curve, run.warmup_s) == ("curve", (10.0, 50.0, 90.0), 10)
    assert "warmup=10,xfersize=4k,forthreads=(4)" in run.line()


def test_hosts_and_shared_settings():
    one_remote = small(hosts=[{"name": "h1", "address": "srv1.lab", "user": "root"}])
    assert "hd=default,user=root,shell=ssh\nhd=h1,system=srv1.lab\n" in render_parmfile(
        one_remote, None, probe_run(one_remote))
    local_jvms = small(vdbench={"jvms": 4})
    assert "\nhd=default,jvms=4\n\nsd=" in render_parmfile(local_jvms, None, probe_run(local_jvms))
    cfg = small(hosts=[{"name": "h1", "address": "srv1", "user": "root", "jvms": 8},
                       {"name": "h2", "address": "srv2", "user": "poc"}],
                targets=[{"name": "lun1", "path": "/dev/mapper/lun1"},
                         {"name": "lun2", "path": "/dev/mapper/lun2", "hosts": ["h1", "h2"]},
                         {"name": "lun3", "path": "/dev/mapper/lun3", "hosts": ["h2"]}])
    text = render_parmfile(cfg, None, probe_run(cfg))
    assert ("hd=default,shell=ssh\nhd=h1,system=srv1,user=root,jvms=8\nhd=h2,system=srv2,user=poc\n\n"
            "sd=lun1,lun=/dev/mapper/lun1,openflags=o_direct\n"
            "sd=lun2,lun=/dev/mapper/lun2,openflags=o_direct\n"
            "sd=lun3,host=h2,lun=/dev/mapper/lun3,openflags=o_direct\n\n"
            "wd=randread-4k,sd=lun*,rdpct=100,seekpct=100\n") in text


def test_the_ssh_config_carries_each_remote_host_s_ssh_settings():
    """vdbench's hd= lines have no port, key or known_hosts file: its shell=ssh runs
    ``ssh ADDRESS -l USER ...``, which the workbook points at this config."""
    cfg = small(hosts=[{"name": "ctl", "address": "localhost"},
                       {"name": "h2", "address": "10.0.0.2", "port": 2222, "user": "poc", "key_file": "/keys/id_poc",
                        "known_hosts": "/keys/known_hosts"},
                       {"name": "h3", "address": "srv3", "user": "root", "trust_unknown_host_key": True,
                        "connect_timeout_s": 2.5}])
    assert ssh_config(cfg) == """\
# flashpoc: the OpenSSH client settings of vdbench's shell=ssh, from the hosts' parameters (generated)

Host 10.0.0.2
  Port 2222
  User poc
  IdentityFile /keys/id_poc
  IdentitiesOnly yes
  UserKnownHostsFile /keys/known_hosts
  StrictHostKeyChecking yes
  ConnectTimeout 10
  BatchMode yes
  GSSAPIAuthentication no

Host srv3
  Port 22
  User root
  StrictHostKeyChecking accept-new
  ConnectTimeout 3
  BatchMode yes
  GSSAPIAuthentication no

# the ssh client's own configuration, for anything not set above
Match all
  Include ~/.ssh/config
  Include /etc/ssh/ssh_config
"""
    assert "2222" not in render_parmfile(cfg, None, probe_run(cfg))  # vdbench has no place for it
    assert ssh_config(small()) is None  # one local host: no hd= lines
    assert ssh_config(small(hosts=[{"name": "h1", "address": "srv1", "user": "root"}],
                            vdbench={"shell": "vdbench"})) is None  # vdbench's own rsh daemon
    # refused when the parameters are validated (vdbench names a remote host by its address only)
    with pytest.raises(ParameterError, match=r": hosts\[1\]\.address: 10\.0\.0\.2 is also another host's address"):
        small(hosts=[{"name": "h1", "address": "10.0.0.2", "user": "root"},
                     {"name": "h2", "address": "10.0.0.2", "user": "root", "port": 2200}])


def test_threads_per_host_as_vdbench_spreads_them():
    """Each SD's threads go round-robin over its hosts, one counter running on over the SDs
    (vdbench's RD_entry.spreadSdThreadsAcrossSlaves): the real two-host runs gave h2 no thread
    at threads=1 on one SD, and 2 and 1 at threads=3 (tests/engines/vdbench/test_vdbench_multihost.py)."""
    two = small(hosts=[{"name": "h1", "address": "10.0.0.1", "user": "root"},
                       {"name": "h2", "address": "10.0.0.2", "user": "root"}])
    assert [threads_per_host(two, t) for t in (1, 2, 3)] == [{"h1": 1, "h2": 0}, {"h1": 1, "h2": 1},
                                                             {"h1": 2, "h2": 1}]
    # the recorded multi_host run: sd1, sd2 on hd1 and sd3, sd4 on hd2
    multi = small(hosts=[{"name": "hd1", "address": "localhost"}, {"name": "hd2", "address": "127.0.0.1",
                                                                   "user": "root"}],
                  targets=[{"name": f"sd{i}", "path": f"/dev/sd{i}", "hosts": ["hd1" if i < 3 else "hd2"]}
                           for i in range(1, 5)])
    assert threads_per_host(multi, 2) == {"hd1": 4, "hd2": 4}
    # the guide: 4 shared LUNs on 5 hosts, 100 threads per SD: 400 I/Os, 80 per host
    assert threads_per_host(guide(), 100) == {f"hd{i}": 80 for i in range(1, 6)}
    assert threads_per_host(guide(), 1) == {"hd1": 1, "hd2": 1, "hd3": 1, "hd4": 1, "hd5": 0}
    assert threads_per_host(small(), 3) == {"local": 3}


# -- refusals --------------------------------------------------------------------------

@pytest.mark.parametrize("overrides,key", [
    ({"targets": [{"name": "t1", "path": "/srv/poc/a,b.dat", "size": "1g", "create": True}]}, "targets[0].path"),
    ({"targets": [{"name": "t1", "path": "/srv/poc/a b.dat", "size": "1g", "create": True}]}, "targets[0].path"),
    ({"targets": [{"name": "t1", "path": "/srv/poc/a=b.dat", "size": "1g", "create": True}]}, "targets[0].path"),
    ({"targets": [{"name": "t1", "path": "/srv/poc/(a).dat", "size": "1g", "create": True}]}, "targets[0].path"),
    ({"targets": [{"name": "t1", "path": "scratch/a.dat", "size": "1g", "create": True}]},
     "targets[0].path: vdbench needs an absolute path"),
    ({"targets": [{"name": "t1", "path": "/srv/poc/lun.dat"}]}, "targets[0].size: vdbench needs a size"),
    ({"targets": [{"name": "100g", "path": "/dev/sdb"}]}, "targets[0].name: vdbench would read '100g' as a number"),
    ({"targets": [{"name": "default", "path": "/dev/sdb"}]}, "targets[0].name: 'default'"),
    ({"targets": [{"name": "concat", "path": "/dev/sdb"}]}, "targets[0].name"),
    ({"targets": [{"name": "t1", "path": "/dev/sdb"}], "vdbench": {"openflags": None}}, "vdbench.openflags"),
    ({"hosts": [{"name": "default", "address": "srv1"}]}, "hosts[0].name"),
    ({"hosts": [{"name": "h1", "address": "srv1", "vdbench": "opt/vdbench"}]}, "hosts[0].vdbench"),
    ({"hosts": [{"name": "h1", "address": "srv1", "vdbench": "/opt/vd bench"}]}, "hosts[0].vdbench"),
    ({"workloads": [{"name": "r1", "rw": "randread", "iodepth": 4}]}, "workloads[0].iodepth"),
    ({"workloads": [{"name": "r1", "rw": "randread", "skew": 50}]}, "workloads[0].skew"),
    ({"workloads": [{"name": "wd1", "rw": "randread"}, {"name": "1e5", "rw": "randread"}]},
     "workloads[1].name: vdbench would read '1e5' as a number"),
    ({"vdbench": {"elapsed_s": 1, "interval_s": 1}}, "vdbench.elapsed_s: vdbench needs elapsed (1) at least twice"),
    ({"vdbench": {"elapsed_s": 10, "interval_s": 3}}, "vdbench.elapsed_s: vdbench needs elapsed (10) a multiple"),
    ({"vdbench": {"elapsed_s": 10, "interval_s": 2, "warmup_s": 3}}, "vdbench.warmup_s"),
])
def test_refuses_what_vdbench_cannot_take(overrides, key):
    with pytest.raises(ParameterError) as info:  # by the parameters (spaces, shell syntax) or the parmfile
        cfg = small(**overrides)
        render_parmfile(cfg, None, RunDefinition("rd1", cfg.workloads[0].name, [1, 2]))
    assert key in str(info.value)


def test_probe_settings_vdbench_cannot_time():
    with pytest.raises(ParameterError, match=r"probe.runtime_s: vdbench needs elapsed \(5\) a multiple"):
        probe_run(small(vdbench={"interval_s": 2}, probe={"runtime_s": 5}))


@pytest.mark.parametrize("kwargs,key", [
    ({"threads": []}, "RunDefinition.threads"),
    ({"threads": [0, 1]}, r"RunDefinition.threads\[0\]"),
    ({"threads": [1.5]}, r"RunDefinition.threads\[0\]"),
    ({"name": "default"}, "RunDefinition.name"),
    ({"name": "rd 1"}, "RunDefinition.name"),
    ({"workload": "w,1"}, "RunDefinition.workload"),
    ({"xfersize": "1000"}, "RunDefinition.xfersize: vdbench needs a transfer size that is a multiple of 512"),
    ({"xfersize": "4k", "forxfersize": ["4k", "8k"]}, "RunDefinition.forxfersize"),
    ({"forrdpct": [50, 101]}, r"RunDefinition.forrdpct\[1\]"),
    ({"iorate": "curve"}, "RunDefinition.curve"),
    ({"iorate": 0}, "RunDefinition.iorate"),
    ({"curve": [10, 50]}, "RunDefinition.curve"),
    ({"elapsed_s": 3, "interval_s": 2}, "RunDefinition.elapsed_s"),
])
def test_run_definition_refusals(kwargs, key):
    values = {"name": "rd1", "workload": "wd1", "threads": [1, 2]} | kwargs
    with pytest.raises(ParameterError, match=key):
        RunDefinition(**values)


def test_render_refusals():
    cfg = small()
    rd = RunDefinition("rd1", "randread-4k", [1])
    with pytest.raises(ParameterError, match="not among workload_names"):
        render_parmfile(cfg, ["randread-4k"], RunDefinition("rd1", "other", [1]))
    with pytest.raises(ParameterError, match="duplicate rd names"):
        render_parmfile(cfg, None, [rd, rd])
    with pytest.raises(ParameterError, match="no workload named"):
        render_parmfile(cfg, ["nope", "randread-4k"], rd)
    with pytest.raises(ParameterError, match="workload_names"):
        render_parmfile(cfg, "randread-4k", rd)
