# flashpoc: fixed-work TPROC-C run on postgresql at 1 virtual users
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
dbset db pg
dbset bm TPC-C
diset connection pg_host 127.0.0.1
diset connection pg_port 52485
diset connection pg_sslmode disable
diset tpcc pg_superuser postgres
flashpoc::secret tpcc pg_superuserpass EXP_PG_PW
diset tpcc pg_user tpcc
flashpoc::secret tpcc pg_pass EXP_TPCC_PW
diset tpcc pg_dbase tpcc
diset tpcc pg_driver test
diset tpcc pg_total_iterations 300
diset tpcc pg_allwarehouse false
diset tpcc pg_timeprofile false
diset tpcc pg_keyandthink false
diset tpcc pg_raiseerror false
diset tpcc pg_vacuum false
giset timeprofile xt_unique_log_name 1
vuset logtotemp 1
vuset unique 1
vuset timestamps 1
tcset logtotemp 1
tcset unique 1
tcset timestamps 1
tcset refreshrate 10
vuset iterations 1
vuset delay 500
vuset repeat 500
loadscript
vuset vu 1
vucreate
tcstart
set flashpoc_t0 [ clock milliseconds ]
set flashpoc_ran [ vurun ]
puts "@@flashpoc elapsed_ms [ expr { [ clock milliseconds ] - $flashpoc_t0 } ]"
vudestroy
tcstop
exit
