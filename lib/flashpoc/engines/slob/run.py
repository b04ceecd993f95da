"""Run SLOB on the database host: write slob.conf, ``sh ./runit.sh -s S -t T``, collect the files.

SLOB's ``runit.sh`` reads ``./slob.conf`` and leaves its reports in its own directory, so
each point runs one remote script on the DB host that

1. keeps the user's own ``slob.conf`` once, as ``slob.conf.before-flashpoc`` (only when the
   file there was not written by flashpoc and no such copy exists yet);
2. copies the point's ``slob.conf`` (already written to the point's run directory) into the
   SLOB directory and removes the report files of earlier runs (runit.sh would overwrite
   them anyway), so that every file collected comes from this run;
3. runs ``sh ./runit.sh -s SCHEMAS -t THREADS`` in a subshell that first sources the
   optional environment file (``ORACLE_HOME``, ``ORACLE_SID``, ``PATH``);
4. moves the run's files (:data:`RUN_FILES`) into the point's run directory.

The run directory then comes back as one tar stream, binary files (``awr.html.gz``)
included. runit.sh's console (stdout and stderr) is streamed to ``on_line`` and kept as
``console.txt``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from flashpoc.core.errors import RemoteError
from flashpoc.hosts.mountstats import SAMPLE_MARK
from flashpoc.hosts.host import EXIT_MARK, fetch_dir, quote, split_exit_status
from flashpoc.engines.slob.datafiles import nfs_mounts_script

RUN_FILES: tuple[str, ...] = (
    "awr.txt", "awr_rac.txt", "awr.html.gz", "awr_rac.html.gz", "awr.html", "awr_rac.html",
    "statspack.txt", "iostat.out", "mpstat.out", "vmstat.out", "tm.out", "db_stats.out",
    "sqlplus.out", "slob_debug.out",
)
"""Files SLOB 2.5's runit.sh leaves in its directory (ENGINES.md), collected per point."""

CONF_MARK = "rendered by flashpoc"
"""Text in the first line of every slob.conf flashpoc writes (see :mod:`flashpoc.engines.slob.plan`)."""

MAX_RUN_BYTES = 256 * 1024**2

MOUNTSTATS_FILE = "mountstats.out"
"""The run's samples of the NFS client's counters (``database: datafiles: knfs``/``dnfs``), see
:mod:`flashpoc.hosts.mountstats`."""
SAMPLE_S = 3
"""Seconds between two samples of /proc/self/mountstats (iostat's interval in SLOB's runit.sh)."""


NFS_SECTIONS_AWK = "/^device /{p=($0 ~ / with fstype nfs4? /)} p"
"""awk program printing the NFS sections of /proc/self/mountstats (nfs and nfs4 mounts)."""


def mountstats_sampler(run_dir: str, every_s: int = SAMPLE_S) -> str:
    """Shell text that starts sampling the NFS sections of /proc/self/mountstats every
    ``every_s`` seconds (:data:`SAMPLE_S`) into ``run_dir``/:data:`MOUNTSTATS_FILE` in the background (its
    process id in ``$sampler``), each sample after a ``@@flashpoc mountstats EPOCH HH:MM:SS`` line."""
    out = quote(f"{run_dir}/{MOUNTSTATS_FILE}")
    awk = quote(NFS_SECTIONS_AWK)
    # the loop also ends with the script's shell ($$), should the script be stopped before its kill
    return (f"( while kill -0 $$ 2>/dev/null; do echo \"{SAMPLE_MARK}$(date '+%s %H:%M:%S')\"; "
            f"awk {awk} /proc/self/mountstats; sleep {int(every_s)}; done ) >{out} 2>/dev/null & sampler=$!; ")


@dataclass(frozen=True)
class SlobRun:
    """What one ``runit.sh`` invocation produced.

    Attributes:
        host: the DB host's name.
        schemas: ``-s``, the number of schemas used.
        threads: ``-t``, threads per schema.
        conf: the slob.conf text used.
        console: runit.sh's stdout and stderr.
        exit_code: runit.sh's exit status.
        files: file name -> bytes of :data:`RUN_FILES` found after the run (and slob.conf).
        wall_s: wall-clock seconds of the whole point (s).
    """

    host: str
    schemas: int
    threads: int
    conf: str
    console: str
    exit_code: int
    files: dict[str, bytes]
    wall_s: float


FOLLOW_MARK = "@@flashpoc iostat "
"""Start of each line of the followed file (``iostat.out``, or the NFS samples') the point's script
prints while runit.sh runs (:func:`follow_script`)."""
FOLLOW_STOP = ".flashpoc-follow-stop"
"""The file in the SLOB directory that tells :func:`follow_script`'s loop runit.sh has ended."""


def followed(run_dir: str, datafiles: str | None) -> str:
    """The file whose lines make a point's live intervals: the NFS samples (:data:`MOUNTSTATS_FILE` in
    ``run_dir``) for datafiles on the kernel's NFS client (``knfs``), else runit.sh's ``iostat.out``."""
    return f"{run_dir}/{MOUNTSTATS_FILE}" if datafiles == "knfs" else "iostat.out"


