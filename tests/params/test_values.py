"""Every value of the parameters once more, generated: each shipped parameters file with one value
changed (a number in every YAML 1.1 and 1.2 spelling, in Unicode digits, huge; a text with a control
character, a password, other digits; a key naming a secret) is either refused in one line naming the
key (never showing the password) or read into a campaign whose every number is the one YAML 1.2
reads in the file. And the readers below it: :func:`read_number`, :func:`value_problem`,
:func:`key_text`."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st
from ruamel.yaml import YAML

from conftest import REPO
from flashpoc.core.errors import ParameterError
from flashpoc.params import (NumberSpelling, campaign_from_dict, key_text, path_text, read_number, read_parameters_file,
                             read_parameters_text, value_problem)

SHIPPED = {path.name: read_parameters_file(path) for path in sorted((REPO / "parameters").glob("*.yaml"))}
SECRET = "Tiger-Secret-9f3"
PLACEHOLDER = "FLASHPOC-MUTATION-HERE"
#: keys whose value is text that is never read as a number (a description, a path, a DSN): any digit goes
TEXT_KEYS = {"description", "dsn", "script", "label", "path", "results_dir", "key_file", "hammerdb_dir", "home",
             "env_file"}
DIGITS = {"fullwidth": "０１２３４５６７８９", "arabic-indic": "٠١٢٣٤٥٦٧٨٩", "devanagari": "०१२३४५६७८९",
          "mathematical bold": "𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗", "bengali": "০১২৩৪৫৬৭৮৯"}
FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in _leaves(item, path + (key,))]
    if isinstance(value, list):
        return [leaf for i, item in enumerate(value) for leaf in _leaves(item, path + (i,))]
    return [(path, value)]


def _mappings(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [path] + [p for key, item in value.items() for p in _mappings(item, path + (key,))]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _mappings(item, path + (i,))]
    return []


NUMBERS = [(name, path) for name, values in SHIPPED.items() for path, value in _leaves(values)
           if isinstance(value, (int, float)) and not isinstance(value, bool)]
TEXTS = [(name, path) for name, values in SHIPPED.items() for path, value in _leaves(values)
         if isinstance(value, str) and not str(path[-1]).endswith("_env")]
MAPPINGS = [(name, path) for name, values in SHIPPED.items() for path in _mappings(values)]


def _at(values: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        values = values[part]
    return values


def _written(name: str, path: tuple[Any, ...], raw: str, key: str | None = None) -> str:
    """The shipped file ``name`` as YAML text with the value at ``path`` written as the YAML source
    ``raw`` (or, with ``key``, the mapping at ``path`` given ``key: raw`` besides its own keys)."""
    values = copy.deepcopy(SHIPPED[name])
    if key is None:
        _at(values, path[:-1])[path[-1]] = PLACEHOLDER
    else:
        _at(values, path)[key] = PLACEHOLDER
    text = yaml.safe_dump(values, sort_keys=False, allow_unicode=True, width=1_000_000)
    assert text.count(PLACEHOLDER) == 1
    return text.replace(PLACEHOLDER, raw)


def _number(value: Any) -> Any:
    """A dumped value as a number: a size kept as its text of whole bytes is one."""
    return int(value) if isinstance(value, str) and value.isascii() and value.isdigit() else value


def _read(text: str):
    """The campaign of parameters text, or the one line refusing it."""
    try:
        return campaign_from_dict(read_parameters_text(text, "mutated.yaml")), None
    except ParameterError as error:
        message = str(error)
        assert "\n" not in message and len(message) < 700 and SECRET not in message, message
        return None, message


def _as_yaml_1_2_reads(text: str, cfg) -> None:
    """Every number YAML 1.2 reads in ``text`` (ruamel.yaml's own YAML 1.2 reader) is the campaign's."""
    dumped = cfg.model_dump(mode="python")
    for path, number in _leaves(YAML(typ="safe", pure=True).load(text)):
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            stored = _at(dumped, path[:-1]) if isinstance(path[-1], int) else _at(dumped, path)
            assert number in [_number(v) for v in stored] if isinstance(path[-1], int) else _number(stored) == number, (
                path_text(path), number, stored)


def _spelling(n: int, kind: str) -> tuple[str, float | None]:
    """``n`` written as ``kind``, and the number YAML 1.2 reads in it (None: flashpoc must refuse it)."""
    if kind in DIGITS:
        return str(n).translate(str.maketrans("0123456789", DIGITS[kind])), None
    return {
        "decimal": (str(n), n), "signed": (f"+{n}", n), "exponent": (f"{n}e0", float(n)),
        "fraction": (f"{n}.5", n + 0.5), "leading zero": (f"0{n}", None), "octal": (f"0o{n:o}", None),
        "hex": (f"0x{n:x}", None), "binary": (f"0b{n:b}", None), "digit groups": (f"1_{n:03d}", None),
        "base 60": (f"{n // 60 + 1}:{n % 60:02d}", None), "huge": ("9" * (101 + n % 6000), None),
        "inf": (".inf", None), "nan": (".nan", None), "minus inf": ("-.inf", None), "beyond double": ("1e400", None),
        "yes": ("yes", None), "off": ("off", None),
    }[kind]


KINDS = ["decimal", "signed", "exponent", "fraction", "leading zero", "octal", "hex", "binary", "digit groups",
         "base 60", "huge", "inf", "nan", "minus inf", "beyond double", "yes", "off", *DIGITS]


@FAST
@given(where=st.sampled_from(NUMBERS), kind=st.sampled_from(KINDS), data=st.data())
def test_a_number_in_any_spelling_is_refused_naming_its_key_or_read_as_yaml_1_2_reads_it(where, kind, data):
    name, path = where
    written = max(1, int(_at(SHIPPED[name], path)))  # the file's own number, within its bounds, or another
    n = data.draw(st.one_of(st.just(written), st.integers(1, 2 * written + 10)))
    raw, expected = _spelling(n, kind)
    text = _written(name, path, raw)
    cfg, refusal = _read(text)
    if refusal is not None:  # a number as written may still be out of bounds, or break a rule of its block
        assert path_text(path) in refusal if expected is None else any(
            part in refusal for part in path if isinstance(part, str)), (raw, refusal)
        return
    assert expected is not None, f"{name}: {path_text(path)}: {raw!r} was read"
    _as_yaml_1_2_reads(text, cfg)
    assert _number(_at(cfg.model_dump(mode="python"), path)) == expected


@FAST
@given(where=st.sampled_from(TEXTS), kind=st.sampled_from(["control", "secret", "digits"]), data=st.data())
def test_a_text_with_a_control_character_a_password_or_other_digits_is_refused_naming_its_key(where, kind, data):
    name, path = where
    value = _at(SHIPPED[name], path)
    if kind == "control":
        char = data.draw(st.sampled_from(["\0", "\a", "\t", "\n", "\r", "\x1b", "\x7f", "\x85", "\x9b", "\u2028",
                                          "\u202e", "\u2066"]))
        written = value[:1] + "x" + char + "[31m" + value[1:]
    elif kind == "secret":
        written = data.draw(st.sampled_from([f"system/{SECRET}@db1:1521/orcl", f"https://poc:{SECRET}@share/x",
                                             f"host=db1 password={SECRET}", f"jdbc:oracle:thin:scott/{SECRET}@db1/o"]))
    else:
        written = value.translate(str.maketrans("0123456789", DIGITS[data.draw(st.sampled_from(sorted(DIGITS)))]))
    text = _written(name, path, json.dumps(written))  # a JSON string is a YAML double-quoted scalar
    cfg, refusal = _read(text)
    if kind == "digits" and (written == value or path[-1] in TEXT_KEYS):
        assert refusal is not None or _at(cfg.model_dump(mode="python"), path) == written.strip()
        return
    assert refusal is not None and path_text(path) in refusal, (written, refusal)
    assert ("no password" in refusal) == (kind == "secret"), refusal
    assert kind != "control" or "U+" in refusal


@FAST
@given(where=st.sampled_from(MAPPINGS),
       key=st.sampled_from(["password", "passwd", "pg_pass", "sysdba_password", "passphrase", "api_token", "secret",
                            "wallet_password", "Password"]),
       raw=st.sampled_from([SECRET, f"'{SECRET}'", "123456789", "true"]))
def test_a_key_naming_a_secret_is_refused_anywhere_without_showing_it(where, key, raw):
    name, path = where
    cfg, refusal = _read(_written(name, path, raw, key=key))
    assert refusal is not None and f"{path_text(path + (key,))}: no password in the parameters" in refusal, refusal


@pytest.mark.parametrize("text,number", [
    ("10", 10), ("-3", -3), ("+7", 7), ("0", 0), ("2.5", 2.5), (".5", 0.5), ("5.", 5.0), ("01.5", 1.5),
    ("1e3", 1000.0), ("1.5E-3", 0.0015), ("9" * 100, int("9" * 100))])
def test_a_number_is_read_as_yaml_1_2_reads_it(text, number):
    read = read_number(text)
    assert read == number and type(read) in (int, float) or isinstance(read, float) and repr(read) == text


@pytest.mark.parametrize("text,reason", [
    ("010", "leading zero"), ("-007", "leading zero"), ("0o17", "base 8"), ("0x1F", "base 16"), ("0b101", "base 2"),
    ("1_000", "groups digits"), ("9" * 101, "101 digits"), ("1e400", "beyond"), ("-1e400", "beyond"),
    ("1e-400", "beyond")])
def test_a_number_yaml_readers_disagree_on_is_refused_with_its_reason(text, reason):
    read = read_number(text)
    assert isinstance(read, NumberSpelling) and str(read) == text and reason in read.reason


@given(st.integers(-10**40, 10**40))
def test_every_plain_whole_number_is_read_as_written(n):
    assert read_number(str(n)) == n


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_python_writes_is_read_as_written(x):
    text = repr(x)
    assert read_number(text) == x or "e" not in text.lower() and "." not in text


def test_the_yaml_1_1_readings_the_issue_names_are_refused_or_text():
    base = "campaign: c\nhosts: [{name: h1}]\ntargets: [{name: t, path: /tmp/t.dat, size: 1g, create: true}]\n"
    assert read_parameters_text(base + "engine: {fio: {ramp_s: 10}}\n")["engine"]["fio"]["ramp_s"] == 10
    assert isinstance(read_parameters_text(base + "engine: {fio: {ramp_s: 010}}\n")["engine"]["fio"]["ramp_s"],
                      NumberSpelling)
    assert read_parameters_text(base + "probe: {max_threads: 1:04}\n")["probe"]["max_threads"] == "1:04"
    assert read_parameters_text(base + "x: [yes, no, on, off, 2024-01-01]\n")["x"] == ["yes", "no", "on", "off",
                                                                                         "2024-01-01"]
    assert read_parameters_text("%YAML 1.2\n---\n" + base + "engine: {fio: {ramp_s: 10}}\n")["engine"]
    with pytest.raises(ParameterError, match=r"^invalid parameters in parameters: %YAML 1.1: parameters are "
                                             r"read as YAML 1.2"):
        read_parameters_text("%YAML 1.1\n---\n" + base)


def test_keys_are_shown_readable():
    assert key_text("max_threads") == "max_threads"
    assert key_text("") == "(an empty key)"
    assert key_text("k" * 200_000) == "'" + "k" * 40 + "...' (200,000 characters)"
    assert key_text("a\x1b[31m") == "'a\\x1b[31m'"
    assert path_text(("hosts", 0, "", "x")) == "hosts[0].(an empty key).x"


@pytest.mark.parametrize("values,problem", [
    ({"oracle": {"dsn": f"system/{SECRET}@db/svc"}}, "oracle.dsn: no password"),
    ({"oracle": {"user": f"system/{SECRET}"}}, "oracle.user: no password"),
    ({"hosts": [{"superuser": f"a/{SECRET}"}]}, "hosts[0].superuser: no password"),
    ({"engine": {"hammerdb": {"tpcc_pass": SECRET}}}, "engine.hammerdb.tpcc_pass: no password"),
    ({"description": "x", "oracle": {"dsn": f"scott/{SECRET}@db"}}, "oracle.dsn: no password"),
    ({"description": "a\x00", "oracle": {"dsn": f"scott/{SECRET}@db"}}, "oracle.dsn: no password"),  # a password first
    ({"report": {"label": "\x1b[31mA"}}, "report.label: holds U+001B"),
    ({"hosts": [{"name\n": "h"}]}, "hosts[0].'name\\n': the key holds U+000A"),
    ({"probe": {"max_threads": NumberSpelling("010", "has a leading zero")}}, "probe.max_threads: 010 has a leading"),
])
def test_the_one_check_of_every_value(values, problem):
    assert value_problem(values).startswith(problem)
    assert SECRET not in value_problem(values)


@pytest.mark.parametrize("values", [
    {"oracle": {"dsn": "db1.example.com:1521/orcl", "user": "system", "password_env": "FLASHPOC_ORACLE_PASSWORD"}},
    {"targets": [{"path": "/u01/oradata/a@b.dbf"}], "description": "  text\n", "hosts": [{"user": "oracle"}]},
    {"hosts": [{"key_file": "/k", "key_passphrase_env": "P"}], "engine": {"slob": {"sysdba_passwd_env": "S"}}},
])
def test_what_is_no_password_passes(values):
    assert value_problem(values) is None


def test_a_structure_that_holds_itself_is_refused():
    values: dict[str, Any] = {"a": []}
    values["a"].append(values)
    assert value_problem(values) == "a[0].a[0].a[0].a[0].a[0].a[0].a[0].a[0]: nested more than 16 levels deep"


def test_the_shipped_parameters_are_read_as_before(repo):
    """Each shipped file reads the same under YAML 1.2 as PyYAML (YAML 1.1) read it: nothing in them
    is read differently."""
    for name, values in SHIPPED.items():
        assert values == yaml.safe_load((repo / "parameters" / name).read_text()), name


def test_a_file_of_the_schema_s_size_is_read_in_well_under_a_second(tmp_path):
    import time

    text = Path(REPO / "parameters" / "guide-vdbench-5hosts.yaml").read_text()
    started = time.perf_counter()
    for _ in range(10):
        campaign_from_dict(read_parameters_text(text))
    assert (time.perf_counter() - started) / 10 < 0.5
