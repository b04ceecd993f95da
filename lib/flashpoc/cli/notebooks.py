"""Running the notebooks for the ``flashpoc`` command: papermill, the terminal's progress lines, the kernel's stderr."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

from flashpoc.core.errors import FlashpocError


NOTEBOOKS = ("01_environment_check", "02_saturation_probe", "03_thread_sweep", "04_report")
PHASE_NAMES = {"check": 0, "probe": 1, "sweep": 2, "report": 3}
EXIT_CODES = """exit codes:
  0    done (the environment check passed, with or without warnings)
  1    a check failed, a phase stopped, or (saturation) no answer
  2    bad input: arguments, parameters, or a file that cannot be read or parsed
  130  interrupted (completed points are stored and reused by the next run)"""
#: the width of tables and progress lines when the output is not a terminal
PLAIN_WIDTH = 100


def output_width(stream=None) -> int:
    """The terminal's width when ``stream`` (stdout) is a terminal, else :data:`PLAIN_WIDTH`."""
    stream = stream or sys.stdout
    try:
        if stream.isatty():
            return max(40, os.get_terminal_size(stream.fileno()).columns)
    except (AttributeError, OSError, ValueError):
        pass
    return PLAIN_WIDTH


def _notebook_dir() -> Path:
    """The phase notebooks: the workbook root's notebooks/, else those beside this package."""
    from flashpoc.params import workbook_root

    candidates = [workbook_root() / "notebooks", Path(__file__).resolve().parents[3] / "notebooks"]
    for path in candidates:
        if (path / f"{NOTEBOOKS[0]}.ipynb").exists():
            return path
    raise FlashpocError(f"no phase notebooks in {candidates[0]}: run flashpoc from the workbook "
                        "(the folder holding notebooks/ and parameters/)")


