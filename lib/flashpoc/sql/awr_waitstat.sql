-- DBA_HIST_WAITSTAT buffer waits by block class (time in centiseconds) at the two snapshots:
-- the AWR report's "Buffer Wait Statistics" (undo header and undo block waits point at UNDO).
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, instance_number, class, wait_count, time
  FROM dba_hist_waitstat
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY class, snap_id
