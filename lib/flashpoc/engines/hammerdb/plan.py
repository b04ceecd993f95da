"""HammerDB scripts (pure): the ``hammerdbcli auto`` Tcl scripts of a schema build and a timed run.

Each script sets the database's keys with ``diset`` (PostgreSQL's ``pg_*`` keys, Oracle's keys of
``config/oracle.xml``), names every log uniquely and stamps it (``vuset unique/timestamps``,
``tcset unique/timestamps``, ``giset timeprofile xt_unique_log_name``), runs, and then writes the
job store's answers (``jobs <id> result``, ``timing``, ``tcount``, ``status`` and the job's output)
in JSON into ``$TMP/jobs/<jobid>_<what>.json``, one file each, captured from stdout as HammerDB
prints them. ``jobs <id> dict`` is never written: it holds the passwords.

No password is in a script: ``flashpoc::secret`` sets a key to ``$::env(NAME)`` on the load host,
with HammerDB's confirmation line (which echoes the value) kept off the console. Every other value
is quoted for Tcl (:func:`tcl_word`).

The console marks what the caller needs with lines starting :data:`MARK`: ``@@flashpoc jobid ID``
after the run, ``@@flashpoc error ...`` when the script cannot go on.
"""

from __future__ import annotations

import re

from flashpoc.engines.hammerdb.settings import MAX_VIRTUAL_USERS, HammerdbSettings

MARK = "@@flashpoc"
JOB_ANSWERS = ("result", "timing", "tcount", "status")
"""``jobs <id> <what>`` answers written per job (besides ``jobs <id>``, the job's whole output)."""
_PLAIN_WORD = re.compile(r"^[A-Za-z0-9._:/@+=,%-]+$", re.ASCII)
_TCL_ESCAPES = {"\\": "\\\\", '"': '\\"', "$": "\\$", "[": "\\[", "]": "\\]", "{": "\\{", "}": "\\}",
                "\n": "\\n", "\r": "\\r", "\t": "\\t", ";": "\\;"}

PRELUDE = r"""namespace eval flashpoc {
    variable buf ""
    proc drop {op chan args} {
        switch -- $op { initialize { return {initialize finalize write} } write { return "" } default { return } }
    }
    proc keep {op chan args} {
        variable buf
        switch -- $op {
            initialize { return {initialize finalize write} }
            write { append buf [ lindex $args 0 ]; return "" }
            default { return }
        }
    }
    # diset DICT KEY to the value of the environment variable NAME, without printing the value
    proc secret {dict key name} {
        set value [ env $name ]
        flush stdout
        chan push stdout ::flashpoc::drop
        try { diset $dict $key $value } finally { flush stdout; chan pop stdout }
    }
    # the value of the environment variable NAME (the script stops, naming it, when it is not set)
    proc env {name} {
        if { ![ info exists ::env($name) ] || $::env($name) eq "" } {
            puts "@@flashpoc error environment variable $name is not set on this host"
            exit 1
        }
        return $::env($name)
    }
    # one fact for the check, on one line
    proc fact {key value} { puts "@@flashpoc check $key [ string map [ list \n { } \r { } ] $value ]" }
    # what SCRIPT prints, written to FILE (atomically: a temporary file, then renamed)
    proc capture {file script} {
        variable buf
        set buf ""
        flush stdout
        chan push stdout ::flashpoc::keep
        set rc [ catch { uplevel #0 $script } ]
        flush stdout
        chan pop stdout
        set fd [ open $file.part wb ]
        puts -nonewline $fd $buf
        close $fd
        file rename -force $file.part $file
        return $rc
    }
    # the job store's JSON answers about JOBID, one file each under $TMP/jobs
    proc answers {jobid} {
        set dir [ file join $::env(TMP) jobs ]
        file mkdir $dir
        jobs format JSON
        capture [ file join $dir ${jobid}.json ] [ list jobs $jobid ]
        foreach what { ANSWERS } {
            capture [ file join $dir ${jobid}_$what.json ] [ list jobs $jobid $what ]
        }
        capture [ file join $dir jobs_result.json ] { puts [ jobs result ] }
    }
}
"""


def tcl_word(value: object) -> str:
    """``value`` as one Tcl word: as it is when it holds only plain characters, else in double
    quotes with every character Tcl substitutes or splits on backslash-escaped."""
    text = str(value)
    if _PLAIN_WORD.match(text):
        return text
    return '"' + "".join(_TCL_ESCAPES.get(ch, ch) for ch in text) + '"'


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _diset(lines: list[str], dict_name: str, key: str, value: object) -> None:
    lines.append(f"diset {dict_name} {key} {tcl_word(value)}")