class Terminal:
    """Where ``flashpoc run`` shows its progress: lines on stdout and, when stdout is a terminal,
    a live status line under them (a bar, the count, the times and what runs now), rewritten in
    place. The progress events come from the notebooks' kernels (:mod:`flashpoc.present.progress`)."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stdout
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.width = output_width(self.stream)
        self._lock = threading.RLock()
        self._status: tuple[dict[str, Any], float] | None = None  # the last event and when it came
        self._reused: tuple[dict[str, Any], int] | None = None  # stored points reused, not yet said
        self._drawn = False

    def say(self, *lines: str) -> None:
        """Print ``lines`` above the status line, each wrapped to the width (continued under its
        text, after its ``[phase]`` prefix, indentation and bullet) between words only: a path longer
        than the width stays whole, to be copied."""
        with self._lock:
            self._erase()
            for line in lines:
                lead = re.match(r"(\[\w+\] )?( *)(- )?", line).group(0)
                parts = [line] if len(line) <= self.width else textwrap.wrap(
                    line, self.width, subsequent_indent=" " * len(lead), break_on_hyphens=False,
                    break_long_words=False)
                for part in parts:
                    print(part, file=self.stream)
            self._draw()
            self.stream.flush()

    def event(self, event: dict[str, Any]) -> None:
        """Show one progress event (see :class:`flashpoc.present.progress.Progress`)."""
        from flashpoc.present.progress import end_line, point_line

        kind, phase = event.get("event"), f"[{event.get('phase')}]"
        with self._lock:
            if kind in ("begin", "status", "point", "advance"):  # the status line under a line said now
                self._status = (event, time.monotonic())
            if kind == "point" and event["point"].get("reused"):
                self._reused = (event, (self._reused[1] if self._reused else 0) + 1)
            elif kind not in ("begin", "status"):  # stored points reused one after the other: one line
                self._say_reused()
            if kind == "start":
                self.say(f"{phase} {event['title']}: {event['detail'][0]}" if event.get("detail") else
                         f"{phase} {event['title']}", *(f"{phase}   {line}" for line in event.get("detail", [])[1:]))
            elif kind == "point" and not event["point"].get("reused"):
                self.say(point_line(event))
            elif kind == "advance" and event.get("text"):
                self.say(f"{phase} {event['text']}")
            elif kind == "end":
                self._status = None
                self.say(end_line(event))
            if kind in ("begin", "status", "point", "advance"):
                self.tick()

    def tick(self) -> None:
        """Redraw the status line (the elapsed time goes on between events)."""
        with self._lock:
            if self.live:
                self._erase()
                self._draw()
                self.stream.flush()

    def close(self) -> None:
        """Say what is left to say and remove the status line."""
        with self._lock:
            self._say_reused()
            self._status = None
            self._erase()
            self.stream.flush()

    def _say_reused(self) -> None:
        from flashpoc.present.progress import reused_line

        if self._reused:
            (event, count), self._reused = self._reused, None
            self.say(reused_line(event, count))

    def _draw(self) -> None:
        from flashpoc.present.progress import status_line

        if self.live and self._status:
            event, since = self._status
            print(status_line(event, event["elapsed_s"] + time.monotonic() - since)[: self.width - 1],
                  end="", file=self.stream)
            self._drawn = True

    def _erase(self) -> None:
        if self._drawn:
            print("\r\x1b[K", end="", file=self.stream)
            self._drawn = False


class _Follower(threading.Thread):
    """Follows the progress events the kernel appends to ``path`` and shows them on ``terminal``."""

    def __init__(self, path: Path, terminal: Terminal) -> None:
        super().__init__(daemon=True)
        self.path, self.terminal, self.offset = path, terminal, 0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.5):
            self._poll()
            self.terminal.tick()

    def _poll(self) -> None:
        from flashpoc.present.progress import read_events

        events, self.offset = read_events(self.path, self.offset)
        for event in events:
            self.terminal.event(event)

    def finish(self) -> None:
        """Stop following, after showing every event written so far."""
        self._done.set()
        self.join()
        self._poll()
        self.terminal.close()


@contextlib.contextmanager
def _environment(**values: str):
    """The process environment (which the notebooks' kernels inherit) with ``values`` set."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_notebooks(params_file: Path, phases: list[str], *, terminal: Terminal | None = None) -> dict[str, Path]:
    """Execute the phase notebooks with papermill; return executed notebook and HTML paths.

    The notebooks get ``parameters_file`` (the file's path relative to the workbook root their
    kernels find, else its absolute path) and every campaign key (the file's value, None for those
    it leaves out), so nothing of their own parameters cells is used.
    The kernels append their progress to a file (``$FLASHPOC_PROGRESS``) that ``terminal`` follows
    while papermill runs; after each phase the terminal gets its result (the check's verdict, the
    probe's answer).

    The campaign is held (:meth:`flashpoc.core.store.CampaignStore.lock`) for the whole run, from
    before the check: another process running it is refused before anything is written, while
    this run's notebook kernels are let in. Every executed notebook and its HTML export is
    written atomically (papermill saves it through :class:`_AtomicNotebookWriter`).

    Raises:
        FlashpocError: when a notebook fails (the message names it and the error) or a file
            cannot be written (naming it), or another process runs the campaign.
    """
    from flashpoc.params import load_campaign, notebook_parameters, read_parameters_file, workbook_root
    from flashpoc.cli.closing import check_lines, probe_lines
    from flashpoc.present.progress import duration_text
    from flashpoc.core.store import CampaignStore

    terminal = terminal or Terminal()
    given = read_parameters_file(params_file)
    cfg = load_campaign(params_file)  # validate everything before any notebook starts
    nb_dir = _notebook_dir()
    values = notebook_parameters(given, params_file, root=workbook_root(nb_dir))  # the kernels run in nb_dir
    store = CampaignStore(cfg.resolved().results_path())
    written: dict[str, Path] = {}
    results = {"check": check_lines, "probe": probe_lines}
    with store.lock(), tempfile.TemporaryDirectory(prefix="flashpoc-progress-") as tmp:
        out_dir = store.root / "notebooks"
        _AtomicNotebookWriter.register(out_dir)
        for phase in phases:
            name = NOTEBOOKS[PHASE_NAMES[phase]]
            output = out_dir / f"{name}.ipynb"
            terminal.say(f"[{phase}] running {name}.ipynb ...")
            started = time.monotonic()
            stopped = _execute_phase(phase, nb_dir / f"{name}.ipynb", output, values, Path(tmp) / f"{phase}.jsonl",
                                     terminal)
            written[f"{name}.html"] = _export_html(phase, output, stopped)
            if stopped is not None:
                raise FlashpocError(f"{stopped}\nexecuted notebook: {output}")
            written[name] = output
            if phase in results:
                terminal.say(*(f"[{phase}] {line}" for line in results[phase](cfg)))
            terminal.say(f"[{phase}] done in {duration_text(time.monotonic() - started)}")
    return written


INTERRUPT_GRACE_S = 60.0
"""Seconds an interrupted run waits for its notebook's kernel to stop the cell it runs (the Ctrl-C is passed
on to the kernel: the point under way is dropped, its engine stopped and its files removed) and papermill to
save the notebook, before it exits."""


def _execute_phase(phase: str, notebook: Path, output: Path, values: dict[str, Any], events: Path,
                   terminal: Terminal) -> str | None:
    """Run one phase's ``notebook`` with papermill into ``output`` while ``terminal`` follows the
    kernels' progress in ``events``; return why the phase stopped (its notebook saved with the
    error), or None when it ran through.

    Papermill runs in a thread of its own and this (the main) thread only waits for it, so that a
    Ctrl-C always lands here as one KeyboardInterrupt, whatever papermill is doing (starting the kernel,
    saving the notebook, shutting the kernel down: a KeyboardInterrupt there left a dead kernel behind
    and papermill's DeadKernelError as a traceback); the interrupt is passed on to the kernel
    (:func:`_interrupt`), then waits up to :data:`INTERRUPT_GRACE_S` for it and papermill to end, and is
    raised whatever papermill ended with.
    """
    from flashpoc.present.progress import BATCH_ENV, EVENTS_ENV

    follower = _Follower(events, terminal)
    follower.start()
    outcome: dict[str, BaseException] = {}
    kernels: list[Any] = []

    def execute() -> None:
        import papermill

        try:
            papermill.execute_notebook(str(notebook), str(output), parameters=values,
                                       cwd=str(notebook.parent), kernel_name="python3", progress_bar=False,
                                       extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
                                       kernel_manager_class=_recorded_in(kernels))
        except BaseException as error:  # noqa: BLE001 - handed to the main thread
            outcome["error"] = error

    papermill_thread = threading.Thread(target=execute, name=f"flashpoc-papermill-{phase}", daemon=True)
    try:  # FLASHPOC_BATCH: the kernels' progress displays redraw per point only
        with _environment(**{BATCH_ENV: "1", EVENTS_ENV: str(events)}), \
                _kernel_stderr(output.parent / "kernels.log"):
            papermill_thread.start()
            try:
                while papermill_thread.is_alive():
                    papermill_thread.join(0.25)
            except KeyboardInterrupt:
                _interrupt(kernels)
                papermill_thread.join(INTERRUPT_GRACE_S)
                raise
    finally:
        follower.finish()
    return _phase_outcome(phase, outcome.get("error"))


def _recorded_in(kernels: list[Any]) -> type:
    """The kernel manager papermill starts the notebook's kernel with (Jupyter's own), each one
    made appended to ``kernels`` so that a Ctrl-C can be passed on to it (:func:`_interrupt`)."""
    from jupyter_client.manager import AsyncKernelManager

    class RecordedKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            kernels.append(self)

    return RecordedKernelManager


def _interrupt(kernels: list[Any]) -> None:
    """Pass a Ctrl-C on to the notebook kernels that were started: Jupyter starts each in a session of
    its own, out of the terminal's reach, so a Ctrl-C reached flashpoc alone and the point under way ran
    on (its attempt folder and password files left behind). Jupyter interrupts a local kernel the same
    way: SIGINT to its process group."""
    for manager in kernels:
        pgid = getattr(manager.provisioner, "pgid", None) if manager.provisioner is not None else None
        if pgid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGINT)


