"""An engine's rules are refused by ``flashpoc validate`` (and ``flashpoc run`` before anything runs)
in one line naming the key, before results/ exists (issue 28): vdbench's timings and names once
refused only in the check phase, fio's host without a target, HammerDB's bound on virtual users,
and the judgment calls (keys the engine does not read, an address with a port, a multicast or
broadcast vdbench controller address). What is allowed with a warning is printed, one line each."""

from __future__ import annotations

import re

import pytest
import yaml

from flashpoc.cli import main

HOST = {"name": "local", "address": "localhost"}
WORKLOAD = {"name": "wd1", "rw": "randread", "bs": "4k"}
HAMMERDB = {"database": "postgresql", "password_env": "P", "superuser_password_env": "S", "warehouses": 1}
ORACLE = {**HAMMERDB, "database": "oracle", "service": "db1:1521/PDB1"}
SLOB = {"schemas": 2, "scale": "8G"}


def base(engine: str, tmp_path) -> dict:
    """A valid campaign of ``engine``, its results under ``tmp_path``."""
    values = {"campaign": "c", "hosts": [HOST], "results_dir": str(tmp_path / "results")}
    if engine in ("fio", "vdbench"):
        values |= {"engine": {engine: {}}, "workloads": [WORKLOAD],
                   "targets": [{"name": "sd1", "path": str(tmp_path / "sd1.dat"), "size": "64m", "create": True}]}
    elif engine == "hammerdb":
        values["engine"] = {"hammerdb": HAMMERDB}
    else:
        values["engine"] = {"slob": SLOB}
    return values


def merged(values: dict, change: dict) -> dict:
    """``values`` with ``change`` merged in (a mapping into a mapping, anything else replaced)."""
    out = dict(values)
    for key, value in change.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def two_hosts_one_target(tmp_path) -> dict:
    return {"hosts": [HOST, {"name": "b", "address": "10.0.0.2"}],
            "targets": [{"name": "sd1", "path": str(tmp_path / "sd1.dat"), "size": "64m", "create": True,
                         "hosts": ["local"]}]}


