-- The last I/O calibration the database recorded (DBA_RSRC_IO_CALIBRATE holds one row, or none).
-- No bind variables.
SELECT start_time, end_time, max_iops, max_mbps, max_pmbps, latency, num_physical_disks
  FROM dba_rsrc_io_calibrate
