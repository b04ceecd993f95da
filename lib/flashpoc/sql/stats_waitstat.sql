-- STATS$WAITSTAT buffer waits by block class (time in centiseconds) at the two Statspack snapshots.
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, instance_number, class, wait_count, time
  FROM stats$waitstat
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY class, snap_id