def _connection(s: HammerdbSettings) -> list[str]:
    """``dbset``/``diset`` lines of the connection, the schema user and the superuser (who builds the
    schema, and whom HammerDB's transaction counter connects as)."""
    lines = [f"dbset db {'ora' if s.database == 'oracle' else 'pg'}", "dbset bm TPC-C"]
    if s.database == "oracle":
        _diset(lines, "connection", "system_user", s.superuser_name)
        lines.append(f"flashpoc::secret connection system_password {tcl_word(s.superuser_password_env)}")
        _diset(lines, "connection", "instance", s.service)
        _diset(lines, "connection", "rac", 0)
        _diset(lines, "tpcc", "tpcc_user", s.user)
        lines.append(f"flashpoc::secret tpcc tpcc_pass {tcl_word(s.password_env)}")
        if s.tablespace:
            _diset(lines, "tpcc", "tpcc_def_tab", s.tablespace)
            _diset(lines, "tpcc", "tpcc_ol_tab", s.tablespace)
        return lines
    _diset(lines, "connection", "pg_host", s.host)
    _diset(lines, "connection", "pg_port", s.port)
    _diset(lines, "connection", "pg_sslmode", s.sslmode)
    _diset(lines, "tpcc", "pg_superuser", s.superuser_name)
    lines.append(f"flashpoc::secret tpcc pg_superuserpass {tcl_word(s.superuser_password_env)}")
    _diset(lines, "tpcc", "pg_user", s.user)
    lines.append(f"flashpoc::secret tpcc pg_pass {tcl_word(s.password_env)}")
    _diset(lines, "tpcc", "pg_dbase", s.dbname)
    if s.tablespace:
        _diset(lines, "tpcc", "pg_tspace", s.tablespace)
    return lines


_KEYS = ("count_ware", "num_vu", "total_iterations", "rampup", "duration", "allwarehouse", "keyandthink",
         "raiseerror")


def _keys(s: HammerdbSettings) -> dict[str, str]:
    """The database's names of the TPROC-C keys (Oracle's carry no prefix but two)."""
    if s.database == "oracle":
        return {k: k for k in _KEYS} | {"driver": "ora_driver", "timeprofile": "ora_timeprofile"}
    return {k: f"pg_{k}" for k in (*_KEYS, "driver", "timeprofile")}


#: HammerDB 6.0's monitor gathers the time profile as soon as each virtual user has stored its
#: transactions' timings, and reads the user's clock timings, stored just after, at once: on a
#: loaded host they are not there yet and the monitor fails (``key "msperclick" not found``,
#: TPC-Council/HammerDB issue 774; v6.0's fallback for it never runs). The loaded driver script
#: (``_ED(package)``, what HammerDB's ``customscript`` would load) is given a wait, before its
#: ``xttimeproflog`` call, until every virtual user has stored them (``endms``, the last), at most
#: :data:`CLICKS_WAIT_S` s, after which HammerDB goes on as it would have.
CLICKS_WAIT_S = 300
XTPROF_CALL = "xttimeproflog $totalvirtualusers $library"
XTPROF_WAIT = (f"for {{set fp_w 0}} {{$fp_w < {CLICKS_WAIT_S * 10}}} {{incr fp_w}} {{ set fp_all 1; "
               "for {set fp_f 2} {$fp_f <= $totalvirtualusers} {incr fp_f} { "
               "if { [ catch { tsv::keylget allclicktimings $fp_f endms } ] } { set fp_all 0; break } }; "
               "if { $fp_all } { break }; after 100 }; ")
XTPROF_PATCH = ["# flashpoc: the monitor waits for every virtual user's clock timings (HammerDB issue 774)",
                "set _ED(package) [ string map [ list {%s} {%s%s} ] $_ED(package) ]" % (XTPROF_CALL, XTPROF_WAIT,
                                                                                   XTPROF_CALL)]


def _logging() -> list[str]:
    """Unique, timestamped logs in ``TMP`` (several runs never share or append to a file)."""
    return ["giset timeprofile xt_unique_log_name 1", "vuset logtotemp 1", "vuset unique 1",
            "vuset timestamps 1", "tcset logtotemp 1", "tcset unique 1", "tcset timestamps 1",
            "tcset refreshrate 10"]


def _header(title: str) -> list[str]:
    return [f"# flashpoc: {title}", "# written by flashpoc; run as: cd HAMMERDB_DIR && TMP=RUN_DIR ./hammerdbcli auto "
            "SCRIPT", PRELUDE.replace("{ ANSWERS }", "{ " + " ".join(JOB_ANSWERS) + " }").rstrip("\n")]


