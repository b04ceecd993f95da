-- DBA_HIST_TEMPSTATXS per temporary file I/O counters at the two snapshots, in the columns of
-- DBA_HIST_FILESTATXS (times in centiseconds): the temp files' rows of the AWR report's File IO Stats.
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, instance_number, file# AS file_no, filename, tsname, block_size,
       phyrds, phywrts, singleblkrds, readtim, writetim, singleblkrdtim,
       phyblkrd, phyblkwrt, wait_count, time
  FROM dba_hist_tempstatxs
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY file_no, snap_id
