"""The campaign's own data is its own: random data that blkid reads as a file system.

Random data passes blkid's ext4 probe whenever bytes 1080-1081 read 0xEF53 (once in 65,536 random
headers): a campaign that filled or wrote its scratch file would, in time, be refused by its own
safety gate. The gate compares the first bytes with what the campaign left there when its last
writing phase ended (``written.json``); only bytes exactly as it left them are its own. These tests
use real blkid, real fio and the real probes, and generated headers for the rule itself."""

from __future__ import annotations

import hashlib
import json
import os
import random
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import require_fio
from flashpoc import phases
from flashpoc.campaign import written
from flashpoc.core.errors import CheckFailed
from flashpoc.hosts import safety
from test_safety import MIB, digest, probe, tool, write_campaign

HEADER = safety.HEADER_BYTES
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def first_bytes(path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(HEADER)


def ext4_lookalike(path, size=16 * MIB):
    """Random data whose bytes 1080-1081 are 0xEF53, as one random fill in 65,536 has them."""
    data = bytearray(os.urandom(size))
    data[1080:1082] = b"\x53\xef"
    path.write_bytes(bytes(data))
    return path


def safety_row(table):
    return table[table["check"] == "target lun7: data safety"].iloc[0]


def recorded(tmp_path) -> dict:
    return json.loads((tmp_path / "results" / "quick" / written.WRITTEN_FILE).read_text())["hosts"]["local"]


# -- the rule, on generated headers ------------------------------------------------------
SIGNATURE = st.sampled_from([None, (0, b"XFSB"), (1080, b"\x53\xef"), (32, b"ORCLDISK"), (4086, b"SWAPSPACE2")])
BLKID = st.sampled_from(["none", "TYPE=ext4", "TYPE=ext4dev", "TYPE=jbd", "PTTYPE=dos", "TYPE=xfs USAGE=filesystem"])
IN_USE = st.sampled_from([{}, {"mounted": "/u01"}, {"holders": "dm-3"}, {"open_by": "4242:ora_dbw0"}])


@st.composite
def target_facts(draw):
    header = bytearray(random.Random(draw(st.integers(0, 2**64))).randbytes(HEADER))  # any 8 KiB, shrinks to a seed
    signature = draw(SIGNATURE)
    if signature:
        offset, magic = signature
        header[offset:offset + len(magic)] = magic
    facts = {"type": draw(st.sampled_from(["block", "file"])), "header_hex": bytes(header).hex(),
             "blkid": draw(BLKID), "mounted": "none", "holders": "none", "open_by": "none", **draw(IN_USE)}
    return facts, bytes(header)


@FAST
@given(target_facts(), st.booleans(), st.integers(0, HEADER - 1))
def test_only_the_bytes_the_campaign_left_are_its_own(drawn, destroy_allowed, changed_at):
    facts, header = drawn
    judged = safety.verdict("lun7", "h1", safety.findings(facts), destroy_allowed=destroy_allowed)
    # another byte anywhere in the header: judged exactly as with no record
    other = bytearray(header)
    other[changed_at] ^= 0xFF
    left_other = {**facts, "left_by_campaign": {"header_sha256": safety.header_digest(bytes(other)), "at": "t"}}
    assert safety.verdict("lun7", "h1", safety.findings(left_other), destroy_allowed=destroy_allowed) == judged
    # the bytes as the campaign left them: never refused for data, still refused in use
    left_same = {**facts, "left_by_campaign": {"header_sha256": safety.header_digest(header), "at": "2026-11-28 05:00"}}
    found = safety.findings(left_same)
    status, detail = safety.verdict("lun7", "h1", found, destroy_allowed=destroy_allowed)
    assert not [f for f in found if f.kind == "data"]
    in_use = any(f.kind == "in use" for f in found)
    assert status == ("fail" if in_use else "pass")
    if judged[0] == "pass":  # nothing was found there: the same answer
        assert (status, detail) == judged
    elif not in_use:
        assert detail.startswith("holds only data this campaign wrote: its first 8 KiB are as this campaign "
                                 "left them (2026-11-28 05:00)")
        assert all(f.text in detail for f in safety.findings(facts))  # what the probes read is still said


DIGEST = st.sampled_from([None, "a" * 64, "b" * 64])


@FAST
@given(st.lists(st.tuples(st.sampled_from(["/d/1", "/d/2", "/d/3"]), DIGEST, st.booleans(), DIGEST), max_size=3,
                unique_by=lambda t: t[0]),
       st.dictionaries(st.sampled_from(["/d/1", "/d/2", "/d/9"]),
                       st.fixed_dictionaries({"target": st.just("x"), "header_sha256": DIGEST, "at": st.just("t0")})))
def test_another_owners_bytes_left_unchanged_never_become_the_campaigns(items, before_records):
    targets = [(SimpleNamespace(name=path.rsplit("/", 1)[1], path=path), before, foreign, after)
               for path, before, foreign, after in items]
    out = written.left_after(before_records, targets, "t1")
    for target, before, foreign, after in targets:
        if after is None or (foreign and (before is None or after == before)):
            assert target.path not in out
        else:
            assert out[target.path] == {"target": target.name, "header_sha256": after, "at": "t1"}
    untouched = set(before_records) - {t.path for t, *_ in targets}
    assert {p: out[p] for p in untouched} == {p: before_records[p] for p in untouched}


# -- real blkid, real fio, the real gate ----------------------------------------------------
def test_random_data_with_the_ext4_magic_is_a_file_system_to_blkid_only(tmp_path):
    """Why the record is needed: what a random fill can leave, read by the real probes."""
    tool("blkid")
    path = ext4_lookalike(tmp_path / "lun7.img")
    facts = probe([path])[0]
    assert safety.header_signatures(first_bytes(path)) == []  # the header rules out an ext superblock
    found = safety.findings(facts)
    assert [f.kind for f in found] == ["data"] and found[0].text.split()[1] in (
        "TYPE=ext4", "TYPE=ext4dev", "TYPE=jbd", "TYPE=ext2", "TYPE=ext3"), facts["blkid"]


def test_a_phase_records_what_it_left_and_the_next_check_reads_it(tmp_path):
    require_fio()
    path = tmp_path / "lun7.img"
    path.write_bytes(bytes(16 * MIB))
    cfg = write_campaign(tmp_path, path)
    assert safety_row(phases.run_check(cfg))["status"] == "pass"
    rows = phases.run_sweep(cfg, progress=False)
    assert rows["write_iops"].gt(0).all()
    left = recorded(tmp_path)[str(path)]
    assert left["target"] == "lun7"
    assert left["header_sha256"] == hashlib.sha256(first_bytes(path)).hexdigest()


def test_the_campaigns_own_ext4_lookalike_passes_and_any_other_change_is_refused(tmp_path):
    """The campaign's writes left random data that blkid reads as ext4: its gate and check pass it,
    naming what blkid read; once one byte of the header changes, the gate refuses again and writes nothing."""
    require_fio()
    tool("blkid")
    path = tmp_path / "lun7.img"
    path.write_bytes(bytes(16 * MIB))
    cfg = write_campaign(tmp_path, path)
    phases.run_check(cfg)
    phases.run_sweep(cfg, progress=False)  # the campaign writes the file and records what it left
    # the same phase, had its random data held 0xEF53 at byte 1080: rewrite the file so, and let the
    # phase's own record take it (the gate ran on what the sweep left, so that is the campaign's)
    ext4_lookalike(path)
    with phases.open_campaign(cfg) as wb:
        host = wb.cfg.hosts[0]
        target = wb.cfg.targets_of(host)[0]
        written.record(wb, [(host, target, None, False)])
    with phases.open_campaign(cfg) as wb:
        phases.safety_gate(wb)  # no refusal
    row = safety_row(phases.run_check(cfg))
    assert row["status"] == "pass", row["detail"]
    assert row["detail"].startswith("holds only data this campaign wrote: its first 8 KiB are as this campaign left them (")
    assert "blkid: TYPE=" in row["detail"]
    # another writer changes one byte of the header: the campaign no longer knows the data as its own
    data = bytearray(path.read_bytes())
    data[2000] ^= 0xFF
    path.write_bytes(bytes(data))
    before = digest(path)
    with pytest.raises(CheckFailed, match="nothing was written:\n- target lun7 on host local holds data: blkid: TYPE="):
        phases.run_sweep(cfg, progress=False)
    assert digest(path) == before
    assert safety_row(phases.run_check(cfg))["status"] == "fail"
