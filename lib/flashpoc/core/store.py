"""Campaign results on disk: raw engine outputs per point, a tidy table, a manifest.

Layout of ``results/<campaign>/``::

    manifest.json                 format version, parameters + hash, engine versions,
                                  host facts, git commit
    check.csv                     the environment check table
    probe.json                    the saturation probe's answer
    points/<phase>/<point-id>/    one directory per completed run point:
        point.json                the tidy row (parameters + metrics with units)
        <host>.job.fio, <host>.json, ...   raw inputs and outputs of the engine, per host
        intervals.csv             the point's time series (INTERVAL_COLUMNS), when the engine gives one
        histogram.csv             the point's latency histogram (HISTOGRAM_COLUMNS), fio and vdbench
    points.csv                    the points of the current measurement settings as one table
    notebooks/, report/           executed notebooks, report files

Every write is atomic: a point directory is written under a temporary name and renamed
into place, and files are written to a temporary name and renamed, so a run killed at any
moment leaves either a whole point or none.

History of the format (``format_version`` in manifest.json; a directory of another version is
refused, so a change that the reader of the version before cannot read takes a new number):

- 1: the layout above. Changes since, each read by this version's reader and written by it:
  ``params`` holds the engine's settings as the ``engine:`` block (``engine: {fio: {...}}``)
  rather than a top-level key per engine (``engine: fio``, ``fio: {...}``, ``vdbench: {...}``,
  ``slob: {...}``); both load as the same campaign, with the same measurement hash
  (:func:`flashpoc.params.Campaign._engine_block`). ``engine_versions`` records every engine's
  version per host as its check found it (:meth:`flashpoc.engines.base.Engine.check_versions`:
  fio's per host, vdbench's on the controller, SLOB's database release), not only fio's; the
  report still reads an empty one from the check table.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from flashpoc import __version__
from flashpoc.core.errors import FlashpocError
from flashpoc.core.processes import parent_pid

FORMAT_VERSION = 1
LOCK_FILE = ".lock"
_HELD: dict[str, list[int]] = {}  # lock path -> [fd, depth]: the lock is re-entrant within a process
_UMASK = os.umask(0)
os.umask(_UMASK)


INTERVALS_FILE = "intervals.csv"
INTERVAL_COLUMNS: tuple[str, ...] = ("point_id", "second", "iops", "read_iops", "write_iops", "lat_mean_ms",
                                     "read_lat_mean_ms", "write_lat_mean_ms", "warmup")
"""Columns of a point's ``intervals.csv``: ``second`` is the end of the interval in seconds since
the point started (warm-up included), IOPS per interval, mean latency (ms) per interval, and
``warmup`` (True for intervals the engine leaves out of the point's result). A vdbench run
directory holds the intervals of each of its points, told apart by ``point_id``."""

HISTOGRAM_FILE = "histogram.csv"
HISTOGRAM_COLUMNS: tuple[str, ...] = ("point_id", "direction", "clat_us", "count")
"""Columns of a point's ``histogram.csv``: latency bins per direction (read, write, or total)
with their I/O ``count``: fio's completion-latency bins merged over hosts (``clat_us`` the bin
value), or vdbench's response-time buckets (``clat_us`` the bucket's upper bound), in us."""


def table_text(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    """CSV text of ``rows`` with ``columns`` (missing values empty)."""
    return pd.DataFrame(rows, columns=list(columns)).to_csv(index=False)


class StoreError(FlashpocError):
    """The results directory is unusable (wrong format version, unreadable files)."""


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file and a rename: ``path`` is the old file
    or the new one, whole, whatever happens (a full disk, a kill); return ``path``.

    Raises:
        StoreError: the file cannot be written (naming it and why; nothing is left half-written).
    """
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        os.fchmod(fd, 0o666 & ~_UMASK)  # mkstemp makes 0600; results are ordinary files
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode() if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as error:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise _write_error(path, error) from None
        raise
    return path


def _write_error(path: Path, error: OSError) -> StoreError:
    """One clear error for a write of ``path`` that failed; a full file system said as such."""
    reason = error.strerror or str(error)
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return StoreError(f"cannot write {path}: {reason}: free space on its file system and run again "
                          "(the results stored so far are whole; completed points are reused)")
    return StoreError(f"cannot write {path}: {reason}")


