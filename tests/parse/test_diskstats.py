"""The load hosts' device counters a live view shows while a client/server point runs
(flashpoc.hosts.diskstats): the devices found as the kernel counts them, each second the
difference of two real samples, damage that loses seconds and never changes one, and the sampler
run for real on this machine, stopped by the workbook."""

from __future__ import annotations

import functools
import os
import time

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import DATA
from damage import damage_text
from flashpoc.hosts.diskstats import (MARK, DeviceSampler, DiskstatsFeed, devices_command, owned_devices, parse_devices,
                                      second_values)
from flashpoc.core.errors import RemoteError
from flashpoc.engines.fio.status import HostSeconds
from flashpoc.hosts.host import connect
from flashpoc.params import HostParams

CAPTURE = DATA / "diskstats" / "sampler-vda-loop0.txt"
"""A real capture of the sampler on this kind of machine: fio reading 4 KiB blocks of a file on the
virtio disk (vda) and writing 8 KiB blocks to a loop device (loop0), for 6 seconds."""
DEVICES = ["254:0", "7:0"]
START = 1_795_931_720.0
"""The sampling began on the second of its first sample (1,795,931,720.004375805)."""


def seconds_of(text: str) -> list[tuple[float, dict]]:
    got: list[tuple[float, dict]] = []
    feed = DiskstatsFeed(lambda values, *, second: got.append((second, values)), DEVICES, START)
    for line in text.splitlines():
        feed(line)
    return got


@functools.cache
def clean() -> dict[float, dict]:
    return dict(seconds_of(CAPTURE.read_text()))


def test_a_second_is_the_difference_of_two_samples_of_every_device():
    """Samples 1 and 2 of the capture (1,795,931,720.004375805 and .721.004674206, 1.000298401 s
    apart): loop0 wrote 84,207 - 39,017 = 45,190 times, 4,119,658 - 3,396,618 = 723,040 sectors
    in 11,871 - 11,211 = 660 ms; vda read 569,209,155 - 569,181,119 = 28,036 times, 5,894,595,898 -
    5,894,371,610 = 224,288 sectors in 71,822,371 - 71,821,648 = 723 ms."""
    seconds = clean()
    assert sorted(seconds) == [1.0, 2.0, 3.0, 4.0, 5.0]  # 6 samples: the last has no next mark
    first = seconds[1.0]
    assert first["iops"] == pytest.approx((45_190 + 28_036) / 1.000298401, rel=1e-9)
    assert first["lat_mean_ms"] == pytest.approx((660 + 723) / (45_190 + 28_036), rel=1e-12)
    assert first["bw_mibps"] == pytest.approx((723_040 + 224_288) * 512 / 1.000298401 / 1024**2, rel=1e-9)


def test_no_io_has_no_latency_and_a_counter_gone_down_no_second():
    same = {"254:0": (10, 80, 3)}
    assert second_values(same, same, 1.0) == {"iops": 0.0, "lat_mean_ms": None, "bw_mibps": 0.0}
    assert second_values({"254:0": (10, 80, 3)}, {"254:0": (9, 88, 4)}, 1.0) is None  # the device was reset
    assert second_values(same, {"7:0": (10, 80, 3)}, 1.0) is None  # not the same devices


def test_hosts_that_share_a_kernel_count_its_devices_once():
    found = {"h1": ("boot-a", ["254:0", "7:0"]), "h2": ("boot-a", ["254:0"]), "h3": ("boot-b", ["254:0"]),
             "h4": ("", ["254:0"]), "h5": ("boot-a", ["7:1", "254:0"])}
    assert owned_devices(found) == {"h1": ["254:0", "7:0"], "h3": ["254:0"], "h4": ["254:0"], "h5": ["7:1"]}


def test_the_devices_behind_the_targets_as_the_kernel_counts_them(tmp_path):
    """On this machine: a file's device is its file system's (os.stat's st_dev), a path not yet made
    its folder's, each device once; tmpfs and /proc have none among the kernel's disks."""
    data = tmp_path / "lun file.dat"  # a space: the path is quoted
    data.write_bytes(b"x" * 4096)
    with connect(HostParams(name="here", address="localhost")) as host:
        text = host.run(devices_command([str(data), str(tmp_path / "not-yet"), "/proc/uptime", "/dev/shm"]),
                        purpose="find the devices").stdout
    dev = os.stat(data).st_dev
    expected = f"{os.major(dev)}:{os.minor(dev)}"
    boot, devices = parse_devices(text)
    assert boot == open("/proc/sys/kernel/random/boot_id").read().strip()
    if os.major(dev) == 0:  # an overlay or tmpfs test folder: no disk of the kernel's counts it
        assert devices == []
        return
    assert devices == [expected]
    assert text.count(f"dev {expected} ") == 2 and "none /proc/uptime" in text and "none /dev/shm" in text


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_damaged_capture_loses_seconds_never_changes_one(data):
    damaged, what = damage_text(data, CAPTURE.read_text())
    got = seconds_of(damaged)
    assert len({s for s, _ in got}) == len(got), what
    for second, values in got:
        assert values == clean().get(second), f"{what}: second {second} changed"


