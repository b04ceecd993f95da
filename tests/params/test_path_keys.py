"""Path keys (flashpoc.params.paths): every key that names a path is typed as one, so that it is listed
by path_values and made canonical on its host; what validation judges from the text alone (fold)."""

from __future__ import annotations

import os
import posixpath
import re
from typing import Literal, get_args, get_origin

import pytest
from hypothesis import given, strategies as st
from pydantic import BaseModel

from flashpoc import cli
from flashpoc.engines import engine_names, engine_settings
from flashpoc.core.errors import ParameterError
from flashpoc.params import Campaign, campaign_from_dict
from flashpoc.params.paths import fold, path_values, role_of

#: a text key named or described as a path: it must be typed as one (flashpoc.params.paths)
PATH_NAME = re.compile(r"(^|_)(path|dir|workdir|file|home|script|known_hosts|exec\w*)($|_)|^(fio|vdbench)$")
PATH_WORDS = re.compile(r"\b(directory|folder|file(?! system)|path|executable)\b", re.I)


def _text(annotation) -> bool:
    """True when ``annotation`` takes free text (str, alone, optional or in a list; not a Literal)."""
    todo = [annotation]
    while todo:
        item = todo.pop()
        if item is str:
            return True
        if get_origin(item) is not Literal:
            todo += [a for a in get_args(item) if not isinstance(a, (str, int, float))]
    return False


def _models(annotation) -> list[type[BaseModel]]:
    todo, out = [annotation], []
    while todo:
        item = todo.pop()
        if isinstance(item, type) and issubclass(item, BaseModel):
            out.append(item)
        else:
            todo += list(get_args(item))
    return out


def every_field() -> list[tuple[type[BaseModel], str, object]]:
    """Every field of the campaign's models and of every engine's settings, each model once."""
    seen: set[type] = set()
    todo: list[type[BaseModel]] = [Campaign, *(engine_settings(name) for name in engine_names())]
    out = []
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, field in model.model_fields.items():
            out.append((model, name, field))
            todo += _models(field.annotation)
    return out


def test_every_key_named_or_described_as_a_path_is_typed_as_one():
    fields = every_field()
    typed = {f"{m.__name__}.{n}" for m, n, f in fields if role_of(f) is not None}
    looks = {f"{m.__name__}.{n}" for m, n, f in fields
             if _text(f.annotation) and (PATH_NAME.search(n) or PATH_WORDS.search(f.description or ""))}
    assert looks - typed == set(), "type these keys with a path type of flashpoc.params.paths"
    # and the keys of this issue are among them: targets, workdirs, results, scripts, the engines' homes
    assert {"TargetParams.path", "HostParams.workdir", "HostParams.fio", "HostParams.vdbench", "HostParams.key_file",
            "HostParams.known_hosts", "Campaign.results_dir", "SqlWorkloadParams.script", "OracleParams.wallet_dir",
            "CompareWith.results_dir", "SlobSettings.home", "SlobSettings.env_file", "HammerdbSettings.hammerdb_dir",
            "HammerdbSettings.env_file"} <= typed


def test_path_values_lists_every_path_typed_key_of_a_campaign(tmp_path):
    cfg = campaign_from_dict({
        "campaign": "c",
        "engine": {"slob": {"home": "~oracle/SLOB", "env_file": "slob.env", "db_host": "db", "schemas": 4, "scale": "10000"}},
        "hosts": [{"name": "load"}, {"name": "db", "address": "db1", "key_file": "~/.ssh/id", "known_hosts": "kh",
                                     "trust_unknown_host_key": True, "vdbench": "/opt/vdbench"}],
        "oracle": {"dsn": "db1/svc", "wallet_dir": "wallet"},
        "sql_workload": {"script": "job.sql", "sessions": 2},
        "report": {"compare": [{"campaign": "other", "results_dir": "~/old"}]},
    })
    found = {v.key: v for v in path_values(cfg)}
    assert set(found) == {"hosts[0].fio", "hosts[0].workdir", "hosts[1].key_file", "hosts[1].known_hosts",
                          "hosts[1].fio", "hosts[1].workdir", "hosts[1].vdbench", "engine.slob.home",
                          "engine.slob.env_file", "oracle.wallet_dir", "sql_workload.script",
                          "report.compare[0].results_dir", "results_dir"}
    assert found["engine.slob.home"].hosts == ("db",) and found["engine.slob.home"].written  # slob.conf goes there
    assert found["hosts[1].workdir"].hosts == ("db",) and found["hosts[1].workdir"].written
    assert found["hosts[1].known_hosts"].written and found["hosts[1].known_hosts"].hosts == ()  # this machine's
    assert not found["sql_workload.script"].written and not found["hosts[0].fio"].is_path  # fio: looked up in PATH
    os.environ["FLASHPOC_RESULTS_DIR"] = "/srv/results"
    try:
        assert {v.key: v.value for v in path_values(cfg)}["$FLASHPOC_RESULTS_DIR"] == "/srv/results"
    finally:
        del os.environ["FLASHPOC_RESULTS_DIR"]


SEGMENTS = st.sampled_from(["", ".", "..", "a", "b", "boot", "etc", "dev"])


@given(st.sampled_from(["", "/", "//", "~", "~news", "~/", "~root/", "./", "../"]), st.lists(SEGMENTS, max_size=6))
def test_fold_is_idempotent_and_is_the_path_of_what_it_names(head, parts):
    path = head + "/".join(parts)
    folded = fold(path)
    assert fold(folded) == folded
    assert "//" not in folded and "/./" not in folded and not folded.endswith("/.")
    if path.startswith("/"):  # no link followed: the kernel's folding of an absolute path without symbolic links
        assert folded == "/" + posixpath.normpath(path).lstrip("/")
    if path.startswith("~"):  # what ~ stands for is the host's: it stays, and no '..' climbs over it
        assert folded.split("/")[0] == path.split("/")[0]


@pytest.mark.parametrize("spelling", ["/dev/../boot/x.dat", "/dev//..//boot/x.dat", "/dev/./../etc/x.dat",
                                      "/tmp/../usr/x.dat"])
def test_a_written_target_that_climbs_out_of_dev_is_refused_by_validate(spelling, tmp_path, capsys):
    params = tmp_path / "p.yaml"
    params.write_text("campaign: c\nhosts: [{name: h}]\n"
                      f"targets: [{{name: t, path: {spelling}, size: 16m, allow_write: true}}]\n")
    assert cli.main(["validate", str(params)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "targets[0].path:" in err and "is in the system directory /" in err, err


@pytest.mark.parametrize("first, second", [("x.dat", "./x.dat"), ("/srv/x.dat", "/srv//y/../x.dat"),
                                           ("~/x.dat", "~/./x.dat")])
def test_one_file_named_as_two_targets_is_refused_naming_both_keys(first, second):
    with pytest.raises(ParameterError) as refused:
        campaign_from_dict({"campaign": "c", "hosts": [{"name": "h"}],
                            "targets": [{"name": "a", "path": first, "size": "16m", "create": True},
                                        {"name": "b", "path": second, "size": "16m", "create": True}]})
    assert "targets[1].path:" in str(refused.value) and "targets[0].path" in str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("path", ["~-/x.dat", "~+/x.dat", "~1x/x.dat"])
def test_a_tilde_is_followed_by_a_user_name_or_a_slash(path):
    with pytest.raises(ParameterError, match=r"targets\[0\]\.path: .* '~' is followed by a user name"):
        campaign_from_dict({"campaign": "c", "hosts": [{"name": "h"}],
                            "targets": [{"name": "a", "path": path, "size": "16m", "create": True}]})