def _finish(run_command: str, after: list[str]) -> list[str]:
    """Run, mark the job id on the console, run ``after`` (stop the users and the counter), write
    the job store's answers, exit."""
    return [f"set flashpoc_ran [ {run_command} ]", *after,
            f'if {{ [ regexp {{jobid=(\\S+)}} $flashpoc_ran -> flashpoc_jobid ] }} {{',
            f'    puts "{MARK} jobid $flashpoc_jobid"',
            "    flashpoc::answers $flashpoc_jobid",
            "} else {",
            f'    puts "{MARK} error HammerDB gave no job id: $flashpoc_ran"',
            "}", "exit"]


def build_script(s: HammerdbSettings) -> str:
    """The script that builds the TPROC-C schema of ``s.warehouses`` with ``s.build_virtual_users``.

    Only call it when ``s.build_schema`` asks for a build; a schema already there makes
    HammerDB's build fail rather than overwrite it.
    """
    k = _keys(s)
    lines = _header(f"build a {s.warehouses}-warehouse TPROC-C schema on {s.database}")
    lines += _connection(s)
    _diset(lines, "tpcc", k["count_ware"], s.warehouses)
    _diset(lines, "tpcc", k["num_vu"], min(s.build_virtual_users, s.warehouses))
    lines += _logging()
    lines += _finish("buildschema", [])
    return "\n".join(lines) + "\n"


def run_script(s: HammerdbSettings, virtual_users: int) -> str:
    """The script of one point at ``virtual_users``, with the transaction counter on: a timed run,
    or with ``driver: test`` a fixed work (:func:`_fixed_work`)."""
    if not 1 <= virtual_users <= MAX_VIRTUAL_USERS:
        raise ValueError(f"virtual users must be between 1 and {MAX_VIRTUAL_USERS}, got {virtual_users}")
    k = _keys(s)
    what = "fixed-work" if s.fixed_work else "timed"
    lines = _header(f"{what} TPROC-C run on {s.database} at {virtual_users} virtual users")
    lines += _connection(s)
    _diset(lines, "tpcc", k["driver"], s.driver)
    _diset(lines, "tpcc", k["total_iterations"], s.total_iterations)
    if not s.fixed_work:
        _diset(lines, "tpcc", k["rampup"], s.rampup_minutes)
        _diset(lines, "tpcc", k["duration"], s.duration_minutes)
    _diset(lines, "tpcc", k["allwarehouse"], _bool(s.all_warehouses))
    _diset(lines, "tpcc", k["timeprofile"], _bool(s.time_profile))
    _diset(lines, "tpcc", k["keyandthink"], _bool(s.keying_and_thinking))
    # PostgreSQL's driver prints each error and goes on; Oracle's prints one only when it stops on it
    _diset(lines, "tpcc", k["raiseerror"], _bool(s.database == "oracle"))
    if s.database == "postgresql":
        _diset(lines, "tpcc", "pg_vacuum", "false")
    lines += _logging()
    if s.fixed_work:
        return "\n".join(lines + _fixed_work(s, virtual_users)) + "\n"
    lines += ["loadscript", *(XTPROF_PATCH if s.time_profile else []), f"vuset vu {int(virtual_users)}", "vucreate",
              "tcstart"]
    lines += _finish("vurun", ["vudestroy", "tcstop"])
    return "\n".join(lines) + "\n"


def _fixed_work(s: HammerdbSettings, virtual_users: int) -> list[str]:
    """The test driver's run: each virtual user ``s.iterations`` times, ``s.user_delay_ms`` after
    the one before, ``s.repeat_delay_ms`` after each iteration; ``vurun`` timed by the script
    (``@@flashpoc elapsed_ms N``: the test completion time). The test driver keeps no job store."""
    return [f"vuset iterations {int(s.iterations)}", f"vuset delay {int(s.user_delay_ms)}",
            f"vuset repeat {int(s.repeat_delay_ms)}", "loadscript", f"vuset vu {int(virtual_users)}", "vucreate",
            "tcstart", "set flashpoc_t0 [ clock milliseconds ]", "set flashpoc_ran [ vurun ]",
            f'puts "{MARK} elapsed_ms [ expr {{ [ clock milliseconds ] - $flashpoc_t0 }} ]"', "vudestroy", "tcstop",
            "exit"]


