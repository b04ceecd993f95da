# flashpoc: check HammerDB and the postgresql TPROC-C schema
# written by flashpoc; run as: cd HAMMERDB_DIR && TMP=RUN_DIR ./hammerdbcli auto SCRIPT
namespace eval flashpoc {
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
        foreach what { result timing tcount status } {
            capture [ file join $dir ${jobid}_$what.json ] [ list jobs $jobid $what ]
        }
        capture [ file join $dir jobs_result.json ] { puts [ jobs result ] }
    }
}
set fp(host) db1.example.com
set fp(port) 5433
set fp(sslmode) disable
set fp(superuser) postgres
set fp(superuser_env) PG_SUPERUSER_PASSWORD
set fp(user) tpcc
set fp(user_env) TPCC_PASSWORD
set fp(dbname) tpcc
set fp(service) ""
flashpoc::fact tcl [ info patchlevel ]
if { [ catch { package require Pgtcl } err ] } { flashpoc::fact driver_error $err; exit }
flashpoc::fact driver "Pgtcl [ package present Pgtcl ]"
proc flashpoc::connect {user name dbname} {
    return [ pg_connect -conninfo [ list host = $::fp(host) port = $::fp(port) sslmode = $::fp(sslmode) \
        user = $user password = [ flashpoc::env $name ] dbname = $dbname ] ]
}
# HammerDB hands the credentials to libpq as a Tcl list: a space, quote, brace or backslash in one breaks it
foreach name [ list $::fp(superuser_env) $::fp(user_env) ] {
    if { [ regexp {[[:space:]{}'"\\]} [ flashpoc::env $name ] ] } { flashpoc::fact password_unusable $name; exit }
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
exit
