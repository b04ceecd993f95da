-- Take a Statspack snapshot now (no Diagnostics Pack needed; Statspack must be installed
-- with spcreate.sql) and return its id.
-- Bind variables: :snap_id (out)
BEGIN
  :snap_id := statspack.snap;
END;
