-- STATS$TEMPSTATXS per temporary file I/O counters at the two Statspack snapshots, in the
-- columns of STATS$FILESTATXS (times in centiseconds; file number and block size left empty).
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT snap_id, instance_number, CAST(NULL AS NUMBER) AS file_no, filename, tsname,
       CAST(NULL AS NUMBER) AS block_size,
       phyrds, phywrts, singleblkrds, readtim, writetim, singleblkrdtim,
       phyblkrd, phyblkwrt, wait_count, time
  FROM stats$tempstatxs
 WHERE dbid = :dbid
   AND instance_number = :instance_number
   AND snap_id IN (:begin_snap, :end_snap)
 ORDER BY filename, snap_id