def _ancestors() -> set[int]:
    """Pids of this process's parent, its parent's parent, ... (from /proc)."""
    found, pid = set(), os.getppid()
    while pid is not None and pid > 1 and pid not in found:
        found.add(pid)
        pid = parent_pid(pid)
    return found


def _fsync_dir(path: Path) -> None:
    """Make a rename in ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _json(obj: Any, sort_keys: bool = True) -> str:
    return json.dumps(obj, indent=1, sort_keys=sort_keys, default=str) + "\n"


def git_commit(directory: Path) -> str | None:
    """The git commit of the workbook at ``directory`` (with ``-dirty``), or None."""
    try:
        out = subprocess.run(["git", "-C", str(directory), "describe", "--always", "--dirty", "--abbrev=12"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


class CampaignStore:
    """Reads and writes one campaign's results directory."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    # -- small JSON/CSV documents -------------------------------------------------
    def write_json(self, name: str, obj: Any) -> Path:
        """Write ``obj`` as ``root/name`` atomically and return the path."""
        return write_atomic(self.root / name, _json(obj))

    def read_json(self, name: str) -> Any:
        """Read ``root/name``; raises StoreError naming the file when missing or broken."""
        path = self.root / name
        try:
            return json.loads(path.read_text())
        except FileNotFoundError:
            raise StoreError(f"{path} does not exist") from None
        except (OSError, json.JSONDecodeError) as error:
            raise StoreError(f"{path} is unreadable: {error}") from None

    def write_table(self, name: str, frame: pd.DataFrame) -> Path:
        """Write a DataFrame as CSV atomically."""
        return write_atomic(self.root / name, frame.to_csv(index=False))

    # -- manifest ---------------------------------------------------------------
    def write_manifest(self, params: dict[str, Any], params_hash: str, *, engine: str,
                       engine_versions: dict[str, str], host_facts: dict[str, Any],
                       workbook: Path | None = None, environment: dict[str, Any] | None = None) -> Path:
        """Write manifest.json (refusing a directory written by another format version);
        ``environment`` is the engine-blind section of :func:`flashpoc.campaign.environment.environment_section`."""
        existing = self.root / "manifest.json"
        if existing.exists():
            self.check_format()
        manifest = {
            "format_version": FORMAT_VERSION,
            "flashpoc_version": __version__,
            "written_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "engine": engine,
            "engine_versions": engine_versions,
            "params_hash": params_hash,
            "params": params,
            "host_facts": host_facts,
            "environment": environment or {},
            "git_commit": git_commit(workbook) if workbook else None,
        }
        return self.write_json("manifest.json", manifest)

    def check_format(self) -> None:
        """Raise StoreError unless manifest.json has this flashpoc's format version."""
        version = self.read_json("manifest.json").get("format_version")
        if version != FORMAT_VERSION:
            raise StoreError(f"{self.root} holds results of format version {version}; "
                             f"this flashpoc reads version {FORMAT_VERSION}")

    # -- one run at a time ------------------------------------------------------
    @contextlib.contextmanager
    def lock(self):
        """Hold the campaign for one run: a second process running a phase of the same campaign
        is refused while this one runs (an advisory ``flock`` on ``.lock``, which the kernel
        drops when the process dies, even by SIGKILL). On taking it, what a killed run left
        half-written (temporary point directories and files) is removed; whole points stay.

        A process started by the holder (the notebook kernels of a ``flashpoc run``, which holds
        the campaign for all its phases) is let in: the campaign is its run's.

        Raises:
            StoreError: another process holds the campaign (its pid is named).
        """
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise _write_error(self.root, error) from None
        path = str(self.root / LOCK_FILE)
        if path in _HELD:
            _HELD[path][1] += 1
            try:
                yield self
            finally:
                _HELD[path][1] -= 1
            return
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666 & ~_UMASK)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            if holder.isdigit() and int(holder) in _ancestors():
                yield self  # the run that holds the campaign started this process
                return
            raise StoreError(f"campaign {self.root.name} is being run by another process (pid {holder}); "
                             f"wait for it to end, or stop it: its completed points are kept") from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        except OSError as error:
            os.close(fd)
            raise _write_error(Path(path), error) from None
        _HELD[path] = [fd, 1]
        try:
            self.remove_partial()
            yield self
        finally:
            del _HELD[path]
            os.close(fd)  # releases the lock

    def clear(self, keep: tuple[str, ...] = ()) -> int:
        """Remove every result of the campaign but the lock and ``keep`` (paths relative to the
        campaign's folder, e.g. ``notebooks/01_environment_check.html``); the number of entries
        removed. Call only while holding :meth:`lock`."""
        kept = {self.root / name for name in keep}
        removed = 0
        for path in sorted(self.root.rglob("*"), key=lambda p: len(p.parts)):
            if not path.exists() and not path.is_symlink():
                continue  # under a folder removed already
            if path.name == LOCK_FILE and path.parent == self.root or path in kept:
                continue
            if any(k.is_relative_to(path) for k in kept):
                continue  # a folder holding something kept: its other entries go one by one
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
            removed += 1
        return removed

    def remove_partial(self) -> list[Path]:
        """Remove what a killed writer left half-done: the temporary directories of points being
        saved (``points/<phase>/.<id>.*``) and temporary files of atomic writes next to the
        manifest and of executed notebooks (``.<name>.*``); report/ is left alone (a report may be
        written while a phase runs). Call only while holding :meth:`lock`. Returns what was removed."""
        removed = []
        for path in [*self.root.glob("points/*/.*"), *self.root.glob(".*.*"), *self.root.glob("notebooks/.*")]:
            if path.name == LOCK_FILE:
                continue
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            removed.append(path)
        return removed

    # -- run points -------------------------------------------------------------
    def point_dir(self, phase: str, point_id: str) -> Path:
        """Directory of one run point."""
        return self.root / "points" / phase / point_id

    def load_point(self, phase: str, point_id: str) -> dict[str, Any] | None:
        """The stored row of a completed point, or None."""
        path = self.point_dir(phase, point_id) / "point.json"
        if not path.exists():
            return None
        return json.loads(path.read_text())

    def save_point(self, phase: str, point_id: str, row: dict[str, Any] | None,
                   raw: dict[str, str | bytes]) -> Path:
        """Store a completed point atomically: its row and its raw files.

        Args:
            phase: "probe" or "sweep".
            point_id: unique id within the phase (e.g. ``randread-4k_t0016_1a2b3c4d``).
            row: the tidy row (JSON-serialisable values); None when ``raw`` carries the rows.
            raw: file name -> text (or bytes, e.g. ``awr.html.gz``) of the engine's raw inputs and outputs.
        """
        final = self.point_dir(phase, point_id)
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{point_id}.", dir=final.parent))
        except OSError as error:
            raise _write_error(final, error) from None
        try:
            files = dict(raw.items())
            if row is not None:
                files["point.json"] = _json(row, sort_keys=False)
            for name, data in files.items():
                with open(tmp / name, "wb") as handle:
                    handle.write(data if isinstance(data, bytes) else data.encode())
                    handle.flush()
                    os.fsync(handle.fileno())  # a power cut after the rename leaves whole files
            os.chmod(tmp, 0o777 & ~_UMASK)  # mkdtemp makes 0700; results are ordinary directories
            if final.exists():
                shutil.rmtree(final)
            os.replace(tmp, final)
            _fsync_dir(final.parent)
        except BaseException as error:
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(error, OSError):
                raise _write_error(final, error) from None
            raise
        return final

    def save_points(self, phase: str, group_id: str, rows: list[dict[str, Any]], raw: dict[str, str]) -> Path:
        """Store several points measured by one invocation of the engine (e.g. a vdbench forthreads
        loop) atomically: their rows in points.json and the invocation's raw files."""
        return self.save_point(phase, group_id, None, {**raw, "points.json": _json(rows, sort_keys=False)})

    def load_group(self, phase: str, group_id: str) -> list[dict[str, Any]] | None:
        """The rows stored by :meth:`save_points`, or None."""
        path = self.point_dir(phase, group_id) / "points.json"
        return json.loads(path.read_text()) if path.exists() else None

    def annotate_point(self, phase: str, point_id: str, fields: dict[str, Any]) -> None:
        """Add ``fields`` to the stored row of the point ``point_id`` of ``phase`` (its
        ``point.json``, or its row in the ``points.json`` of the invocation that measured it),
        rewritten atomically, so that points.csv and the report carry them: only for a point
        stored before the setting that adds them (:func:`flashpoc.engines.loop.measure` stores every
        point with them)."""
        single = self.point_dir(phase, point_id) / "point.json"
        if single.is_file():
            write_atomic(single, _json({**json.loads(single.read_text()), **fields}, sort_keys=False))
            return
        for group in sorted((self.root / "points" / phase).glob("*/points.json")):
            rows = json.loads(group.read_text())
            if any(r.get("point_id") == point_id for r in rows):
                rows = [{**r, **fields} if r.get("point_id") == point_id else r for r in rows]
                write_atomic(group, _json(rows, sort_keys=False))
                return

    def load_points(self, phase: str | None = None) -> pd.DataFrame:
        """Every completed point (of ``phase`` or all phases) as one DataFrame."""
        base = self.root / "points"
        pattern = f"{phase}/*/point.json" if phase else "*/*/point.json"
        rows = [json.loads(p.read_text()) for p in sorted(base.glob(pattern))]
        group_pattern = f"{phase}/*/points.json" if phase else "*/*/points.json"
        rows += [r for p in sorted(base.glob(group_pattern)) for r in json.loads(p.read_text())]
        frame = pd.DataFrame(rows)
        if not frame.empty and "completed_utc" in frame:
            frame = frame.sort_values("completed_utc", kind="stable").reset_index(drop=True)
        return frame

    def load_point_tables(self, phase: str, name: str, point_ids: list[str] | None = None) -> pd.DataFrame:
        """The ``name`` table (:data:`INTERVALS_FILE` or :data:`HISTOGRAM_FILE`) of the points
        of ``phase`` (of ``point_ids`` only, when given) as one DataFrame; empty when none has one."""
        base = self.root / "points" / phase
        wanted = None if point_ids is None else set(point_ids)
        frames = []
        for path in sorted(base.glob(f"*/{name}")):
            # a fio point's directory is its id; a vdbench run directory holds several points
            if wanted is not None and path.parent.name not in wanted and not (path.parent / "points.json").exists():
                continue
            frame = pd.read_csv(path)
            frames.append(frame if wanted is None else frame[frame["point_id"].isin(wanted)])
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def current_probe(self, measurement_hash: str) -> dict[str, Any] | None:
        """probe.json when it is the probe of the measurement settings ``measurement_hash`` (its
        ``measurement_hash``, or for a probe.json written before that was recorded, the rows of its
        points), else None: a probe of other settings answers for another array or workload."""
        if not (self.root / "probe.json").exists():
            return None
        probe = self.read_json("probe.json")
        if "measurement_hash" in probe:
            return probe if probe["measurement_hash"] == measurement_hash else None
        ids = {p.get("point_id") for p in probe.get("points") or []}
        rows = self.load_points("probe")
        hashes = set(rows[rows["point_id"].isin(ids)]["measurement_hash"]) if not rows.empty else set()
        return probe if hashes == {measurement_hash} else None

    def current_points(self, measurement_hash: str, phase: str | None = None) -> pd.DataFrame:
        """The stored rows of the measurement settings ``measurement_hash`` (of ``phase``, or of both
        phases): the sweep's rows of these settings, the latest of each (workload, threads, repeat); the
        probe's rows are those of the current probe (:meth:`current_probe`: its points and its
        plateau on fewer hosts). Points of other settings stay on disk, untouched."""
        frames = []
        if phase in (None, "probe"):
            probe = self.current_probe(measurement_hash)
            rows = self.load_points("probe")
            if probe is not None and not rows.empty:
                ids = {p.get("point_id") for p in [*probe.get("points", []), *probe.get("host_scaling", [])]}
                frames.append(rows[rows["point_id"].isin(ids)])
        if phase in (None, "sweep"):
            rows = self.load_points("sweep")
            if not rows.empty:
                rows = rows[rows["measurement_hash"] == measurement_hash]
                keys = (["workload", "threads"] + (["curve_pct"] if "curve_pct" in rows else [])  # vdbench curve steps
                        + (["repeat"] if "repeat" in rows else []))  # sweep.repeats: every repeat is kept
                frames.append(rows.drop_duplicates(keys, keep="last"))
        frames = [f for f in frames if not f.empty]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def write_points_table(self, measurement_hash: str) -> Path:
        """Rewrite points.csv: the points of the measurement settings ``measurement_hash``
        (:meth:`current_points`), in the order they were completed."""
        frame = self.current_points(measurement_hash)
        if not frame.empty and "completed_utc" in frame:
            frame = frame.sort_values("completed_utc", kind="stable").reset_index(drop=True)
        return self.write_table("points.csv", frame)
