# flashpoc: timed TPROC-C run on postgresql at 2 virtual users
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
diset tpcc pg_driver timed
diset tpcc pg_total_iterations 10000000
diset tpcc pg_rampup 0
diset tpcc pg_duration 1
diset tpcc pg_allwarehouse true
diset tpcc pg_timeprofile true
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
loadscript
# flashpoc: the monitor waits for every virtual user's clock timings (HammerDB issue 774)
set _ED(package) [ string map [ list {xttimeproflog $totalvirtualusers $library} {for {set fp_w 0} {$fp_w < 3000} {incr fp_w} { set fp_all 1; for {set fp_f 2} {$fp_f <= $totalvirtualusers} {incr fp_f} { if { [ catch { tsv::keylget allclicktimings $fp_f endms } ] } { set fp_all 0; break } }; if { $fp_all } { break }; after 100 }; xttimeproflog $totalvirtualusers $library} ] $_ED(package) ]
vuset vu 2
vucreate
tcstart
set flashpoc_ran [ vurun ]
vudestroy
tcstop
if { [ regexp {jobid=(\S+)} $flashpoc_ran -> flashpoc_jobid ] } {
    puts "@@flashpoc jobid $flashpoc_jobid"
    flashpoc::answers $flashpoc_jobid
} else {
    puts "@@flashpoc error HammerDB gave no job id: $flashpoc_ran"
}
exit
