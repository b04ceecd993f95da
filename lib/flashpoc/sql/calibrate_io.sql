-- Runs Oracle's I/O calibration (random reads of db_block_size and 1 MiB sequential reads over
-- the data files; it loads the array for minutes) and returns what it found.
-- Bind variables: :num_physical_disks, :max_latency (ms) in; :max_iops, :max_mbps, :actual_latency out.
BEGIN
  DBMS_RESOURCE_MANAGER.CALIBRATE_IO(num_physical_disks => :num_physical_disks,
                                     max_latency        => :max_latency,
                                     max_iops           => :max_iops,
                                     max_mbps           => :max_mbps,
                                     actual_latency     => :actual_latency);
END;
