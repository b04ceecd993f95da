-- DBA_HIST_SYSTEM_EVENT wait counters (all sessions, and foreground only) at the two
-- snapshots. time_waited_micro* are microseconds.
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, instance_number, event_name, wait_class,
       total_waits, time_waited_micro,
       total_waits_fg, time_waited_micro_fg
  FROM dba_hist_system_event
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY event_name, snap_id
