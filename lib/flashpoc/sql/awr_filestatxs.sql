-- DBA_HIST_FILESTATXS per data file I/O counters at the two snapshots
-- (readtim, writetim, singleblkrdtim in centiseconds; wait_count and time, in centiseconds, are
-- the file's buffer waits: the AWR report's File IO Stats "Buffer Waits" and "Av Buf Wt(ms)").
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, instance_number, file# AS file_no, filename, tsname, block_size,
       phyrds, phywrts, singleblkrds, readtim, writetim, singleblkrdtim,
       phyblkrd, phyblkwrt, wait_count, time
  FROM dba_hist_filestatxs
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY file_no, snap_id
