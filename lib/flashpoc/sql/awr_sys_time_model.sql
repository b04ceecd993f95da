-- DBA_HIST_SYS_TIME_MODEL at the two snapshots (values in microseconds, cumulative),
-- e.g. 'DB CPU', 'DB time', 'background cpu time'.
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, instance_number, stat_name, value
  FROM dba_hist_sys_time_model
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY stat_name, snap_id
