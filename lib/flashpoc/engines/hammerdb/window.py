"""The timed test's window and the load host's CPU over it, from a run's files (pure); a damaged
file loses them with a :class:`~flashpoc.core.damage.Loss` naming it, never shifts them.

The window is when the timed driver's monitor printed ``Rampup complete, Taking start ...`` and
``Test complete, Taking end ...``, as the virtual-user log dates them (``vuset timestamps 1``):
HammerDB writes each virtual user's line after a ``Timestamp N @ <time>`` line of that user, so a
``Vuser N:`` line without its own timestamp right before it (a line removed, repeated or moved)
makes the log's window untrustworthy; so does a time that does not read. The console and the job
store print the same two lines without times: when they show a window that no log gives, the log
is named as damaged or missing (the console names it: ``Logging activated to .../hammerdb_ID.log``).

The CPU is that of ``hostcpu.log`` (:mod:`.run`): a sample every :data:`~.run.CPU_EVERY_S` s,
numbered (``<time> <n> cpu ...``; an older file has no number, and then two samples are never
more than a second beyond that apart). A line that is not a whole sample, a number missing or
repeated (or, unnumbered, a gap), or samples that do not reach from before the window to after it
(a file cut short) lose the CPU, naming the file; only a last line without its newline (cut while
written) is left out alone.
"""

from __future__ import annotations

import re
from datetime import datetime

from flashpoc.core.damage import Loss
from flashpoc.core.errors import ParseError
from flashpoc.hosts.metrics import cpu_utilisation
from flashpoc.engines.hammerdb.lines import TIMESTAMP_LINE, line_text, vuser_message

_TIME_FORMATS = ("%Y-%m-%d %H:%M:%S", "%a %b %d %H:%M:%S UTC %Y", "%a %b %d %H:%M:%S GMT %Y")
_STAMP = re.compile(r"^Timestamp (\d+) @ (.+?)\s*$")
_WINDOW = {"start": re.compile(r"^Rampup complete, Taking start "), "end": re.compile(r"^Test complete, Taking end ")}
LOG_NAMED = re.compile(r"Logging activated to \S*?([^/\s]+\.log)\s*$", re.M)
_CPU_SAMPLE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (?:(\d+) )?(cpu(?: +\d+){4,})$")
_RUN_MARK = re.compile(r"^@@flashpoc (?:jobid|elapsed_ms) ", re.M)
#: the load host's CPU samples, and seconds between two (the run command's sampler)
CPU_LOG, CPU_EVERY_S = "hostcpu.log", 2
#: the CPU columns of a HammerDB row (the load host's, over the timed test)
CPU_COLUMNS = ("host_cpu_busy_pct", "host_cpu_user_pct", "host_cpu_system_pct", "host_cpu_iowait_pct")
#: the columns the window gives (with the CPU's)
WINDOW_COLUMNS = ("test_start", "test_end", "test_s", "intervals", "interval_tpm_cv_pct", "interval_tpm_drift_pct",
                  "interval_steady")
Window = tuple[datetime, datetime]


def parse_time(text: str) -> datetime | None:
    """A time as HammerDB prints it (job store ``2026-11-23 20:05:48``, logs ``Mon Nov 23
    20:05:48 UTC 2026``), or None."""
    for fmt in _TIME_FORMATS:
        try:
            return datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
    return None


def is_vuser_log(name: str) -> bool:
    """Whether ``name`` is a virtual-user log (``hammerdb.log``, ``hammerdb_<id>.log``)."""
    return name.startswith("hammerdb") and name.endswith(".log")


def _log_window(text: str) -> tuple[Window | None, str | None]:
    """The window one log gives, or None; and what is damaged in it (then no window)."""
    lines = text.splitlines()
    if not any(TIMESTAMP_LINE.match(line_text(line)) for line in lines):
        return None, None  # a log without timestamps: no window, nothing damaged
    found: dict[str, datetime] = {}
    stamp: tuple[int, datetime | None] | None = None
    for number, raw in enumerate(lines, 1):
        line = line_text(raw).rstrip()
        if TIMESTAMP_LINE.match(line):
            match = _STAMP.match(line)
            stamp = (int(match.group(1)), parse_time(match.group(2))) if match else (0, None)
            continue
        vu, message = vuser_message(line)
        if vu is not None:
            if stamp is None or stamp[0] != vu or stamp[1] is None:
                return None, f"line {number} (Vuser {vu}) has no readable timestamp of its own"
            for which, pattern in _WINDOW.items():
                if pattern.match(message):
                    found.setdefault(which, stamp[1])
        stamp = None
    if "start" in found and "end" in found and found["end"] > found["start"]:
        return (found["start"], found["end"]), None
    return None, None


