"""Parameter schema: every shipped file validates; bad input is refused with its key path."""

from __future__ import annotations

import hashlib
import json
import re

import papermill
import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import REPO
from flashpoc.core.errors import ParameterError
from flashpoc.params import Campaign, campaign_from_dict, load_campaign, parse_size

DATA = REPO / "tests" / "data"
PARAM_FILES = sorted((REPO / "parameters").glob("*.yaml"))
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


def base(**overrides):
    values = {"campaign": "c1", "hosts": [{"name": "h1"}],
              "targets": [{"name": "t1", "path": "/tmp/x.dat", "size": "1g", "create": True}]}
    values.update(overrides)
    return values


@pytest.mark.parametrize("path", PARAM_FILES, ids=lambda p: p.name)
def test_every_parameters_file_validates(path):
    cfg = load_campaign(path)
    assert cfg.campaign and cfg.hosts and (cfg.engine_workloads or cfg.engine_object.skipped_text(cfg, "sweep"))
    assert cfg.targets or cfg.engine_object.data_elsewhere(cfg)


@pytest.mark.parametrize("path", PARAM_FILES, ids=lambda p: p.name)
def test_parameters_file_keys_exist_in_every_notebook(path):
    import yaml

    keys = set(yaml.safe_load(path.read_text()))
    for notebook in NOTEBOOKS:
        unknown = keys - set(papermill.inspect_notebook(str(notebook)))
        assert not unknown, f"{path.name} keys {unknown} are not parameters of {notebook.name}"


def test_defaults():
    cfg = campaign_from_dict(base())
    assert [w.name for w in cfg.workloads] == ["randread-4k", "randwrite-4k", "oltp-8k-80r", "seqread-128k"]
    assert cfg.workloads[2].rwmixread == 80 and cfg.workloads[3].bs == "128k"
    assert cfg.slo_ms == 1.0 and cfg.probe.strategy == "adaptive" and cfg.engine == "fio"
    assert cfg.probe_workload.name == "randread-4k"
    assert cfg.targets[0].size_bytes == 1024**3


@pytest.mark.parametrize("text,expected", [("4k", 4096), ("1g", 1024**3), ("250GiB", 250 * 1024**3),
                                           ("512", 512), ("128K", 131072), (8192, 8192)])
def test_parse_size(text, expected):
    assert parse_size(text) == expected


BAD = [
    ({"hosts": [{"name": "h1", "port": 70000}]}, "hosts[0].port"),
    ({"hosts": [{"name": "h1", "prot": 22}]}, "hosts[0].prot: unknown key"),
    ({"hosts": []}, "hosts: List should have at least 1 item"),
    ({"hosts": [{"name": "h1"}, {"name": "h1"}]}, "hosts[1].name: 'h1' is already used by hosts[0]"),
    ({"hosts": [{"name": "h1", "address": "srv1; rm -rf /"}]}, "hosts[0].address"),
    ({"hosts": [{"name": "h 1"}]}, "hosts[0].name"),
    ({"targets": [{"name": "t1", "path": "/tmp/a:b", "size": "1g", "create": True}]}, "targets[0].path"),
    ({"targets": [{"name": "t1", "path": "/tmp/x", "size": "huge", "create": True}]}, "targets[0].size"),
    ({"targets": [{"name": "t1", "path": "/tmp/x", "size": "2p", "create": True}]}, "larger than 1 PiB"),
    ({"targets": [{"name": "t1", "path": "/tmp/x", "create": True}]}, "needs a size"),
    ({"targets": [{"name": "t1", "path": "/dev/sdb"}]}, "do not allow writes"),
    ({"workloads": [{"name": "w", "rw": "randrw", "bs": "8k"}]}, "needs rwmixread"),
    ({"workloads": [{"name": "w", "rw": "randread", "bs": "4k", "iodepth": 0}]}, "workloads[0].iodepth"),
    ({"workloads": [{"name": "w", "rw": "randread", "bs": "1000"}]}, "multiple of 512"),
    ({"workloads": [{"name": "w", "rw": "random", "bs": "4k"}]}, "workloads[0].rw"),
    ({"probe": {"min_threads": 0}}, "probe.min_threads"),
    ({"probe": {"min_threads": 64, "max_threads": 8}}, "min_threads (64) is above max_threads (8)"),
    ({"probe": {"strategy": "linear", "min_threads": 1, "max_threads": 10000, "step": 1}}, "more than 200 points"),
    ({"probe": {"min_threads": 4, "max_threads": 64, "start_threads": 2}},
     "start_threads (2) is outside min_threads..max_threads (4..64)"),
    ({"probe": {"expected_iops": 0}}, "probe.expected_iops"),
    ({"probe": {"refine_points": -1}}, "probe.refine_points"),
    ({"probe": {"strict": "maybe"}}, "probe.strict"),
    ({"probe": {"workload": "nope"}}, "probe.workload: no workload named 'nope'"),
    ({"sweep": {"workloads": ["nope"]}}, "sweep.workloads: no workload named 'nope'"),
    ({"slo_ms": 0}, "slo_ms"),
    ({"slo_ms": "fast"}, "slo_ms"),
    ({"fio": {"steadystate": "iops:; rm"}}, "fio.steadystate"),
    ({"fio": {"runtime_s": -5}}, "fio.runtime_s"),
    ({"engine": "hammerdb"}, "engine"),
    ({"campaign": "../etc"}, "campaign"),
    ({"colour": "red"}, "colour: unknown key"),
]


