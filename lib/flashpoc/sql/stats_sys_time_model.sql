-- STATS$SYS_TIME_MODEL at the two Statspack snapshots, named through STATS$TIME_MODEL_STATNAME
-- (values in microseconds, cumulative), e.g. 'DB CPU', 'DB time', 'background cpu time'.
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT s.snap_id, s.instance_number, n.stat_name, s.value
  FROM stats$sys_time_model s
  JOIN stats$time_model_statname n ON n.stat_id = s.stat_id
 WHERE s.dbid = :dbid
   AND s.instance_number = :instance_number
   AND s.snap_id IN (:begin_snap, :end_snap)
 ORDER BY n.stat_name, s.snap_id
