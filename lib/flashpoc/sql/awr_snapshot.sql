-- DBA_HIST_SNAPSHOT rows of the two snapshots: elapsed time and instance restarts.
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, dbid, instance_number, startup_time,
       begin_interval_time, end_interval_time
  FROM dba_hist_snapshot
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY snap_id