@pytest.mark.parametrize("overrides,needle", BAD, ids=[b[1][:40] for b in BAD])
def test_bad_parameters_name_the_key(overrides, needle):
    with pytest.raises(ParameterError) as info:
        campaign_from_dict(base(**overrides), source="test.yaml")
    assert needle in str(info.value)
    assert str(info.value).startswith("invalid parameters in test.yaml")


def test_missing_required_key():
    values = base()
    del values["hosts"]
    with pytest.raises(ParameterError, match=r"hosts: required key is missing"):
        campaign_from_dict(values)


def test_fio_and_vdbench_need_a_target():
    values = base()
    del values["targets"]
    with pytest.raises(ParameterError, match=r"targets: at least one target .* engine fio"):
        campaign_from_dict(values)


def test_write_allowed_only_where_the_parameters_say_so():
    values = base(targets=[{"name": "t1", "path": "/dev/sdb", "allow_write": True}])
    assert campaign_from_dict(values).targets[0].writable
    read_only = base(targets=[{"name": "t1", "path": "/dev/sdb"}],
                     workloads=[{"name": "r", "rw": "randread", "bs": "8k"}])
    assert not campaign_from_dict(read_only).targets[0].writable


def test_yaml_errors(tmp_path):
    dup = tmp_path / "dup.yaml"
    dup.write_text("campaign: a\ncampaign: b\n")
    with pytest.raises(ParameterError, match="duplicate key 'campaign' at line 2"):
        load_campaign(dup)
    bad = tmp_path / "bad.yaml"
    bad.write_text("campaign: [a\n")
    with pytest.raises(ParameterError, match="is not valid YAML"):
        load_campaign(bad)
    listy = tmp_path / "list.yaml"
    listy.write_text("- a\n- b\n")
    with pytest.raises(ParameterError, match="expected a mapping"):
        load_campaign(listy)
    with pytest.raises(ParameterError, match="cannot read parameters file"):
        load_campaign(tmp_path / "missing.yaml")


def test_relative_paths_resolve_against_the_workbook_root(tmp_path, monkeypatch):
    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))
    cfg = campaign_from_dict(base(targets=[{"name": "t", "path": "results/s.dat", "size": "1m", "create": True}]))
    assert cfg.resolved().targets[0].path == str(tmp_path / "results" / "s.dat")
    assert cfg.results_path() == tmp_path / "results" / "c1"
    monkeypatch.setenv("FLASHPOC_RESULTS_DIR", str(tmp_path / "elsewhere"))
    assert cfg.results_path() == tmp_path / "elsewhere" / "c1"


