-- STATS$SNAPSHOT rows of the two Statspack snapshots: snap_time (a DATE, whole seconds) is
-- returned as end_interval_time, the column flashpoc's AWR rows use for the interval's end.
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, dbid, instance_number, startup_time,
       CAST(NULL AS DATE) AS begin_interval_time, snap_time AS end_interval_time
  FROM stats$snapshot
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY snap_id
