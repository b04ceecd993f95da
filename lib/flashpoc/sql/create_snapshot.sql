-- Take an AWR snapshot now (needs the Diagnostics Pack) and return its id.
-- Bind variables: :snap_id (out)
BEGIN
  :snap_id := DBMS_WORKLOAD_REPOSITORY.CREATE_SNAPSHOT();
END;