def test_measurement_hash_ignores_report_settings():
    a = campaign_from_dict(base())
    assert a.measurement_hash() == campaign_from_dict(base(slo_ms=2.0, description="x")).measurement_hash()
    assert a.measurement_hash() != campaign_from_dict(base(fio={"runtime_s": 30})).measurement_hash()
    assert a.params_hash() != campaign_from_dict(base(slo_ms=2.0)).params_hash()


def test_array_expected_iops_is_a_report_setting():
    """array.expected_iops (added later): unset, the hashes stay those of earlier campaigns."""
    a = campaign_from_dict(base())
    earlier = {k: v for k, v in a.model_dump(mode="json").items() if k != "array"}
    earlier["sweep"].pop("extend_until_steady")  # added later too (test_extend_steady.py)
    earlier.pop("database")  # added later too (database.datafiles, test_mountstats.py)
    assert a.params_hash() == hashlib.sha256(json.dumps(earlier, sort_keys=True).encode()).hexdigest()[:16]
    assert a.params_hash() == campaign_from_dict(base(array={})).params_hash()
    rated = campaign_from_dict(base(array={"expected_iops": 500000}))
    assert rated.array.expected_iops == 500000 and rated.measurement_hash() == a.measurement_hash()
    assert rated.params_hash() != a.params_hash()
    with pytest.raises(ParameterError, match=r"array\.expected_iops: Input should be greater than 0 \(got -1\)"):
        campaign_from_dict(base(array={"expected_iops": -1}))


@pytest.mark.parametrize("values", [
    {"slob": {"schemas": 16, "scale": "8G", "sysdba_passwd_env": "Tr0ub4dor&3"}},
    {"slob": {"schemas": 16, "scale": "8G"}, "oracle": {"dsn": "db1:1521/pdb", "password_env": "Tr0ub4dor&3"}},
])
def test_a_password_typed_where_a_variable_name_goes_is_refused_and_not_echoed(values):
    with pytest.raises(ParameterError) as error:
        campaign_from_dict({"campaign": "x", "engine": "slob", "hosts": [{"name": "db1"}], **values})
    assert "NAME of an environment variable" in str(error.value) and "Tr0ub4dor" not in str(error.value)


def test_slob_needs_schemas_and_scale_and_its_own_workloads():
    base_slob = {"campaign": "x", "engine": "slob", "hosts": [{"name": "db1"}]}
    with pytest.raises(ParameterError, match="slob.schemas: required for engine slob"):
        campaign_from_dict({**base_slob, "slob": {"scale": "8G"}})
    with pytest.raises(ParameterError, match="slob.scale: .*not a SLOB size"):
        campaign_from_dict({**base_slob, "slob": {"schemas": 4, "scale": "8T"}})
    with pytest.raises(ParameterError, match="workloads: with engine slob the workloads go under slob.workloads"):
        campaign_from_dict({**base_slob, "slob": {"schemas": 4, "scale": "8G"},
                            "workloads": [{"name": "r", "rw": "randread"}]})
    with pytest.raises(ParameterError, match=r"slob.workloads.0.*update_pct \+ scan_pct must be <= 100"):
        campaign_from_dict({**base_slob, "slob": {"schemas": 4, "scale": "8G",
                                                  "workloads": [{"name": "w", "update_pct": 50, "scan_pct": 60,
                                                                 "scan_table_sz": "1G"}]}})
    cfg = campaign_from_dict({**base_slob, "slob": {"schemas": 4, "scale": "8G"}})
    assert cfg.workload_names == ["slob-8020", "slob-read"] and cfg.targets == []