def follow_script(name: str = "iostat.out", every_s: int = 1) -> str:
    """Shell text that prints each complete line ``name`` (in the SLOB directory, where runit.sh's
    iostat writes it) gains, after :data:`FOLLOW_MARK`, every
    ``every_s`` seconds in the background (its process id in ``$follower``) until
    :data:`FOLLOW_STOP` exists; its last pass, after that, prints what remains."""
    f = quote(name)
    return (f"rm -f {FOLLOW_STOP}; ( n=0; while :; do s=0; [ -f {FOLLOW_STOP} ] && s=1; "
            f"if [ -f {f} ]; then m=$(wc -l < {f}); if [ \"$m\" -gt \"$n\" ]; then "
            f"sed -n \"$((n+1)),${{m}}p\" {f} | sed 's/^/{FOLLOW_MARK}/'; n=$m; fi; fi; "
            f"[ $s = 1 ] && break; sleep {int(every_s)}; done ) & follower=$!; ")


def run_script(home: str, run_dir: str, schemas: int, threads: int, env_file: str | None,
               sample_nfs: bool = False, follow: str | None = None) -> str:
    """The shell script (one command) that runs one SLOB point; every value is quoted.

    ``home`` and ``env_file`` may be relative to the login directory of the DB host's user.
    The script prints runit.sh's console, then ``@@flashpoc rc N`` with runit.sh's status.
    With ``sample_nfs`` the NFS client's counters are sampled while runit.sh runs
    (:func:`mountstats_sampler`); the lines written to the file ``follow`` (``iostat.out``: runit.sh's
    iostat's; :func:`followed`) are printed as they come (:func:`follow_script`), before the status,
    never into ``console.txt``.
    """
    h, d = quote(home), quote(run_dir)
    outputs = " ".join(quote(name) for name in RUN_FILES)
    source = f". {quote(env_file)} && " if env_file else ""
    return (
        f'cd "$HOME" && cd {h} && [ -f runit.sh ] '
        f"|| {{ echo flashpoc: no runit.sh in {h} >&2; exit 2; }}; "
        f'if [ -f slob.conf ] && ! head -n 1 slob.conf | grep -q {quote(CONF_MARK)} '
        f'&& [ ! -e slob.conf.before-flashpoc ]; then cp -p slob.conf slob.conf.before-flashpoc || exit 2; fi; '
        f"cp {d}/slob.conf slob.conf || exit 2; rm -f {outputs}; "
        + (mountstats_sampler(run_dir) if sample_nfs else "")
        + (follow_script(follow) if follow else "")
        + f"( {source}exec sh ./runit.sh -s {int(schemas)} -t {int(threads)} ) 2>&1 | tee {d}/console.txt; "
        f"rc=${{PIPESTATUS[0]}}; "
        + ('kill "$sampler" 2>/dev/null; ' if sample_nfs else "")
        + (f'touch {FOLLOW_STOP}; wait "$follower"; rm -f {FOLLOW_STOP}; ' if follow else "")
        + f'for f in {outputs}; do [ -f "$f" ] && mv -f "$f" {d}/; done; '
        f'echo "{EXIT_MARK}$rc"'
    )


def run_slob(host, conf: str, run_dir: str, *, home: str, schemas: int, threads: int,
             env_file: str | None, timeout_s: float, purpose: str,
             on_line: Callable[[str], None] | None = None, sample_nfs: bool = False,
             on_follow: Callable[[str], None] | None = None, follow: str = "iostat.out") -> SlobRun:
    """Run one SLOB point on ``host`` (the DB host) and collect its files.

    A run that exits non-zero is returned, not raised; its console says why.

    Args:
        host: the DB host (a :mod:`flashpoc.hosts.host` host); commands run under bash.
        conf: slob.conf text (:func:`flashpoc.engines.slob.plan.render_slob_conf`).
        run_dir: directory on the DB host for this point's files.
        home: the SLOB directory.
        schemas: schemas to use (``-s``).
        threads: threads per schema (``-t``).
        env_file: file sourced before runit.sh, or None.
        timeout_s: seconds before the point is abandoned (and stopped on the host).
        purpose: words for error messages.
        on_line: called with each console line as it arrives.
        sample_nfs: sample the NFS client's counters during the run (:func:`mountstats_sampler`).
        on_follow: called with each line of the file ``follow`` as it is written (:func:`follow_script`):
            runit.sh's ``iostat.out`` (e.g. :class:`~flashpoc.engines.slob.intervals.IostatFeed`) or
            the NFS samples' (:func:`followed`; :class:`~flashpoc.engines.slob.intervals.MountstatsFeed`).
        follow: the file whose lines go to ``on_follow``, in the SLOB directory or ``run_dir``'s
            path (:func:`followed`).

    Raises:
        RemoteError: the host cannot be reached, SLOB is not in ``home``, or the run was cut
            short before it reported its status.
    """
    start = time.perf_counter()
    host.run(f"mkdir -p {quote(run_dir)}", purpose=f"{purpose}: create the run directory")
    host.put_text(conf, f"{run_dir}/slob.conf", purpose=f"{purpose}: write slob.conf")
    script = run_script(home, run_dir, schemas, threads, env_file, sample_nfs,
                        follow=follow if on_follow is not None else None)
    result = host.run(f"bash -c {quote(script)}", purpose=purpose, timeout_s=timeout_s, check=False,
                      on_line=_console_reader(on_line, on_follow) if on_line or on_follow else None)
    code, console = split_exit_status(result.stdout)
    console = "".join(line for line in console.splitlines(keepends=True) if not line.startswith(FOLLOW_MARK))
    if code is None:
        detail = (result.stderr or result.stdout).strip().splitlines()[-5:]
        raise RemoteError(f"{host.name}: {purpose}: the SLOB run did not complete (exit {result.exited}): "
                          + " | ".join(detail))
    files = fetch_dir(host, run_dir, purpose=f"{purpose}: fetch the run files", max_bytes=MAX_RUN_BYTES)
    files.pop("console.txt", None)
    return SlobRun(host.name, schemas, threads, conf, console, code, files, time.perf_counter() - start)