@settings(max_examples=200, deadline=None)
@given(start=st.floats(0, 0.999), late=st.lists(st.integers(0, 450_000_000), min_size=7, max_size=7))
def test_late_samples_give_one_second_each(start, late):
    """The capture's seven samples, each taken late on its whole second by up to 0.45 s (a busy host),
    with the sampling begun at any moment of its first second: each interval is one second of its
    own, in order, where the samples' exact times, rounded, gave a late sample and the next one the
    same second ([2.0, 2.0] in a live view); the IOPS are over the samples' real distance."""
    assume(abs(start - 0.5) > 1e-6)  # (the start's own float rounding, 0.2 microseconds at this epoch)
    lines, stamps = CAPTURE.read_text().splitlines(), iter(late)
    moved = [f"{MARK}{line.split()[-1].split('.')[0]}.{next(stamps):09d}" if line.startswith(MARK) else line
             for line in lines]
    got: list[tuple[float, dict]] = []
    feed = DiskstatsFeed(lambda values, *, second: got.append((second, values)), DEVICES, START + start)
    for line in moved:
        feed(line)
    assert [second for second, _ in got] == [float(n - (start > 0.5)) for n in range(1, 6)]
    # the first interval, as the test above reads it: 45,190 + 28,036 I/Os
    assert got[0][1]["iops"] == pytest.approx((45_190 + 28_036) / (1 + (late[1] - late[0]) / 1e9), rel=1e-9)


def test_the_sampler_hands_seconds_while_it_runs_and_ends_when_told(tmp_path):
    """The real sampler on this machine's disk, from two hosts with work folders of their own: a
    second each second while the block runs, none after it; told to stop, each sampler ends within
    its next second and removes its stop file."""
    data = tmp_path / "data"
    data.write_bytes(b"x" * 4096)
    dev = os.stat(data).st_dev
    if os.major(dev) == 0:
        pytest.skip("the test folder is on no disk of the kernel's (overlay or tmpfs)")
    got: dict[str, list[tuple[float, float]]] = {"a": [], "b": []}
    hosts = []
    for name in got:
        (tmp_path / name).mkdir()
        hosts.append(connect(HostParams(name=name, address="localhost", workdir=str(tmp_path / name))))
    device = f"{os.major(dev)}:{os.minor(dev)}"
    sampler = DeviceSampler(hosts, {"a": [device], "b": [device]},
                            lambda name: lambda values, *, second: got[name].append((time.monotonic(), second)),
                            max_s=60)
    with sampler:
        time.sleep(3.5)
    left = time.monotonic()
    for thread in sampler._threads:
        thread.join(timeout=10)
    ended = time.monotonic() - left
    for host in hosts:
        host.close()
    assert all(not thread.is_alive() for thread in sampler._threads) and ended < 5, ended  # on a busy machine too
    for seconds in got.values():
        assert seconds and [s for _, s in seconds] == sorted({s for _, s in seconds}), got
        assert all(at < left for at, _ in seconds)
    assert not sampler.errors and not list(tmp_path.rglob(".flashpoc-diskstats-stop*"))


class GoneHost:
    """A host whose connection is lost as its sampler starts (what the sampler sees of a host gone)."""

    name = "gone"
    params = HostParams(name="gone", address="192.0.2.1")  # a documentation address: never dialled

    def run(self, command, **kw):
        raise RemoteError("gone: connection lost during sample its devices' counters")


def test_a_host_whose_sampler_fails_does_not_hold_back_the_others(tmp_path):
    """Two hosts' seconds summed (as a client/server point sums them): one host's sampler fails at
    once; the other's seconds are handed over without it, and the failure is kept."""
    data = tmp_path / "data"
    data.write_bytes(b"x" * 4096)
    dev = os.stat(data).st_dev
    if os.major(dev) == 0:
        pytest.skip("the test folder is on no disk of the kernel's (overlay or tmpfs)")
    seen: list[float] = []
    merged = HostSeconds(lambda values, *, second, warmup=False: seen.append(second), ["here", "gone"])
    device = f"{os.major(dev)}:{os.minor(dev)}"
    with connect(HostParams(name="here", address="localhost", workdir=str(tmp_path))) as here:
        sampler = DeviceSampler([here, GoneHost()], {"here": [device], "gone": [device]}, merged.of, max_s=60,
                                on_gone=merged.drop)
        with sampler:
            time.sleep(3.5)
    assert seen and seen == sorted(set(seen)), seen
    assert sampler.errors["gone"] == "gone: connection lost during sample its devices' counters"

