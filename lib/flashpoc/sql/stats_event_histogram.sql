-- STATS$EVENT_HISTOGRAM wait counts per bucket at the two Statspack snapshots, named through
-- STATS$SYSTEM_EVENT of the same snapshot. The bucket wait_time_milli = N counts waits shorter
-- than N ms and at least N/2 ms (N = 1: < 1 ms).
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT h.snap_id, h.instance_number, e.event AS event_name, h.wait_time_milli, h.wait_count
  FROM stats$event_histogram h
  JOIN stats$system_event e
    ON e.snap_id = h.snap_id AND e.dbid = h.dbid
   AND e.instance_number = h.instance_number AND e.event_id = h.event_id
 WHERE h.dbid = :dbid
   AND h.instance_number = :instance_number
   AND h.snap_id IN (:begin_snap, :end_snap)
 ORDER BY event_name, h.wait_time_milli, h.snap_id