def _console_reader(on_line: Callable[[str], None] | None,
                    on_follow: Callable[[str], None] | None) -> Callable[[str], None]:
    """The line handler of a point's output: the followed file's lines (:data:`FOLLOW_MARK`) to
    ``on_follow``, runit.sh's console to ``on_line``."""
    def read(line: str) -> None:
        if line.startswith(FOLLOW_MARK):
            if on_follow is not None:
                on_follow(line[len(FOLLOW_MARK):])
        elif on_line is not None:
            on_line(line)
    return read


def host_facts_script(home: str, env_file: str | None, passwd_env: str | None) -> str:
    """Shell script printing ``key=value`` facts of the DB host for the SLOB check.

    Keys: ``home`` (the absolute SLOB directory, or ``missing``), ``file_runit.sh``,
    ``file_setup.sh``, ``file_slob.conf`` (yes/no), ``writable`` (yes/no), ``env_file``
    (yes/no/none), ``sqlplus`` (its path after sourcing the environment file, or ``missing``),
    ``tool_mpstat``/``tool_iostat``/``tool_vmstat`` (yes/no), ``passwd_env``
    (set/unset/none), ``nfs_mounts`` (the NFS mount points, comma-separated) and
    ``nfs_mount_<n>`` (each NFS mount's point, export, type and options, see
    :mod:`.datafiles`). The password variable's value is never printed.
    """
    h = quote(home)
    env = (f"if [ -f {quote(env_file)} ]; then echo env_file=yes; . {quote(env_file)} >/dev/null 2>&1; "
           "else echo env_file=no; fi; ") if env_file else "echo env_file=none; "
    passwd = (f'if [ -n "${{{passwd_env}+x}}" ]; then echo passwd_env=set; else echo passwd_env=unset; fi; '
              if passwd_env else "echo passwd_env=none; ")
    return (
        f'cd "$HOME" 2>/dev/null; if cd {h} 2>/dev/null; then echo "home=$(pwd)"; '
        'for f in runit.sh setup.sh slob.conf; do if [ -f "$f" ]; then echo "file_$f=yes"; '
        'else echo "file_$f=no"; fi; done; if [ -w . ]; then echo writable=yes; else echo writable=no; fi; '
        "else echo home=missing; fi; "
        f"( {env}"
        'p=$(command -v sqlplus) && echo "sqlplus=$p" || echo sqlplus=missing; '
        'for t in mpstat iostat vmstat; do if command -v "$t" >/dev/null; then echo "tool_$t=yes"; '
        'else echo "tool_$t=no"; fi; done; '
        f"{passwd}) ; "
        # the NFS mount points the kernel's client serves (where kNFS datafiles would be)
        "printf nfs_mounts=; awk " + quote('$1 == "device" && / with fstype nfs4? /'
                                           '{printf "%s%s", (n++ ? "," : ""), $5} END {print ""}')
        + " /proc/self/mountstats 2>/dev/null || echo; " + nfs_mounts_script()
    )


def slob_host_facts(host, home: str, env_file: str | None, passwd_env: str | None) -> dict[str, str]:
    """The DB host's SLOB facts (see :func:`host_facts_script`), one command.

    Raises:
        RemoteError: the host cannot be reached.
    """
    script = host_facts_script(home, env_file, passwd_env)
    out = host.run(f"bash -c {quote(script)}", purpose="look for SLOB, sqlplus and the OS tools", check=False)
    facts: dict[str, str] = {}
    for line in out.stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            facts[key.strip()] = value.strip()
    return facts
