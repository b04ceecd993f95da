-- DBA_HIST_EVENT_HISTOGRAM wait counts per bucket at the two snapshots. The bucket
-- wait_time_milli = N counts waits shorter than N ms and at least N/2 ms (N = 1: < 1 ms).
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, instance_number, event_name, wait_time_milli, wait_count
  FROM dba_hist_event_histogram
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY event_name, wait_time_milli, snap_id