CHECK_POSTGRESQL = """if { [ catch { package require Pgtcl } err ] } { flashpoc::fact driver_error $err; exit }
flashpoc::fact driver "Pgtcl [ package present Pgtcl ]"
proc flashpoc::connect {user name dbname} {
    return [ pg_connect -conninfo [ list host = $::fp(host) port = $::fp(port) sslmode = $::fp(sslmode) \\
        user = $user password = [ flashpoc::env $name ] dbname = $dbname ] ]
}
# HammerDB hands the credentials to libpq as a Tcl list: a space, quote, brace or backslash in one breaks it
foreach name [ list $::fp(superuser_env) $::fp(user_env) ] {
    if { [ regexp {[[:space:]{}'"\\\\]} [ flashpoc::env $name ] ] } { flashpoc::fact password_unusable $name; exit }
}
if { [ catch { flashpoc::connect $::fp(superuser) $::fp(superuser_env) postgres } lda ] } {
    flashpoc::fact connect_error $lda
    exit
}
flashpoc::fact connect ok
pg_select $lda "select current_setting('server_version') as v" row { flashpoc::fact version $row(v) }
catch { pg_select $lda "select current_setting('data_directory') as d" row { flashpoc::fact data_directory $row(d) } }
set databases 0
pg_select $lda "select count(*) as n from pg_database where datname = '$::fp(dbname)'" row { set databases $row(n) }
flashpoc::fact database $databases
pg_disconnect $lda
if { $databases == 0 } { exit }
if { [ catch { flashpoc::connect $::fp(user) $::fp(user_env) $::fp(dbname) } lda ] } {
    flashpoc::fact user_connect_error $lda
    exit
}
if { [ catch { pg_select $lda "select count(*) as n from warehouse" row { flashpoc::fact warehouses $row(n) } } err ] } {
    flashpoc::fact schema_error $err
}
pg_disconnect $lda
"""

CHECK_ORACLE = """if { [ catch { package require Oratcl } err ] } { flashpoc::fact driver_error $err; exit }
flashpoc::fact driver "Oratcl [ package present Oratcl ]"
proc flashpoc::one {lda sql} {
    set cur [ oraopen $lda ]
    orasql $cur $sql
    orafetch $cur -datavariable row
    oraclose $cur
    return [ lindex $row 0 ]
}
if { [ catch { oralogon "$::fp(superuser)/[ flashpoc::env $::fp(superuser_env) ]@$::fp(service)" } lda ] } {
    flashpoc::fact connect_error $lda
    exit
}
flashpoc::fact connect ok
flashpoc::fact version [ flashpoc::one $lda {select version from v$instance} ]
flashpoc::fact pack [ flashpoc::one $lda {select value from v$parameter where name = 'control_management_pack_access'} ]
flashpoc::fact database [ flashpoc::one $lda "select count(*) from dba_users where username = upper('$::fp(user)')" ]
if { [ catch { flashpoc::one $lda "select count(*) from $::fp(user).warehouse" } n ] } {
    flashpoc::fact schema_error $n
} else {
    flashpoc::fact warehouses $n
}
oralogoff $lda
if { [ catch { oralogon "$::fp(user)/[ flashpoc::env $::fp(user_env) ]@$::fp(service)" } lda ] } {
    flashpoc::fact user_connect_error $lda
} else {
    oralogoff $lda
}
"""


def check_script(s: HammerdbSettings) -> str:
    """The script of the check: HammerDB's Tcl and its database driver load, the database answers
    (as the superuser), the TPROC-C database (PostgreSQL) or schema user (Oracle) exists, and its
    warehouse count; on PostgreSQL its data directory, on Oracle the management pack (AWR needs the
    Diagnostics Pack). Facts are
    printed as ``@@flashpoc check KEY VALUE`` lines (:func:`.parse.parse_check`); nothing is
    written to the database. The schema user logs in too, with its own password
    (``user_connect_error``: a wrong password is said as one, not as a missing schema)."""
    values = {"host": s.host, "port": s.port, "sslmode": s.sslmode, "superuser": s.superuser_name,
              "superuser_env": s.superuser_password_env, "user": s.user, "user_env": s.password_env,
              "dbname": s.dbname, "service": s.service or ""}
    lines = _header(f"check HammerDB and the {s.database} TPROC-C schema")
    lines += [f"set fp({key}) {tcl_word(value)}" for key, value in values.items()]
    lines += ["flashpoc::fact tcl [ info patchlevel ]",
              (CHECK_ORACLE if s.database == "oracle" else CHECK_POSTGRESQL).rstrip("\n"), "exit"]
    return "\n".join(lines) + "\n"