# -- every number is a number ---------------------------------------------------------------------
def _number_fields():
    """(key path, field name, is a list) of every int or float parameter, walking the schema."""
    import typing

    from pydantic import BaseModel

    from flashpoc import params

    def kinds(annotation):
        args = typing.get_args(annotation)
        if typing.get_origin(annotation) is typing.Annotated:
            return kinds(args[0])
        if args and typing.get_origin(annotation) is not list:
            return set().union(*(kinds(a) for a in args))
        if typing.get_origin(annotation) is list:
            return {("list", k) for k in kinds(args[0]) if not isinstance(k, tuple)}
        return {annotation}

    from flashpoc.engines.fio.settings import FioSettings
    from flashpoc.engines.slob.settings import SlobSettings, SlobWorkload
    from flashpoc.engines.vdbench.settings import VdbenchSettings

    places = {params.HostParams: "hosts[0]", params.TargetParams: "targets[0]", FioSettings: "fio",
              VdbenchSettings: "vdbench", params.Workload: "workloads[0]", SlobSettings: "slob",
              SlobWorkload: "slob.workloads[0]", params.OracleParams: "oracle",
              params.SqlWorkloadParams: "sql_workload", params.ProbeSettings: "probe", params.SweepSettings: "sweep",
              params.ReportSettings: "report", params.CompareWith: "report.compare[0]", Campaign: ""}
    found = []
    for model, place in places.items():
        for name, field in model.model_fields.items():
            found_kinds = kinds(field.annotation)
            if isinstance(found_kinds, set) and any(isinstance(k, type) and issubclass(k, BaseModel)
                                                    for k in found_kinds):
                continue
            numbers = {k for k in found_kinds if k in (int, float) or (isinstance(k, tuple) and k[1] in (int, float))}
            if numbers and bool not in found_kinds:
                found.append((f"{place}.{name}".lstrip("."), name, any(isinstance(k, tuple) for k in numbers)))
    return found


NUMBER_FIELDS = _number_fields()


def _with_value(key: str, value):
    """Parameters valid but for ``key`` set to ``value`` (left out when None)."""
    if key.startswith("slob"):
        values = {"campaign": "c1", "engine": "slob", "hosts": [{"name": "h1"}],
                  "slob": {"schemas": 4, "scale": "8G", "workloads": [{"name": "w", "update_pct": 0}]}}
    else:
        values = base(workloads=[{"name": "w", "rw": "randrw", "bs": "8k", "rwmixread": 70}],
                      oracle={"dsn": "db1:1521/pdb1"}, sql_workload={"script": "job.sql", "sessions": 2},
                      report={"compare": [{"campaign": "other"}]}, vdbench={"iorate": "curve", "curve": [50]})
    where = values
    parts = re.findall(r"(\w+)(?:\[(\d)\])?", key)
    for name, index in parts[:-1]:
        where = where.setdefault(name, {})
        if index:
            where = where[int(index)]
    where[parts[-1][0]] = value
    if value is None:
        del where[parts[-1][0]]
    return values


def test_the_schema_walk_finds_the_numbers():
    keys = [k for k, _, _ in NUMBER_FIELDS]
    assert len(keys) >= 50
    for key in ("hosts[0].port", "probe.max_threads", "sweep.points", "workloads[0].iodepth", "slob.schemas",
                "sql_workload.sessions", "vdbench.jvms", "vdbench.curve", "report.latencies_ms", "slo_ms"):
        assert key in keys, key


@pytest.mark.parametrize("key,name,is_list", NUMBER_FIELDS, ids=[k for k, _, _ in NUMBER_FIELDS])
@pytest.mark.parametrize("bad", [True, False, "8", float("nan"), float("inf"), -1, 10**30],
                         ids=["true", "false", "text", "nan", "inf", "negative", "huge"])
def test_every_number_refuses_what_is_not_a_plausible_number(key, name, is_list, bad):
    with pytest.raises(ParameterError) as error:
        campaign_from_dict(_with_value(key, [bad] if is_list else bad), source="test.yaml")
    message = str(error.value)
    assert "\n" not in message
    keys = [f"{key}[0]", key] if is_list else [key]  # a list's own check names the list
    assert any(message.startswith(f"invalid parameters in test.yaml: {k}: ") for k in keys), message