def _phase_outcome(phase: str, error: BaseException | None) -> str | None:
    """Why the phase stopped (papermill's ``error``: the notebook was saved with it), None when it ran
    through; an executed notebook that could not be saved, or papermill's own failure (a kernel that
    died), is raised in one line naming the phase."""
    from papermill.exceptions import PapermillExecutionError

    from flashpoc.core.store import StoreError

    if error is None:
        return None
    if isinstance(error, PapermillExecutionError):  # saved with the error before it was raised
        return f"phase {phase} stopped: {error.ename}: {error.evalue}"
    if isinstance(error, StoreError):  # the executed notebook could not be saved
        raise FlashpocError(f"phase {phase} stopped: {error}") from None
    if isinstance(error, Exception):  # e.g. nbclient's DeadKernelError: the kernel died (killed, out of memory)
        raise FlashpocError(f"phase {phase} stopped: {type(error).__name__}: {error}") from None
    raise error


def _export_html(phase: str, output: Path, stopped: str | None) -> Path:
    """Export the executed notebook ``output`` to HTML beside it; a failure names the file (and why
    the phase ``stopped``, when it did)."""
    from flashpoc.present.notebook_html import export_notebook_html
    from flashpoc.core.store import StoreError

    html = output.with_suffix(".html")
    try:
        export_notebook_html(output, html)
    except StoreError as error:
        if stopped is None:
            raise FlashpocError(f"phase {phase}: {error}") from None
        raise FlashpocError(f"{stopped}\nexecuted notebook: {output} ({html.name} could not be written "
                            f"either)") from None
    return html


