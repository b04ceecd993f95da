-- One sample of the database's own cumulative I/O counters, one row per instance (the GV$ views:
-- on RAC every instance of the cluster), for the time series of a point whose datafiles are on
-- Direct NFS (neither iostat nor the kernel's NFS counters see that I/O). Columns:
--   clock                             the database clock (SYSTIMESTAMP) as HH24:MI:SS text, the
--                                     clock an AWR report prints its snapshot times in (the same
--                                     in every row);
--   epoch_s                           the same instant in seconds since 1970-01-01 UTC, to the ms;
--   inst_id                           the instance (GV$ views' INST_ID, V$INSTANCE.INSTANCE_NUMBER);
--   physical_read_io_requests         V$SYSSTAT 'physical read IO requests' of the instance;
--   physical_write_io_requests        V$SYSSTAT 'physical write IO requests' of the instance;
--   db_file_sequential_read_waits     V$SYSTEM_EVENT.TOTAL_WAITS of 'db file sequential read';
--   db_file_sequential_read_time_us   V$SYSTEM_EVENT.TIME_WAITED_MICRO of the same event.
-- The two statistics are those a point's IOPS are made of (AWR's Load Profile "Read IO requests"
-- and "Write IO requests", DBA_HIST_SYSSTAT rows of the same names read by sql/awr_sysstat.sql):
-- requests of the database's own datafile and tempfile I/O, not the 'physical ... total IO
-- requests', which also count redo, control file and archive log I/O. So the series averaged over
-- a point's window is the point's IOPS, the cluster's (every instance summed) or one instance's.
-- Names from the Oracle Database Reference: V$SYSSTAT (NAME, VALUE),
-- https://docs.oracle.com/database/122/REFRN/V-SYSSTAT.htm, and V$SYSTEM_EVENT (EVENT,
-- TOTAL_WAITS, TIME_WAITED_MICRO in microseconds),
-- https://docs.oracle.com/database/122/REFRN/V-SYSTEM_EVENT.htm; each GV$ view is its V$ view with
-- INST_ID, across the instances.
-- CDB and PDB: both pages say the view "returns instance-wide data and a value of 0 in the CON_ID
-- column when queried from the root of a CDB"; neither says what a session connected to a PDB
-- sees (not found in the Reference). The views documented to hold one container's figures are
-- V$CON_SYSSTAT and V$CON_SYSTEM_EVENT ("When queried from a PDB, statistics in that PDB are
-- returned", https://docs.oracle.com/database/122/REFRN/V-CON_SYSSTAT.htm). So through a PDB's
-- service the series may be that container's alone: the point says so (dbstat_container_note).
-- The counters are cumulative since each instance started: a value that goes down between two
-- samples means an instance restarted. An event an instance never waited for has no row: NVL
-- gives its 0. SYSTIMESTAMP is read once (the WITH clause), so every row's clock and epoch_s are
-- the same instant. No bind variables.
WITH now AS (SELECT SYSTIMESTAMP AS ts FROM dual),
     utc AS (SELECT ts, SYS_EXTRACT_UTC(ts) - TIMESTAMP '1970-01-01 00:00:00' AS since FROM now),
     stat AS (SELECT inst_id,
                     SUM(CASE WHEN name = 'physical read IO requests' THEN value ELSE 0 END) AS reads,
                     SUM(CASE WHEN name = 'physical write IO requests' THEN value ELSE 0 END) AS writes
                FROM gv$sysstat
               WHERE name IN ('physical read IO requests', 'physical write IO requests')
               GROUP BY inst_id),
     waits AS (SELECT inst_id, total_waits, time_waited_micro FROM gv$system_event
                WHERE event = 'db file sequential read')
SELECT TO_CHAR(utc.ts, 'HH24:MI:SS') AS clock,
       ROUND(EXTRACT(DAY FROM utc.since) * 86400 + EXTRACT(HOUR FROM utc.since) * 3600
             + EXTRACT(MINUTE FROM utc.since) * 60 + EXTRACT(SECOND FROM utc.since), 3) AS epoch_s,
       stat.inst_id AS inst_id,
       stat.reads AS physical_read_io_requests,
       stat.writes AS physical_write_io_requests,
       NVL(waits.total_waits, 0) AS db_file_sequential_read_waits,
       NVL(waits.time_waited_micro, 0) AS db_file_sequential_read_time_us
  FROM utc CROSS JOIN stat LEFT JOIN waits ON waits.inst_id = stat.inst_id
 ORDER BY stat.inst_id
