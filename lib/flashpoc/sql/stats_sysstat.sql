-- STATS$SYSSTAT counters (cumulative since instance startup) at the two Statspack snapshots.
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, instance_number, name AS stat_name, value
  FROM stats$sysstat
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY stat_name, snap_id
