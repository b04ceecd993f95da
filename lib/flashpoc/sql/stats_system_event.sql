-- STATS$SYSTEM_EVENT wait counters (all sessions, and foreground only: the _fg columns of
-- Statspack 11.2 and later) at the two Statspack snapshots; time_waited_micro* are microseconds.
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT e.snap_id, e.instance_number, e.event AS event_name, n.wait_class,
       e.total_waits, e.time_waited_micro,
       e.total_waits_fg, e.time_waited_micro_fg
  FROM stats$system_event e
  LEFT JOIN v$event_name n ON n.event_id = e.event_id
 WHERE e.dbid = :dbid
   AND e.instance_number = :instance_number
   AND e.snap_id IN (:begin_snap, :end_snap)
 ORDER BY event_name, e.snap_id