def test_the_walk_starts_from_valid_parameters():
    """Only the value set makes the parameters of the test above fail."""
    for key in ("slo_ms", "slob.run_time_s"):
        campaign_from_dict(_with_value(key, None))


def test_reasonable_parameters_are_taken_as_written(tmp_path):
    text = """
campaign: reasonable
description: 2024-06-01 run after the firmware update
hosts:
  - &host {name: db1, address: 10.0.0.5, port: 22, user: oracle, command_timeout_s: 7200}
  - {<<: *host, name: db2, address: 10.0.0.6}
targets:
  - {name: lun1, path: /dev/mapper/lun1, allow_write: yes}
  - {name: scratch, path: /var/tmp/flashpoc/scratch.dat, size: 1073741824, create: true}
fio: {direct: 1, runtime_s: 60, ramp_s: 10}
workloads:
  - {name: oltp, rw: randrw, bs: 8192, rwmixread: 70, iodepth: 16}
  - {name: scan, rw: read, bs: 1m}
probe: {max_threads: 512, gain_pct: 2.5}
sweep: {workloads: [oltp]}
slo_ms: 1
array_cache: 512g
results_dir: /var/tmp/flashpoc-results
"""
    path = tmp_path / "reasonable.yaml"
    path.write_text(text)
    cfg = load_campaign(path)
    assert cfg.description == "2024-06-01 run after the firmware update"  # a date stays text
    assert [h.address for h in cfg.hosts] == ["10.0.0.5", "10.0.0.6"] and cfg.hosts[1].user == "oracle"
    assert cfg.targets[0].writable and cfg.targets[1].size_bytes == 1024**3
    assert cfg.settings.direct is True and cfg.workloads[0].bs == "8192" and cfg.slo_ms == 1.0


def test_the_notebook_parameters_are_refused_in_one_line_too(tmp_path):
    from flashpoc.params import campaign_from_parameters

    namespace = base(probe={"max_threads": True}, description=None, unrelated=object())
    with pytest.raises(ParameterError) as error:
        campaign_from_parameters(namespace)
    assert str(error.value) == ("invalid parameters in the notebook's parameters: probe.max_threads: expected a "
                                "number, got true (a yes/no value)")
    with pytest.raises(ParameterError) as error:
        campaign_from_parameters(base(results_dir="/etc"))
    assert str(error.value).startswith("invalid parameters in the notebook's parameters: results_dir: '/etc' is in "
                                       "the system directory /etc")
    (tmp_path / "results").write_text("")
    with pytest.raises(ParameterError) as error:
        campaign_from_parameters(base())
    assert str(error.value) == (f"invalid parameters in the notebook's parameters: results_dir: {tmp_path / 'results'}"
                                f" is a file, so {tmp_path / 'results' / 'c1'} cannot be created")
    assert (tmp_path / "results").read_text() == ""


def test_several_problems_make_one_line():
    with pytest.raises(ParameterError) as error:
        campaign_from_dict(base(slo_ms=0, probe={"min_threads": 0, "max_threads": True}, fio={"runtime_s": "x"}),
                           source="test.yaml")
    assert str(error.value) == (
        "invalid parameters in test.yaml: fio.runtime_s: Input should be a valid integer (got 'x'); "
        "probe.min_threads: Input should be greater than or equal to 1 (got 0); probe.max_threads: expected a "
        "number, got true (a yes/no value) (and 1 more problem)")


#: measurement_hash of parameters/*.yaml as computed before the ``engine:`` block (commit 6db462d, when
#: each engine's settings were a top-level key): stored points and probes carry it, so it must not change
#: (the files whose measured settings have not changed since)
HASH_BEFORE_ENGINE_BLOCK = {
    "demo-local.yaml": "f58b1b3edea013bf",
    "vdbench-local.yaml": "698cd054952d7c83",
}


