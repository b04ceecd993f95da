"""Reading a vdbench output directory: its files as text (decoded, and as a stored point keeps them),
those it lacks, how each SD was opened, and vdbench's own message for a failed run (logfile.html,
status.html, errorlog.html, the slaves' stdout)."""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping
from pathlib import Path

from flashpoc.core.damage import Loss
from flashpoc.core.errors import ParseError
from flashpoc.engines.vdbench.parse.text import _plain, _report_kind

_STAMP = re.compile(r"^\d{1,2}:\d{2}:\d{2}\.\d{3}(?: (?P<msg>.*))?$")
_EXCEPTION = re.compile(  # java.lang.RuntimeException: ..., Exception in thread "main" ...
    r"^(?:Exception in thread \"[^\"]*\" )?(?:[a-zA-Z_$][\w$]*\.)+\w*(?:Exception|Error)\b"
)

READ_FILES = ("totals.html", "summary.html", "flatfile.html", "histogram.html", "logfile.html", "status.html",
              "errorlog.html")
"""The files of an output directory that :func:`parse_output_dir` reads by name (besides the host and
slave reports, the ``*.histogram.html`` histograms and the slaves' ``*.stdout.html``)."""


WRITTEN = ("summary.html", "flatfile.html", "histogram.html", "logfile.html", "errorlog.html")
"""The files vdbench 5.04.01 to 5.04.07 writes with every totals.html, whatever the run."""


def missing_files(files: Mapping[str, str]) -> list[Loss]:
    """The files vdbench wrote that :func:`parse_output_dir` would read but ``files`` lacks (removed
    or not copied): those it writes with every totals.html (:data:`WRITTEN`) and those another file
    links to (summary.html its host reports, a host report its slaves' reports and stdout, a report
    its histogram, ...); each a :class:`~flashpoc.core.damage.Loss` naming the file and why it should be there."""
    reports = set(_links(files.get("summary.html", ""), "Link to HOST reports:"))
    reports |= {name for host in files if host.endswith(".html") and _report_kind(files[host]) == "host"
                for name in _links(files[host], "Link to slave summary report:")}
    linked = {name: "vdbench writes it with totals.html" for name in WRITTEN if name not in files} if (
        "totals.html" in files) else {}
    for name in sorted(files):
        if name.endswith(".html"):
            for target in _HREF.findall(files[name]):
                read = target in READ_FILES or target in reports or target.endswith((".histogram.html", ".stdout.html"))
                if read and target not in files:
                    linked.setdefault(target, f"{name} links it")
    return [Loss(name, f"missing ({why})") for name, why in sorted(linked.items())]


OPENING_LINE = re.compile(r"Opening sd=([^,;\s<]+),lun=([^;<]+); write: (true|false)")


def open_modes(files: Mapping[str, str]) -> dict[str, bool]:
    """How vdbench opened each storage definition: sd name -> True if any slave opened it
    for writing (``Opening sd=sd1,lun=...; write: true`` in ``*.stdout.html``), False if every
    opening was read-only. vdbench opens an sd read-only only when no workload of the
    parmfile writes to it. Empty when no slave stdout file is there.

    Raises:
        ParseError: a line that has a part of an opening line (``Opening sd=``, ``; write: ``,
            ``OpenFlags:``) but not the whole (damaged: a lost ``write: true`` would read as
            read-only).
    """
    modes: dict[str, bool] = {}
    for name in sorted(files):
        if name.endswith(".stdout.html"):
            for number, line in enumerate(files[name].split("\n"), start=1):
                if not any(part in line for part in ("Opening sd=", "; write: ", "OpenFlags:")):
                    continue
                match = OPENING_LINE.search(line)
                if match is None:
                    raise ParseError(f"{name} line {number}: a damaged 'Opening sd=...; write: ...' "
                                     f"line ({line.strip()[:80]!r})")
                sd, _lun, write = match.groups()
                modes[sd] = modes.get(sd, False) or write == "true"
    return modes