def read_window(files: dict[str, str]) -> tuple[Window | None, Loss | None]:
    """When the timed test began counting and ended (:func:`_log_window` of the virtual-user log),
    or None; and the loss naming the log when the other sources show a window it does not give."""
    logs = sorted(name for name in files if is_vuser_log(name))
    for name in logs:
        window, damage = _log_window(files[name])
        if damage:
            return None, Loss(name, damage, WINDOW_COLUMNS + CPU_COLUMNS)
        if window:
            return window, None
    others = [text for name, text in files.items() if not is_vuser_log(name)]
    printed = all(any(words in text for text in others) for words in ("Rampup complete, Taking start",
                                                                       "Test complete, Taking end"))
    if not printed:
        return None, None
    named = next((m.group(1) for text in others for m in LOG_NAMED.finditer(text)), None)
    for name in logs:
        if _untimestamped(files[name]):  # a whole log without timestamps: no window was ever to be had
            return None, None
    if logs:
        return None, Loss(logs[0], "no timestamped 'Rampup complete' and 'Test complete' lines (cut short?)",
                          WINDOW_COLUMNS + CPU_COLUMNS)
    return None, Loss(named or "hammerdb*.log", "missing (the virtual-user log, whose timestamps date the timed test)",
                      WINDOW_COLUMNS + CPU_COLUMNS)


def _untimestamped(text: str) -> bool:
    """Whether a log's virtual users wrote lines without a timestamp (``vuset timestamps 0``):
    some ``Vuser N:`` lines and no ``Timestamp`` line."""
    lines = [line_text(line) for line in text.splitlines()]
    return any(vuser_message(line)[0] for line in lines) and not any(TIMESTAMP_LINE.match(line) for line in lines)


def timed_window(files: dict[str, str]) -> Window | None:
    """The window of :func:`read_window`, or None."""
    return read_window(files)[0]


def _cpu_samples(text: str) -> tuple[list[tuple[datetime, int | None, str]], str | None]:
    """The samples of ``hostcpu.log`` (time, number, ``cpu`` line) and what is damaged in it."""
    lines = text.split("\n")
    lines.pop()  # after the last newline: nothing, or a line cut while written
    samples: list[tuple[datetime, int | None, str]] = []
    for number, line in enumerate(lines, 1):
        match = _CPU_SAMPLE.match(line.rstrip())
        when = parse_time(match.group(1)) if match else None
        if when is None or (samples and len(match.group(3).split()) != len(samples[0][2].split())):
            return [], f"line {number} is not a whole CPU sample"
        samples.append((when, None if match.group(2) is None else int(match.group(2)), match.group(3)))
    numbered = {n is None for _, n, _ in samples}
    if len(numbered) > 1:
        return [], "some samples are numbered, some not"
    for (t0, n0, _), (t1, n1, _) in zip(samples, samples[1:]):
        if (n1 - n0 != 1) if n0 is not None else not 1 <= (t1 - t0).total_seconds() <= CPU_EVERY_S + 1:
            return [], f"a sample is missing, repeated or out of order after {t0:%H:%M:%S}"
    return samples, None


def read_host_cpu(files: dict[str, str], window: Window | None) -> tuple[dict[str, float | None], Loss | None]:
    """The load host's CPU use (%) over ``window`` (between the first and the last sample of
    ``hostcpu.log`` within it; for a window shorter than two samples apart, between the last sample
    before it and the first after) and the loss naming the file when it is damaged or missing (a run
    of flashpoc's, whose command samples the CPU, without it: its console marks the job id or the
    completion time); None values without a window."""
    none = dict.fromkeys(CPU_COLUMNS)
    if window is None:
        return none, None
    if CPU_LOG not in files:
        sampled = any(_RUN_MARK.search(text) for text in files.values())  # the run command's: it samples
        return none, (Loss(CPU_LOG, "missing", CPU_COLUMNS) if sampled else None)
    samples, damage = _cpu_samples(files[CPU_LOG])
    if not damage and not (samples and samples[0][0] <= window[0] and samples[-1][0] >= window[1]):
        damage = "its samples do not span the timed test (cut short?)"
    if damage:
        return none, Loss(CPU_LOG, damage, CPU_COLUMNS)
    inside = [cpu for when, _, cpu in samples if window[0] <= when <= window[1]]
    if len(inside) < 2:  # a window shorter than two samples apart (a short fixed work): the samples around it
        inside = [next(cpu for when, _, cpu in reversed(samples) if when <= window[0]),
                  next(cpu for when, _, cpu in samples if when >= window[1])]
    try:
        return cpu_utilisation(inside[0], inside[-1]), None
    except ParseError as error:
        return none, Loss(CPU_LOG, str(error), CPU_COLUMNS)


def host_cpu(files: dict[str, str], window: Window | None) -> dict[str, float | None]:
    """The CPU of :func:`read_host_cpu` (None values where it is lost)."""
    return read_host_cpu(files, window)[0]
