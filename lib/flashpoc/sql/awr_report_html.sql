-- The AWR report (HTML) of one instance between two snapshots, as awrrpt.sql writes it with
-- report_type html, one line per row (needs the Diagnostics Pack and EXECUTE on
-- DBMS_WORKLOAD_REPOSITORY).
-- Bind variables: :dbid, :instance_number, :begin_snap, :end_snap
SELECT output
  FROM TABLE(DBMS_WORKLOAD_REPOSITORY.AWR_REPORT_HTML(:dbid, :instance_number, :begin_snap, :end_snap))