def vdbench_failure(files: Mapping[str, str], console_text: str | None = None) -> str | None:
    """Return vdbench's own error message for a failed run, or None if it did not fail.

    A run failed when the console (or logfile.html) shows a Java exception, or status.html
    does not reach ``Vdbench complete``. The message is the text vdbench printed between
    blank time-stamped lines just before the exception (time stamps, the Java stack trace
    and ``killCommand:`` bookkeeping lines left out), then ``failed at: <last status>``
    (from status.html: the last step before ``Shutting down slaves``).

    Args:
        files: File name -> text of the output directory (status.html, logfile.html used).
        console_text: vdbench's stdout+stderr, if captured (preferred to logfile.html).

    Returns:
        The message lines joined by newlines, or None when nothing shows a failure.
    """
    sources = [text for text in (console_text, _plain(files.get("logfile.html", ""))) if text]
    messages: list[str] = []
    failed = False
    for source in sources:
        found = _failure_messages(source)
        if found is not None:
            failed = True
            messages = found
            break
    status = _status_lines(files.get("status.html", ""))
    if status and not any(line.startswith("Vdbench complete") for line in status):
        failed = True
    if not failed:
        return None
    point = None
    for line in reversed(status):
        if not line.startswith(("Shutting down slaves", "Vdbench complete")):
            point = line
            break
    if point is not None:
        messages.append(f"failed at: {point}")
    elif not messages:
        messages.append("vdbench did not complete (no status.html and no message found)")
    messages += slave_errors(files, "\n".join(sources))
    return "\n".join(messages)


_SLAVE_NAMED = re.compile(r"\bSlave (\S+) (?:prematurely terminated|aborted)|\bLook at file (\S+?)\.stdout\.html")
_SLAVE_LINES = 5
_TITLE = re.compile(r"<title>.*?</title>", re.IGNORECASE | re.DOTALL)


def slave_errors(files: Mapping[str, str], text: str) -> list[str]:
    """What the slaves that ``text`` (the console, logfile.html) names as failed printed last:
    ``slave hd2-0 (hd2-0.stdout.html): ssh: connect to host 10.0.0.2 port 22: Connection refused``.

    vdbench's master says only "Slave hd2-0 prematurely terminated" and points at the slave's
    ``<slave>.stdout.html``, which holds the slave's (or its ssh's) own words: its last
    :data:`_SLAVE_LINES` lines are quoted, time stamps left out.
    """
    names = dict.fromkeys(a or b for a, b in _SLAVE_NAMED.findall(text))
    out = []
    for name in names:
        stdout = files.get(f"{name}.stdout.html")
        if stdout is None:
            continue
        lines = []
        for line in _plain(_TITLE.sub("", stdout)).split("\n"):
            line = line.strip()
            while (match := _STAMP.match(line)) is not None:  # the master's time stamp, then the slave's
                line = (match["msg"] or "").strip()
            if line and not line.startswith("stdout/stderr for slave="):
                lines.append(line)
        if lines:
            out.append(f"slave {name} ({name}.stdout.html): " + " / ".join(lines[-_SLAVE_LINES:]))
    return out


