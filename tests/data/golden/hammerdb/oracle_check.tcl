# flashpoc: check HammerDB and the oracle TPROC-C schema
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
set fp(host) 127.0.0.1
set fp(port) 5432
set fp(sslmode) disable
set fp(superuser) system
set fp(superuser_env) ORACLE_SYSTEM_PASSWORD
set fp(user) tpcc
set fp(user_env) TPCC_PASSWORD
set fp(dbname) tpcc
set fp(service) dbhost:1521/PDB1
flashpoc::fact tcl [ info patchlevel ]
if { [ catch { package require Oratcl } err ] } { flashpoc::fact driver_error $err; exit }
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
exit
