-- The AWR report (text) of one instance between two snapshots, as awrrpt.sql prints it, one
-- line per row (needs the Diagnostics Pack and EXECUTE on DBMS_WORKLOAD_REPOSITORY).
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT output
  FROM TABLE(DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_TEXT(:dbid, :instance_number, :begin_snap, :end_snap))