@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "parameters").glob("*.yaml")))
def test_the_engine_block_keeps_the_measurement_hash_of_stored_points(name):
    text = (REPO / "parameters" / name).read_text()
    cfg = load_campaign(REPO / "parameters" / name)
    assert "engine:\n  " + cfg.engine + ":" in text  # the file is migrated
    # the same settings written the earlier way (engine: NAME, then NAME: {...} at the top) measure alike
    data = yaml.safe_load(text)
    block = data.pop("engine")
    data.update(engine=cfg.engine, **{cfg.engine: block[cfg.engine]})
    assert campaign_from_dict(data).measurement_hash() == cfg.measurement_hash()
    if name in HASH_BEFORE_ENGINE_BLOCK:
        assert cfg.measurement_hash() == HASH_BEFORE_ENGINE_BLOCK[name]


#: the measurement hashes the code of the manifests' time gave them (slob-seed-8020.yaml had 16 schemas then)
MANIFEST_HASH = {"demo-local": "f58b1b3edea013bf", "vdbench-local": "698cd054952d7c83", "slob-8020": "8d2a2a33673641e7"}


@pytest.mark.parametrize("campaign, name", [("demo-local", "demo-local.yaml"), ("vdbench-local", "vdbench-local.yaml"),
                                            ("slob-8020", "slob-seed-8020.yaml")])
def test_a_manifest_of_the_earlier_format_loads_the_same_campaign(campaign, name):
    """Top-level ``fio:``/``vdbench:``/``slob:`` blocks (and the unused blocks of the other engines,
    which that format always wrote) read as the engine block; a dump writes the engine block."""
    from flashpoc.phases import campaign_from_manifest, manifest_params

    manifest = json.loads((DATA / "manifests" / f"{campaign}-format1.json").read_text())
    assert {"fio", "vdbench", "slob"} <= set(manifest["params"]) and isinstance(manifest["params"]["engine"], str)
    old = campaign_from_manifest(manifest, "manifest.json")
    new = load_campaign(REPO / "parameters" / name)
    assert old.measurement_hash() == MANIFEST_HASH[campaign]
    if name in HASH_BEFORE_ENGINE_BLOCK:  # the file's measured settings are those of the manifest
        assert old == new
    dumped = manifest_params(new)
    assert list(dumped["engine"]) == [new.engine] and not {"fio", "vdbench", "slob", "settings"} & set(dumped)
    assert campaign_from_dict(dumped) == new


def test_engine_given_by_name_alone_takes_its_default_settings():
    base = {"campaign": "c", "hosts": [{"name": "h", "address": "localhost"}],
            "targets": [{"name": "t", "path": "/dev/x", "size": "1g", "allow_write": True}]}
    by_name = campaign_from_dict({**base, "engine": "vdbench"})
    by_block = campaign_from_dict({**base, "engine": {"vdbench": None}})
    assert by_name == by_block and by_name.settings.elapsed_s == 60 and by_name.settings.iorate == "max"
    assert campaign_from_dict({**base, "engine": {"vdbench": {"elapsed_s": 5}}}).settings.elapsed_s == 5