REFUSED = [
    # vdbench: its parmfile's rules, once met only by the check's `vdbench -s` or a phase's parmfile
    ("vdbench", {"engine": {"vdbench": {"elapsed_s": 1, "interval_s": 1}}},
     r"vdbench\.elapsed_s: vdbench needs elapsed \(1\) at least twice the interval \(1\)"),
    ("vdbench", {"engine": {"vdbench": {"elapsed_s": 10, "interval_s": 3}}},
     r"vdbench\.elapsed_s: vdbench needs elapsed \(10\) a multiple of the interval \(3\)"),
    ("vdbench", {"engine": {"vdbench": {"elapsed_s": 10, "interval_s": 2, "warmup_s": 3}}},
     r"vdbench\.warmup_s: vdbench needs warmup \(3\) a multiple of the interval \(2\)"),
    ("vdbench", {"engine": {"vdbench": {"interval_s": 2}}, "probe": {"runtime_s": 5}},
     r"probe\.runtime_s: vdbench needs elapsed \(5\) a multiple of the interval \(2\)"),
    ("vdbench", {"sweep": {"runtime_s": 1}}, r"sweep\.runtime_s: vdbench needs elapsed \(1\) at least twice"),
    ("vdbench", {"engine": {"vdbench": {"interval_s": 2}}, "precondition": {"round_s": 9}},
     r"precondition\.round_s: vdbench needs elapsed \(9\) a multiple of the interval \(2\)"),
    ("vdbench", {"hosts": [{"name": "default", "address": "localhost"}]},
     r"hosts\[0\]\.name: 'default' is vdbench's hd=default; rename the host"),
    ("vdbench", {"hosts": [{**HOST, "vdbench": "opt/vdbench"}]},
     r"hosts\[0\]\.vdbench: vdbench needs the absolute install directory, got 'opt/vdbench'"),
    ("vdbench", {"hosts": [{**HOST, "vdbench": "/opt/vd,bench"}]},
     r"hosts\[0\]\.vdbench: '/opt/vd,bench' has ',', which would break the vdbench parmfile line"),
    ("vdbench", {"targets": [{"name": "sd1", "path": "/srv/poc/a,b.dat", "size": "1g"}]},
     r"targets\[0\]\.path: '/srv/poc/a,b.dat' has ',', which would break the vdbench parmfile line"),
    ("vdbench", {"targets": [{"name": "1k", "path": "/dev/sdz"}]},
     r"targets\[0\]\.name: vdbench would read '1k' as a number; choose another name"),
    ("vdbench", {"targets": [{"name": "concat", "path": "/dev/sdz"}]},
     r"targets\[0\]\.name: vdbench refuses an sd named 'concat'"),
    ("vdbench", {"targets": [{"name": "sd1", "path": "/srv/poc/lun.dat"}]},
     r"targets\[0\]\.size: vdbench needs a size for the file /srv/poc/lun.dat"),
    ("vdbench", {"targets": [{"name": "sd1", "path": "/dev/sdz"}], "engine": {"vdbench": {"openflags": None}}},
     r"vdbench\.openflags: vdbench on Linux requires openflags \(e\.g\. o_direct\) for a /dev/ lun"),
    ("vdbench", {"workloads": [{**WORKLOAD, "iodepth": 4}]},
     r"workloads\[0\]\.iodepth: vdbench has no queue depth per thread"),
    ("vdbench", {"workloads": [{**WORKLOAD, "skew": 50}]},
     r"workloads\[0\]\.skew: each rd runs wd1 alone, and vdbench needs the skews of an rd's workloads to add up "
     r"to 100 \(got 50\)"),
    ("vdbench", {"workloads": [{**WORKLOAD, "name": "default"}]},
     r"workloads\[0\]\.name: 'default' sets vdbench's defaults; choose another name"),
    ("vdbench", {"hosts": [{"name": "h1", "address": "10.0.0.2", "user": "root"},
                           {"name": "h2", "address": "10.0.0.2", "user": "root", "port": 2200}],
                 "targets": [{"name": "sd1", "path": "/dev/sdz"}]},
     r"hosts\[1\]\.address: 10\.0\.0\.2 is also another host's address, with other SSH settings"),
    ("vdbench", {"engine": {"vdbench": {"controller_address": "224.0.0.5"}}},
     r"engine\.vdbench\.controller_address: 224\.0\.0\.5 is a multicast address: vdbench's slaves call the "
     r"controller back at an address of its own"),
    ("vdbench", {"engine": {"vdbench": {"controller_address": "255.255.255.255"}}},
     r"engine\.vdbench\.controller_address: 255\.255\.255\.255 is the broadcast address"),
    ("vdbench", {"engine": {"vdbench": {"controller_address": "0.0.0.0"}}},
     r"engine\.vdbench\.controller_address: 0\.0\.0\.0 is no address the other hosts can reach"),
    # fio: a host without a job; vdbench's workload keys; a steady-state window without its criterion
    ("fio", two_hosts_one_target, r"hosts\[1\] \(b\): no target is used by this host"),
    ("fio", {"workloads": [{**WORKLOAD, "seekpct": 0.1}]},
     r"workloads\[0\]\.seekpct: vdbench's seekpct, which fio has no place for"),
    ("fio", {"workloads": [{**WORKLOAD, "skew": 100}]}, r"workloads\[0\]\.skew: vdbench's skew"),
    ("fio", {"engine": {"fio": {"ss_dur_s": 30}}},
     r"engine\.fio\.ss_dur_s: goes with steadystate \(fio's own criterion\), which is not set"),
    ("fio", {"hosts": [{"name": "db1", "address": "db1:2222"}]},
     r"hosts\[0\]\.address: 'db1:2222' holds a port after the name: give 'db1' here and port: 2222"),
    # HammerDB: at most 10,000 virtual users at any point; its own point length; Oracle's keys
    ("hammerdb", {"probe": {"max_threads": 20000, "step": 100}},
     r"probe\.max_threads: a point could run 20,000 virtual users per load host, and a HammerDB run takes at "
     r"most 10,000"),
    ("hammerdb", {"probe": {"max_threads": 9000}, "sweep": {"extend_pct": 25}},
     r"sweep\.extend_pct: a point could run 11,400 virtual users per load host"),
    ("hammerdb", {"probe": {"runtime_s": 60}},
     r"probe\.runtime_s: a HammerDB point runs hammerdb\.rampup_minutes, then duration_minutes counted"),
    ("hammerdb", {"engine": {"hammerdb": {**ORACLE, "dbname": "tpcc2"}}},
     r"engine\.hammerdb\.dbname: only for PostgreSQL \(Oracle connects to service db1:1521/PDB1\)"),
    ("hammerdb", {"engine": {"hammerdb": {"host": "db1:5433"}}},
     r"engine\.hammerdb\.host: 'db1:5433' holds a port after the name: give 'db1' here and port: 5433"),
    # an engine that writes no target
    ("slob", {"precondition": {"write_rounds": 5}},
     r"precondition\.write_rounds: engine slob writes no target \(its data is the database's\), so no round"),
    ("slob", {"targets": [{"name": "f", "path": "/srv/poc/f.dat", "size": "1g", "create": True}]},
     r"targets\[0\]\.create: engine slob writes no target"),
    ("hammerdb", {"targets": [{"name": "lun", "path": "/dev/sdz", "allow_write": True}], "destroy_data_on": ["lun"]},
     r"destroy_data_on: engine hammerdb writes no target \(its data is the database's\): nothing would be destroyed"),
    ("vdbench", {"hosts": [HOST, {"name": "h2", "address": "10.0.0.2"}],
                 "targets": [{"name": "sd1", "path": "/dev/sdz"}]},
     r"hosts\[1\]\.user: vdbench starts the slaves of h2 with 'ssh 10\.0\.0\.2 -l USER' \(hd user=; without it "
     r"vdbench stops\): set the user"),
]