@contextlib.contextmanager
def _kernel_stderr(log_path: Path):
    """Send what the notebook kernels write to their stderr (they inherit file descriptor 2:
    e.g. a ZeroMQ assertion printed when a kernel is stopped on a loaded machine) to a log
    file in the campaign's notebooks folder, so the terminal shows only flashpoc's own lines;
    to /dev/null when that file cannot be opened (a full disk)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        target = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError:
        target = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(target, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(target)


class _AtomicNotebookWriter:
    """A papermill I/O handler that saves executed notebooks atomically (papermill's own writes
    the file in place: a full disk or a kill would leave half a notebook). Registered for the
    campaign's notebooks directory, papermill saves every notebook under it this way."""

    _registered: set[str] = set()

    @classmethod
    def register(cls, directory: Path) -> None:
        from papermill.iorw import papermill_io

        prefix = f"{directory}/"  # papermill picks a handler by the path's beginning
        if prefix not in cls._registered:
            papermill_io.register(prefix, cls())
            cls._registered.add(prefix)

    @staticmethod
    def read(path: str) -> str:
        return Path(path).read_text(encoding="utf-8")

    @staticmethod
    def listdir(path: str) -> list[str]:
        return [str(p) for p in Path(path).iterdir()]

    @staticmethod
    def write(buf: str, path: str) -> None:
        from flashpoc.core.store import write_atomic

        write_atomic(path, _without_machine_paths(buf))

    @staticmethod
    def pretty_path(path: str) -> str:
        return path


def _without_machine_paths(text: str) -> str:
    """The executed notebook ``text`` with the paths papermill records (``metadata.papermill``'s
    ``input_path`` and ``output_path``) as a customer reads them: the phase notebook as the workbook
    names it, the executed one relative to the workbook root; no folder of the machine that ran it."""
    import nbformat

    from flashpoc.params import under_workbook

    notebook = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    recorded = notebook.metadata.get("papermill")
    if not recorded:
        return text
    if recorded.get("input_path"):
        recorded["input_path"] = f"notebooks/{Path(recorded['input_path']).name}"
    if recorded.get("output_path"):
        recorded["output_path"] = under_workbook(recorded["output_path"])
    return nbformat.writes(notebook)
