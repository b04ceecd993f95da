-- STATS$FILESTATXS per data file I/O counters at the two Statspack snapshots
-- (readtim, writetim, singleblkrdtim in centiseconds; wait_count and time, in centiseconds, are
-- the file's buffer waits). Files are named by filename; the file number and block size columns
-- of the AWR rows are left empty.
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, instance_number, CAST(NULL AS NUMBER) AS file_no, filename, tsname,
       CAST(NULL AS NUMBER) AS block_size,
       phyrds, phywrts, singleblkrds, readtim, writetim, singleblkrdtim,
       phyblkrd, phyblkwrt, wait_count, time
  FROM stats$filestatxs
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY filename, snap_id
