-- One sample of the database's own cumulative I/O counters, summed over every instance (the
-- GV$ views: on RAC the whole cluster), for the time series of a point whose datafiles are on
-- Direct NFS (neither iostat nor the kernel's NFS counters see that I/O). One row per call:
--   clock                             the database clock (SYSTIMESTAMP) as HH24:MI:SS text, the
--                                     clock an AWR report prints its snapshot times in;
--   epoch_s                           the same instant in seconds since 1970-01-01 UTC, to the ms;
--   physical_read_total_io_requests   SUM of V$SYSSTAT 'physical read total IO requests';
--   physical_write_total_io_requests  SUM of V$SYSSTAT 'physical write total IO requests';
--   db_file_sequential_read_waits     SUM of V$SYSTEM_EVENT.TOTAL_WAITS of 'db file sequential read';
--   db_file_sequential_read_time_us   SUM of V$SYSTEM_EVENT.TIME_WAITED_MICRO of the same event.
-- Names from the Oracle Database Reference: V$SYSSTAT (columns NAME, VALUE; "This view returns
-- instance-wide data ... when queried from the root of a CDB"),
-- https://docs.oracle.com/database/122/REFRN/V-SYSSTAT.htm, and V$SYSTEM_EVENT (EVENT,
-- TOTAL_WAITS, TIME_WAITED_MICRO in microseconds),
-- https://docs.oracle.com/database/122/REFRN/V-SYSTEM_EVENT.htm; each GV$ view is its V$ view
-- with INST_ID, across the instances. The statistic names are those AWR's Instance Activity
-- Stats print (DBA_HIST_SYSSTAT.STAT_NAME, read by sql/awr_sysstat.sql), the figures of AWR's IO
-- Profile "Total Requests". The counters are cumulative since each instance started: a value
-- that goes down between two samples means an instance restarted. An event never waited for
-- has no row: NVL gives its 0.
-- SYSTIMESTAMP is read once (the WITH clause), so the clock and epoch_s are the same instant.
-- No bind variables.
WITH now AS (SELECT SYSTIMESTAMP AS ts FROM dual),
     utc AS (SELECT ts, SYS_EXTRACT_UTC(ts) - TIMESTAMP '1970-01-01 00:00:00' AS since FROM now)
SELECT TO_CHAR(utc.ts, 'HH24:MI:SS') AS clock,
       ROUND(EXTRACT(DAY FROM utc.since) * 86400 + EXTRACT(HOUR FROM utc.since) * 3600
             + EXTRACT(MINUTE FROM utc.since) * 60 + EXTRACT(SECOND FROM utc.since), 3) AS epoch_s,
       (SELECT NVL(SUM(value), 0) FROM gv$sysstat
         WHERE name = 'physical read total IO requests') AS physical_read_total_io_requests,
       (SELECT NVL(SUM(value), 0) FROM gv$sysstat
         WHERE name = 'physical write total IO requests') AS physical_write_total_io_requests,
       (SELECT NVL(SUM(total_waits), 0) FROM gv$system_event
         WHERE event = 'db file sequential read') AS db_file_sequential_read_waits,
       (SELECT NVL(SUM(time_waited_micro), 0) FROM gv$system_event
         WHERE event = 'db file sequential read') AS db_file_sequential_read_time_us
  FROM utc
