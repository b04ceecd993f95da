-- STATS$OSSTAT host statistics at the two Statspack snapshots, named through STATS$OSSTATNAME
-- (*_TIME in centiseconds, cumulative; NUM_CPUS, LOAD and *_BYTES are point values).
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT s.snap_id, s.instance_number, n.stat_name, s.value
  FROM stats$osstat s
  JOIN stats$osstatname n ON n.osstat_id = s.osstat_id
 WHERE s.dbid = :dbid
   AND s.instance_number = :instance_number
   AND s.snap_id IN (:begin_snap, :end_snap)
 ORDER BY n.stat_name, s.snap_id