def _key_paths(node, path=()):
    """Every (key path, key) of a parameters mapping: keys of mappings, through lists by index."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key), key
            yield from _key_paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _key_paths(value, (*path, i))


def _renamed(node, path, new):
    """A copy of ``node`` with the key at ``path`` renamed ``new`` (its value kept)."""
    if len(path) == 1:
        return {new if k == path[0] else k: v for k, v in node.items()}
    head, rest = path[0], path[1:]
    if isinstance(node, list):
        return [_renamed(v, rest, new) if i == head else v for i, v in enumerate(node)]
    return {k: _renamed(v, rest, new) if k == head else v for k, v in node.items()}


def _one_typo(key: str, kind: int, at: int) -> str:
    """``key`` with one slip of the finger at ``at``: a letter left out, doubled, or two swapped."""
    at %= len(key)
    if kind == 0:
        return key[:at] + key[at + 1:]
    if kind == 1:
        return key[:at] + key[at] + key[at:]
    at = min(at, len(key) - 2)
    return key[:at] + key[at + 1] + key[at] + key[at + 2:]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_misspelled_key_gets_did_you_mean_naming_the_key_its_place_allows(data):
    """A misspelled key got "unknown key (check the spelling)": the one line now names the nearest key its
    place allows (difflib), at any depth of every shipped parameters file: top level, an engine block, a host,
    a SLOB workload. The suggestion is the key that was meant, or one at least as close to the typo."""
    import difflib

    from flashpoc.params.suggest import known_keys
    from flashpoc.params.values import SECRET_KEY

    path = data.draw(st.sampled_from(PARAM_FILES), label="file")
    values = yaml.safe_load(path.read_text())
    where, key = data.draw(st.sampled_from([p for p in _key_paths(values) if len(p[1]) >= 4]), label="key")
    typo = _one_typo(key, data.draw(st.integers(0, 2)), data.draw(st.integers(0, 50)))
    allowed = known_keys(where)
    assume(typo != key and typo not in allowed and where[:-1] != ("engine",))  # an engine's name lists the engines
    with pytest.raises(ParameterError) as refused:
        campaign_from_dict(_renamed(values, where, typo))
    message = str(refused.value)
    assert "\n" not in message
    shown = "".join(f"[{p}]" if isinstance(p, int) else ("." if i else "") + p for i, p in enumerate(where[:-1]))
    if SECRET_KEY.search(typo) and not typo.lower().endswith("_env"):  # passwordenv: it may hold a password
        assert f"{(shown + '.' if shown else '') + typo}: no password in the parameters" in message, message
        return
    found = re.search(rf"{re.escape((shown + '.' if shown else '') + typo)}: unknown key; did you mean (\w+)\?",
                      message)
    assert found, message
    ratio = difflib.SequenceMatcher(None, typo, key).ratio()
    assert found[1] == key or difflib.SequenceMatcher(None, typo, found[1]).ratio() >= ratio, (key, found[1])


#: the shipped files that follow a seed's method, each a campaign of it
SEED_FILES = ["slob-tr4969-aff-a.yaml", "slob-tr4969-aff-c.yaml", "slob-anf-knfs.yaml", "slob-anf-dnfs.yaml",
              "hammerdb-pure-iscsi.yaml", "hammerdb-pure-nvmeof.yaml", "guide-vdbench-5hosts.yaml", "dba-job-undo.yaml"]


@pytest.mark.parametrize("name", [*SEED_FILES, "undo-insert-job.sql"])
def test_a_seed_file_names_its_seed_method_and_what_to_edit(name):
    """Each seed's file says, in its header comment, which seed method it follows and what a user edits."""
    header = []
    for line in (REPO / "parameters" / name).read_text().splitlines():
        if not line.startswith(("#", "REM")):
            break
        header.append(line)
    text = "\n".join(header)
    assert re.search(r"^(#|REM) Seed method: \S", text, re.M) and re.search(r"^(#|REM) Edit: \S", text, re.M), text


def _seed(name):
    return load_campaign(REPO / "parameters" / name)


def test_the_tr4969_files_follow_the_tr():
    """16 schemas x SCALE=655360M (10 TiB), 20-minute points, 3 repeats, the A-series against the C-series."""
    a, c = _seed("slob-tr4969-aff-a.yaml"), _seed("slob-tr4969-aff-c.yaml")
    for cfg in (a, c):
        s = cfg.settings
        assert (cfg.engine, s.schemas, s.scale, s.run_time_s, cfg.sweep.repeats) == ("slob", 16, "655360M", 1200, 3)
        assert s.schemas * s.scale_bytes == 10 * 1024**4
    assert [(x.campaign, x.label) for x in a.report.compare] == [(c.campaign, c.report.label)]