def read_output_dir(path: str | Path) -> dict[str, str]:
    """Read the ``*.html`` and ``*.txt`` files of a vdbench output directory as text.

    Bytes are decoded as UTF-8 (BOMs honoured), else GB18030 (a Chinese-locale Java), else
    Latin-1; vdbench's numbers are ASCII in all of them. Line ends become ``\\n``.

    Args:
        path: The output directory (``vdbench -o OUTDIR``).

    Returns:
        File name -> text for every ``*.html`` and ``*.txt`` file directly in ``path``
        (``console.txt`` if the run's console was saved there). A point folder of a campaign
        (``points/<phase>/<point>/``) holds the output directory flattened (:func:`stored_output_files`):
        its files are read under their own names again, with the run's ``console.txt``.

    Raises:
        ParseError: ``path`` is not a directory.
    """
    directory = Path(path)
    if not directory.is_dir():
        raise ParseError(f"vdbench output directory not found: {directory}")
    files: dict[str, str] = {}
    for entry in sorted(directory.iterdir()):
        if entry.is_file() and entry.suffix.lower() in (".html", ".txt"):
            files[entry.name] = _decode(entry.read_bytes())
    if any(name.startswith(STORED_PREFIX) for name in files):  # a stored point: its output/, and its console
        files = {name[len(STORED_PREFIX):] if name.startswith(STORED_PREFIX) else name: text
                 for name, text in files.items() if name.startswith(STORED_PREFIX) or name == "console.txt"}
    return files


STORED_PREFIX = "output__"
"""How a stored point keeps vdbench's output directory: each file ``output/<name>`` as ``output__<name>``
beside the point's own files (its row, parmfile, console, intervals)."""


def stored_output_files(files: dict[str, str]) -> dict[str, str]:
    """vdbench's output directory (name -> text) as a stored point keeps it (:data:`STORED_PREFIX`)."""
    return {f"{STORED_PREFIX}{name}": text for name, text in files.items()}


_HREF = re.compile(r'<A HREF="([^"#][^"]*)">', re.IGNORECASE)


def _links(text: str, label: str) -> list[str]:
    """The file names linked on the lines that start with ``label``."""
    names: list[str] = []
    for line in text.split("\n"):
        if line.startswith(label):
            names += _HREF.findall(line)
    return names


def _failure_messages(text: str) -> list[str] | None:
    """Return vdbench's message lines before the first Java exception, or None if none."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    position = next((i for i, line in enumerate(lines) if _EXCEPTION.match(line)), None)
    if position is None:
        return None
    stamped: list[str | None] = []  # message text, None for a blank time-stamped line
    for line in reversed(lines[:position]):
        match = _STAMP.match(line.rstrip())
        if match is None:
            break
        message = (match["msg"] or "").strip()
        stamped.append(message or None)
    stamped.reverse()
    groups: list[list[str]] = []
    current: list[str] = []
    framed = False
    for message in stamped:  # groups of lines between blank time-stamped lines
        if message is None:
            if current and framed:
                groups.append(current)
            current, framed = [], True
        else:
            current.append(message)
    if current and framed:
        groups.append(current)
    messages = [
        line for group in groups for line in group if not line.startswith("killCommand:")
    ]
    if not messages:
        exception = lines[position]
        messages = [exception.split(":", 1)[1].strip() if ":" in exception else exception]
    return messages


def _status_lines(text: str) -> list[str]:
    """Return status.html's steps (``Starting slaves``...), tab-separated parts joined."""
    steps = []
    for line in _plain(text).split("\n"):
        if "\t" not in line or line.startswith("*"):
            continue
        parts = [part.strip() for part in line.split("\t")[1:] if part.strip()]
        if parts:
            steps.append(" ".join(parts))
    return steps


def _errorlog_lines(text: str) -> list[str]:
    """Return errorlog.html's lines after its 'Error log. If there ...' preamble."""
    lines = _plain(text).split("\n")
    for index, line in enumerate(lines):
        if line.startswith("Error log."):
            return [entry.rstrip() for entry in lines[index + 1 :] if entry.strip()]
    return []


def _decode(data: bytes) -> str:
    """Decode a vdbench file: UTF-8 (BOM aware), UTF-16 with BOM, GB18030, else Latin-1."""
    if data.startswith(codecs.BOM_UTF8):
        text = data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace")
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", errors="replace")
    else:
        for encoding in ("utf-8", "gb18030", "latin-1"):
            try:
                text = data.decode(encoding)
                break
            except UnicodeDecodeError:
                continue
    return text.replace("\r\n", "\n").replace("\r", "\n")
