-- DBA_HIST_OSSTAT host statistics at the two snapshots (*_TIME in centiseconds,
-- cumulative; NUM_CPUS, LOAD and *_BYTES are point values).
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, instance_number, stat_name, value
  FROM dba_hist_osstat
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY stat_name, snap_id
