"""Generated: the path keys of each shipped parameters/*.yaml spelt every way a path can be (``~``,
``~user`` of this machine's users, ``..``, ``.``, ``//``, ``/dev/..``, real symbolic links into /boot,
/etc, /usr, /var/spool), with one invariant: a one-line refusal naming the key, or a campaign whose
every path the workbook writes is, made canonical independently (Python's expanduser and
realpath), outside the system directories (a target's device under /dev aside). Every host is this
machine, reached through its shell (flashpoc.hosts.paths on a LocalHost)."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from conftest import REPO
from flashpoc.core.errors import CheckFailed, ParameterError
from flashpoc.params import campaign_from_dict, in_system_dir, read_parameters_file, workbook_root
from flashpoc.params.paths import path_values
from flashpoc.hosts.host import LocalHost
from flashpoc.hosts.paths import settle_campaign

SHIPPED = sorted((REPO / "parameters").glob("*.yaml"))
USERS = [u for u in ("news", "mail", "root", "nobody", "daemon") if any(p.pw_name == u for p in pwd.getpwall())]
LINKED = {"boot": "/boot", "etc": "/etc", "usr": "/usr", "spool": "/var/spool", "tmp": "/tmp", "dev": "/dev",
          "vartmp": "/var/tmp"}
PARTS = ["..", ".", "", "boot", "etc", "usr", "spool", "x.dat", "flashpoc", "shm", "tmp", "var"]


@pytest.fixture(scope="module")
def links(tmp_path_factory) -> Path:
    """A folder of symbolic links into system directories (and into /tmp, /var/tmp, which are not)."""
    folder = tmp_path_factory.mktemp("links")
    for name, target in LINKED.items():
        (folder / name).symlink_to(target)
    return folder


def spellings(links: Path):
    heads = ["/", "//", "~/", *(f"~{u}/" for u in USERS), "/dev/../", "/dev/", "./", "../", "", "/tmp/", "/var/tmp/",
             "/tmp/../", f"{links}/", *(f"{links}/{name}/" for name in LINKED),
             *(f"{links}//{name}/../" for name in LINKED)]
    return st.builds(lambda head, parts: head + "/".join(parts), st.sampled_from(heads),
                     st.lists(st.sampled_from(PARTS), max_size=4))


def set_key(values: dict, cfg, key: str, value: str) -> None:
    """Set the path ``key`` (as path_values names it) in the raw parameters ``values``."""
    if key.startswith("engine."):
        name, field = key.split(".")[1:]
        if not isinstance(values.get("engine"), dict):  # 'engine: slob' with a top-level 'slob:' block
            values["engine"] = {name: values.pop(name, None) or {}}
        values["engine"][name] = {**(values["engine"][name] or {}), field: value}
        return
    if "hosts" not in values:  # an engine's own hosts (sqlscript: this machine)
        values["hosts"] = [h.model_dump(mode="json", exclude_defaults=True) | {"name": h.name} for h in cfg.hosts]
    node, parts = values, key.replace("[", ".").replace("]", "").split(".")
    for part, following in zip(parts, parts[1:]):
        node = node[int(part)] if part.isdigit() else node.setdefault(part, [] if following.isdigit() else {})
    node[parts[-1]] = value


def canonical_here(value: str, base: str) -> str:
    """The canonical path of ``value`` on this machine, found without the workbook's shell script."""
    expanded = os.path.expanduser(value)
    return os.path.realpath(expanded if expanded.startswith("/") else os.path.join(base, expanded))


def assert_one_line_naming(error: Exception, key: str) -> None:
    text = str(error)
    assert "Traceback" not in text and key in text, text
    assert len(text.splitlines()) == 1 or all(line.startswith("- ") for line in text.splitlines()[1:]), text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_path_spelt_any_way_is_refused_naming_its_key_or_every_written_path_is_outside_the_system(data, links):
    source = data.draw(st.sampled_from(SHIPPED), label="file")
    values = read_parameters_file(source)
    keys = [v.key for v in path_values(campaign_from_dict(dict(values))) if v.is_path or v.role.command]
    key = data.draw(st.sampled_from(keys), label="key")
    spelling = data.draw(spellings(links), label="spelling")
    set_key(values, campaign_from_dict(dict(values)), key, spelling)
    try:
        cfg = campaign_from_dict(values).resolved()
    except ParameterError as error:
        event("refused by validation")
        assert_one_line_naming(error, key)
        return
    try:
        settled = settle_campaign(cfg, {h.name: LocalHost(h) for h in cfg.hosts})  # every host is this machine
    except CheckFailed as error:
        event("refused on its host")
        assert_one_line_naming(error, key)
        return
    event("settled")
    home, root = os.path.expanduser("~"), str(workbook_root())
    for found in path_values(settled):
        if found.role.lives == "host" and found.is_path:
            assert not found.value.startswith("~"), found  # used as the host expanded it
        if found.written and found.is_path:
            real = canonical_here(found.value, home if found.role.base == "home" else root)
            device = found.role.writes == "target" and not found.creates and real.startswith("/dev/")
            assert device or in_system_dir(real) is None, (found, real)


@pytest.mark.parametrize("source", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_parameters_file_settles_on_this_machine(source):
    cfg = campaign_from_dict(read_parameters_file(source)).resolved()
    settled = settle_campaign(cfg, {h.name: LocalHost(h) for h in cfg.hosts})
    assert settled.measurement_hash() == cfg.measurement_hash()