@pytest.mark.parametrize("engine, change, message", REFUSED,
                         ids=[f"{engine}-{message.split(':')[0].replace(chr(92), '')}"
                              for engine, _, message in REFUSED])
def test_validate_and_run_refuse_an_engine_rule_in_one_line_before_results_exist(engine, change, message, tmp_path,
                                                                                 capsys):
    params = tmp_path / "p.yaml"
    change = change(tmp_path) if callable(change) else change
    params.write_text(yaml.safe_dump(merged(base(engine, tmp_path), change)))
    for command in ("validate", "run"):
        code = main([command, str(params)])
        out, err = capsys.readouterr()
        assert (code, out) == (2, ""), command
        assert err.count("\n") == 1 and err.startswith(f"flashpoc: error: invalid parameters in {params}: "), err
        assert re.search(message, err), err
        assert not (tmp_path / "results").exists()


def test_one_machine_twice_and_one_workload_twice_are_warnings(tmp_path, capsys):
    """Allowed (two HammerDB load hosts on 127.0.0.1 are one of the workbook's own tests), but said:
    one line each, naming the key."""
    params = tmp_path / "p.yaml"
    values = merged(base("fio", tmp_path), {
        "hosts": [HOST, {"name": "again", "address": "localhost"}, {"name": "n1", "address": "10.0.0.7"},
                  {"name": "n2", "address": "10.0.0.7", "port": 22}, {"name": "n3", "address": "10.0.0.7", "port": 23}],
        "workloads": [WORKLOAD, {**WORKLOAD, "name": "wd2", "description": "the same"}]})
    params.write_text(yaml.safe_dump(values))
    assert main(["validate", str(params)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1:] == [
        f"{params}: warning: hosts[1].address: again is at the same address and port as hosts[0] (local), this "
        "machine: one machine runs both, and its load counts as two hosts'",
        f"{params}: warning: hosts[3].address: n2 is at the same address and port as hosts[2] (n1), 10.0.0.7:22: "
        "one machine runs both, and its load counts as two hosts'",
        f"{params}: warning: workloads[1]: wd2 is the same workload as workloads[0] (wd1) under another name: both "
        "are measured, the same I/O twice"]


@pytest.mark.parametrize("engine, change, warning", [
    ("hammerdb", {"engine": {"hammerdb": {"build_virtual_users": 8}}},
     "engine.hammerdb.build_virtual_users: only a schema build uses it, and build_schema is false"),
    ("fio", {"engine": {"fio": {"server_port": 9000}}},
     "engine.fio.server_port: one host runs its points alone, without fio's client and servers"),
    ("vdbench", {"engine": {"vdbench": {"controller_address": "10.0.0.9"}}},
     "engine.vdbench.controller_address: no host is remote, so vdbench starts every slave on its own machine "
     "without it"),
])
def test_settings_the_campaign_does_not_use_are_a_warning(engine, change, warning, tmp_path, capsys):
    params = tmp_path / "p.yaml"
    params.write_text(yaml.safe_dump(merged(base(engine, tmp_path), change)))
    assert main(["validate", str(params)]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [f"{params}: warning: {warning}"]
