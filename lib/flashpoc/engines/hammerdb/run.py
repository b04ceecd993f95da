"""Run a HammerDB script on a load host in a folder of its own, fetch what it wrote, and leave
nothing behind (host I/O, through run/hosts.py).

Every run (a point, a schema build, the check) is an attempt with its own folder under the load
host's attempts folder of the campaign, ``<workdir>/<campaign>/hammerdb/<host>/<what>-<time>``
(:func:`attempt_dir`): a failed or interrupted point is simply run again in a new one. HammerDB runs
from its own directory with ``TMP`` naming the folder, where it writes its logs and its job store
(``cd HAMMERDB_DIR && TMP=RUN_DIR ./hammerdbcli auto RUN_DIR/script.tcl``); the console goes to
standard output and ``RUN_DIR/console.txt``, the exit status follows on an
:data:`~flashpoc.hosts.host.EXIT_MARK` line. The folder is removed once its files are fetched, and
on every other way out (an error, a timeout, Ctrl-C), HammerDB stopped first.

HammerDB keeps its settings, passwords included, in SQLite files in ``TMP`` (the job store
``hammer.DB``, the settings stores ``<database>.db``): the command runs with umask 077 (the folder
0700, every file 0600) and removes them as HammerDB exits, whatever ends the command (a shell trap);
should a run be killed outright, the next start of a run of the campaign on that host stops what
is left of it and removes its folder (:func:`clear_stale`). While the command's reader is there
(the workbook, over SSH or not) HammerDB runs; when it is gone (the console's ``tee`` cannot write)
HammerDB is stopped, so an interrupted point never goes on loading the database under the next one.

The passwords are read by the script from environment variables of the load host: set there, or
exported by ``env_file``, which is sourced first.

While HammerDB runs, the load host's CPU counters are sampled every :data:`CPU_EVERY_S` seconds
into ``RUN_DIR/hostcpu.log`` (``<time> <n> cpu ...``: the time as ``date`` prints it, the sample's
number, then the ``cpu`` line of /proc/stat), so that the point's CPU is that of its timed test
(:mod:`.window`), and once more when HammerDB ends; between samples the sampler looks every
:data:`CPU_POLL_S` seconds whether HammerDB still runs (it once slept out the whole interval: up to
2 s a run after HammerDB had ended).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from flashpoc.core.errors import RemoteError
from flashpoc.engines.hammerdb.lines import number
from flashpoc.engines.hammerdb.sources import TCOUNT_LINE
from flashpoc.hosts.host import EXIT_MARK, fetch_dir, quote, split_exit_status
from flashpoc.engines.hammerdb.window import CPU_EVERY_S, CPU_LOG

__all__ = ["CPU_EVERY_S", "CPU_LOG", "HammerdbRun", "attempt_dir", "clear_stale", "run_command", "run_hammerdb"]

SCRIPT_NAME = "script.tcl"
CPU_POLL_S = 0.2
"""Seconds between two looks of the CPU sampler at whether HammerDB still runs (its samples stay
:data:`CPU_EVERY_S` apart): the run ends at most this long after HammerDB does."""
JOB_STORE = "hammer.DB"
PID_FILE = "hammerdb.pid"
MAX_RUN_BYTES = 256 * 1024**2
#: what the run directory's creation prints on a host without awk (:data:`SCRUB_AWK` needs it)
NO_AWK = "flashpoc-no-awk"
#: the lines of HammerDB's console quoted when its run is cut short
DETAIL_LINES = 5
#: HammerDB's files that hold the settings with the passwords (its SQLite stores and their journals)
SECRET_FILES = (JOB_STORE, f"{JOB_STORE}-*", "*.db", "*.db-*")
#: the environment variable that names, on the load host, the variables holding the run's passwords
SECRET_NAMES_ENV = "FLASHPOC_SECRET_NAMES"
#: an awk program that writes a file with the value of each variable :data:`SECRET_NAMES_ENV` names replaced
#: by ``***`` (read from the environment: no password is in a command): HammerDB prints one in a stack trace
#: when its transaction counter outlives the run (the arguments of its ``read_more``: host, port, user,
#: password). A file, not the live output: mawk reads a pipe in blocks, which would hold the counter back
SCRUB_AWK = ('BEGIN { n = split(ENVIRON["' + SECRET_NAMES_ENV + '"], names, " "); m = 0; '
             'for (i = 1; i <= n; i++) if (length(ENVIRON[names[i]]) > 0) s[++m] = ENVIRON[names[i]]; '
             'for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (length(s[j]) > length(s[i])) '
             '{ x = s[i]; s[i] = s[j]; s[j] = x } } '  # the longest first: a password may hold another
             '{ line = $0; for (i = 1; i <= m; i++) { out = ""; while ((j = index(line, s[i])) > 0) '
             '{ out = out substr(line, 1, j - 1) "***"; line = substr(line, j + length(s[i])) } line = out line } '
             'print line }')


@dataclass(frozen=True)
class HammerdbRun:
    """What one ``hammerdbcli auto`` invocation produced.

    Attributes:
        host: the load host's name.
        script: the Tcl script that ran.
        console: HammerDB's standard output and error, as printed.
        exit_code: hammerdbcli's exit status.
        files: file name -> text of what HammerDB wrote in the run directory (logs, the time
            profile, the transaction counter log, the job store's JSON answers), job store excluded.
        wall_s: wall-clock seconds of the run, as seen by the workbook.
        run_dir: the run directory on the host (HammerDB's ``TMP``; removed since).
    """

    host: str
    script: str
    console: str
    exit_code: int
    files: dict[str, str]
    wall_s: float
    run_dir: str


def attempts_root(workdir: str, campaign: str, host: str) -> str:
    """The folder of a campaign's HammerDB attempts on one load host."""
    return f"{workdir}/{campaign}/hammerdb/{host}"


def attempt_dir(workdir: str, campaign: str, host: str, what: str) -> str:
    """A new attempt's folder: ``what`` (e.g. ``probe-tprocc_t0002_ab12cd34``), then when and a
    random tag, so that no two attempts share one."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    return f"{attempts_root(workdir, campaign, host)}/{what.replace('/', '-')}-{stamp}-{secrets.token_hex(3)}"


def _secrets(d: str) -> str:
    return " ".join(f"{d}/{pattern}" for pattern in SECRET_FILES)


def _stop(d: str) -> str:
    """Shell words that stop the attempt's HammerDB (its pid file, if that process is hammerdbcli)."""
    return (f"p=$(cat {d}/{PID_FILE} 2>/dev/null) && grep -qa hammerdbcli /proc/$p/cmdline 2>/dev/null && "
            "kill -9 $p 2>/dev/null")


def _nap(seconds: float) -> str:
    """Shell words that sleep ``seconds`` while HammerDB (``$t``) runs: in steps of
    :data:`CPU_POLL_S`, so that the sampler's loop sees HammerDB's end within one step, not after
    the rest of a whole interval between samples."""
    steps = max(1, round(seconds / CPU_POLL_S))
    return f"i=0; while [ $i -lt {steps} ] && kill -0 $t 2>/dev/null; do sleep {CPU_POLL_S}; i=$((i+1)); done"


def run_command(hammerdb_dir: str, run_dir: str, env_file: str | None = None,
                secret_names: Sequence[str] = ()) -> str:
    """The shell command that runs ``run_dir/script.tcl`` with the HammerDB in ``hammerdb_dir``.

    HammerDB's output goes through ``tee``: while ``tee`` lives (its reader does) the CPU is
    sampled; when it ends before HammerDB (its reader is gone), HammerDB is stopped. The secrets
    are removed on the way out, whatever ends the command: HammerDB's settings stores; and the
    values of the variables ``secret_names`` from every file of the run (:data:`SCRUB_AWK`), its
    console (``console.txt``) included, which is what the workbook keeps of it."""
    d = quote(run_dir)
    scrub, source = scrub_command(secret_names), source_env(env_file)
    sample = (f"echo \"$(date '+%Y-%m-%d %H:%M:%S') $n $(head -n1 /proc/stat)\" >> {d}/{CPU_LOG}; "
              "n=$((n+1))")
    start = quote(f"echo $$ > {d}/{PID_FILE} && exec env TMP={d} ./hammerdbcli auto {d}/{SCRIPT_NAME}")
    hammerdb = f"sh -c {start} 2>&1; echo \"{EXIT_MARK}$?\""
    return (f"umask 077; trap {quote('rm -f ' + _secrets(d))} EXIT; trap 'exit 129' HUP INT TERM PIPE; n=0; "
            f"if {source}cd {quote(hammerdb_dir)}; then {{ {hammerdb}; }} < /dev/null | tee {d}/console.txt & t=$!; "
            f"while kill -0 $t 2>/dev/null; do {sample}; {_nap(CPU_EVERY_S)}; done; {sample}; "
            f"{_stop(d)}; wait $t; rm -f {_secrets(d)}; {_scrub_files(d, scrub)}; else echo \"{EXIT_MARK}$?\"; fi")


def scrub_command(secret_names: Sequence[str]) -> str:
    """The shell command that copies its input to its output with the values of the load host's
    variables ``secret_names`` replaced by ``***`` (:data:`SCRUB_AWK`)."""
    return f"{SECRET_NAMES_ENV}={quote(' '.join(secret_names))} awk {quote(SCRUB_AWK)}"


def source_env(env_file: str | None) -> str:
    """Shell words that source ``env_file`` (the passwords' variables may be exported there), then go on."""
    return f". {quote(env_file)} && " if env_file else ""


def _last_lines(host, run_dir: str, env_file: str | None, secret_names: Sequence[str], *, purpose: str) -> str:
    """The last lines HammerDB printed in a run cut short (its console on the host, ``console.txt``),
    cleaned of the passwords there first (a run cut short never got to :func:`_scrub_files`);
    never the uncleaned lines the workbook received."""
    try:
        tail = host.run(f"{source_env(env_file)}{scrub_command(secret_names)} < {quote(run_dir)}/console.txt | "
                        f"tail -n {DETAIL_LINES}",
                        purpose=f"{purpose}: read the end of HammerDB's console", timeout_s=30)
    except (RemoteError, OSError, EOFError):  # the host gone as well: the run's own error stands
        return "(its last lines are not quoted: they could not be read and cleaned of passwords on the host)"
    return " | ".join(tail.stdout.strip().splitlines()) or "(it printed nothing)"


def _scrub_files(d: str, scrub: str) -> str:
    """Shell words that pass each file HammerDB left in the run folder ``d`` through ``scrub``, in place."""
    return (f"for f in {d}/*; do [ -f \"$f\" ] && {scrub} < \"$f\" > \"$f.scrubbed\" && "
            "mv -f \"$f.scrubbed\" \"$f\"; done")


def clear_stale(host, root: str, *, purpose: str) -> None:
    """Stop what is left of earlier attempts under ``root`` (a HammerDB still running from a killed
    workbook) and remove their folders, with every HammerDB settings store in them (passwords);
    also the stores an earlier flashpoc left in the campaign's folder (``<workdir>/<campaign>``,
    where its run directories were), but under the other load hosts' attempts folders."""
    r, campaign_dir = quote(root), root.rsplit("/", 2)[0]
    stores = f"-type f \\( -name {JOB_STORE} -o -name '{JOB_STORE}-*' -o -name '*.db' -o -name '*.db-*' \\)"
    host.run(f"[ -d {quote(campaign_dir)} ] && find {quote(campaign_dir)} -path {quote(campaign_dir + '/hammerdb')} "
             f"-prune -o {stores} -exec rm -f {{}} +; [ -d {r} ] || exit 0; for d in {r}/*/; do "
             f"[ -d \"$d\" ] || continue; {_stop(chr(34) + '$d' + chr(34))}; done; "
             f"find {r} {stores} -exec rm -f {{}} +; rm -rf {r}/*", purpose=f"{purpose}: remove what earlier attempts left")


def _remove(host, run_dir: str, *, purpose: str) -> None:
    """Stop the attempt's HammerDB, if it still runs, and remove its folder."""
    d = quote(run_dir)
    host.run(f"{_stop(d)}; rm -rf {d}", purpose=f"{purpose}: remove the attempt's folder", check=False)


def run_hammerdb(host, script: str, run_dir: str, *, hammerdb_dir: str, env_file: str | None = None,
                 secret_names: Sequence[str] = (), timeout_s: float, purpose: str,
                 on_line: Callable[[str], None] | None = None) -> HammerdbRun:
    """Run ``script`` with HammerDB on ``host`` in the new folder ``run_dir`` (:func:`attempt_dir`)
    and return its outputs; the folder is removed on every way out.

    A run whose virtual users failed is returned, not raised: its console and logs say why
    (:func:`flashpoc.engines.hammerdb.parse.parse_files` raises naming it).

    Raises:
        RemoteError: the host cannot be reached, ``run_dir`` already exists (each run has its own),
            or the command was cut short before HammerDB's exit status.
    """
    start = time.perf_counter()
    d = quote(run_dir)
    made = host.run(f"umask 077; command -v awk >/dev/null || {{ echo {NO_AWK}; exit 0; }}; "
                    f"[ ! -e {d} ] && mkdir -p {d} && echo made", purpose=f"{purpose}: create the run directory",
                    check=False)
    if made.stdout.strip() == NO_AWK:
        raise RemoteError(f"{host.name}: {purpose}: there is no awk on this host, with which the workbook removes "
                          "the passwords from every file of a HammerDB run: install awk (e.g. mawk or gawk)")
    if made.stdout.strip() != "made":
        raise RemoteError(f"{host.name}: {purpose}: the run directory {run_dir} already exists or cannot be "
                          "created (each HammerDB run writes into a new one)")
    try:
        host.put_text(script, f"{run_dir}/{SCRIPT_NAME}", purpose=f"{purpose}: write the HammerDB script")
        result = host.run(run_command(hammerdb_dir, run_dir, env_file, secret_names), purpose=purpose,
                          timeout_s=timeout_s, check=False, on_line=on_line)
        code, console = split_exit_status(result.stdout)
        if code is None:
            raise RemoteError(f"{host.name}: {purpose}: HammerDB did not complete (exit {result.exited}): "
                              + _last_lines(host, run_dir, env_file, secret_names, purpose=purpose))
        fetched = fetch_dir(host, run_dir, purpose=f"{purpose}: fetch the HammerDB logs", max_bytes=MAX_RUN_BYTES)
    finally:
        _remove(host, run_dir, purpose=purpose)
    files = {name: data.decode("utf-8", errors="replace") for name, data in fetched.items()
             if name not in (JOB_STORE, SCRIPT_NAME, "console.txt", PID_FILE) and not name.endswith(".db")}
    kept_code, kept = split_exit_status(fetched.get("console.txt", b"").decode("utf-8", errors="replace"))
    if kept_code is not None:  # the console as the host kept it, its secrets removed (:func:`run_command`)
        code, console = kept_code, kept
    return HammerdbRun(host.name, script, console, code, files, time.perf_counter() - start, run_dir)


def counter_reader(interval: Callable[..., None] | None, rampup_s: float) -> Callable[[str], None] | None:
    """A console line handler that hands each line of HammerDB's transaction counter (``21978
    PostgreSQL tpm``: the database's transactions per minute over its last interval) to
    ``interval`` (:meth:`flashpoc.present.progress.Progress.interval`) as it is printed, timed by its arrival
    since the handler was made, those of the rampup marked warm-up; None without ``interval``.
    The counter is the only number HammerDB prints while it runs: NOPM and the response times
    come when the timed test ends."""
    if interval is None:
        return None
    start = time.monotonic()

    def on_line(line: str) -> None:
        match = TCOUNT_LINE.match(line.strip())
        if match:
            second = time.monotonic() - start
            interval({"tpm": number(match.group(1))}, second=second, warmup=second <= rampup_s)
    return on_line