def test_the_anf_pair_follows_the_seeds_slob_conf():
    """kNFS against dNFS, the same SLOB settings: SCAN_TABLE_SZ=50G (not SLOB's default 1M), RUN_TIME=600,
    SCALE=75G, WORK_UNIT=64, REDO_STRESS=LITE, LOAD_PARALLEL_DEGREE=12, 80/20 and full scans."""
    from flashpoc.engines.slob.measure import point_conf
    from flashpoc.engines.slob.plan import parse_slob_conf

    knfs, dnfs = _seed("slob-anf-knfs.yaml"), _seed("slob-anf-dnfs.yaml")
    assert (knfs.database.datafiles, dnfs.database.datafiles) == ("knfs", "dnfs")
    assert [(x.campaign, x.label) for x in knfs.report.compare] == [(dnfs.campaign, "dNFS")]
    for cfg in (knfs, dnfs):
        mixes = {}
        for workload in cfg.engine_workloads:
            conf = parse_slob_conf(point_conf(cfg, workload, 4))
            mixes[(conf["UPDATE_PCT"], conf["SCAN_PCT"])] = conf
            assert {k: conf[k] for k in ("SCAN_TABLE_SZ", "RUN_TIME", "WORK_LOOP", "SCALE", "WORK_UNIT", "REDO_STRESS",
                                         "LOAD_PARALLEL_DEGREE")} == {
                "SCAN_TABLE_SZ": "50G", "RUN_TIME": "600", "WORK_LOOP": "0", "SCALE": "75G", "WORK_UNIT": "64",
                "REDO_STRESS": "LITE", "LOAD_PARALLEL_DEGREE": "12"}
        assert set(mixes) == {("20", "0"), ("0", "100")}


def test_the_pure_pair_runs_hammerdb_on_four_hosts_up_to_96_users():
    iscsi, nvme = _seed("hammerdb-pure-iscsi.yaml"), _seed("hammerdb-pure-nvmeof.yaml")
    for cfg in (iscsi, nvme):
        assert (cfg.engine, cfg.settings.database, len(cfg.hosts), cfg.sweep.max_threads) == ("hammerdb", "oracle", 4,
                                                                                               96)
        assert cfg.oracle is not None  # AWR's storage figures beside NOPM
    assert [(x.campaign, x.label) for x in iscsi.report.compare] == [(nvme.campaign, "NVMe-oF")]
    assert iscsi.report.equal_threads == [48, 96]


def test_the_vdbench_guide_file_follows_the_guide():
    cfg = _seed("guide-vdbench-5hosts.yaml")
    assert len(cfg.hosts) == 5 and [t.size for t in cfg.targets] == ["250g"] * 4
    assert (cfg.probe.strategy, cfg.probe.min_threads, cfg.probe.max_threads, cfg.probe.step) == ("linear", 100, 500,
                                                                                                   100)
    assert (cfg.sweep.plan, cfg.sweep.step, cfg.settings.elapsed_s, cfg.settings.interval_s) == ("guide", 10, 60, 1)


def test_the_undo_job_is_the_seeds():
    """20 sessions, each 30,000 one-row inserts of about 1,000 bytes into its own table with a composite
    index, a commit every 1,000 rows."""
    from flashpoc.jobs.sqlscript.plan import split_sql_script

    cfg = _seed("dba-job-undo.yaml")
    assert cfg.sql_workload.sessions == 20
    create, index, job, drop = [s.for_session(7).text for s in
                                split_sql_script((REPO / cfg.sql_workload.script).read_text())]
    widths = [int(w) for w in re.findall(r"(?:NUMBER|VARCHAR2)\((\d+)\)", create)] + [7] * create.count(" DATE ")
    assert 950 <= sum(widths) <= 1050, widths  # NUMBER(p) stores at most p digits in fewer bytes: about 1,000
    columns = re.fullmatch(r"CREATE INDEX load_S0007_ix ON load_S0007 \(([\w, ]+)\)", index)[1].split(",")
    assert len(columns) >= 2  # composite
    assert re.search(r"FOR i IN 1 \.\. 30000 LOOP\s+INSERT INTO load_S0007 .*?VALUES \(7, i,", job, re.S)
    assert re.search(r"IF MOD\(i, 1000\) = 0 THEN\s+COMMIT;", job) and job.count("COMMIT") == 1
    assert drop == "DROP TABLE load_S0007 PURGE"
