-- The instance parameters a storage POC report shows, one row per parameter.
-- No bind variables (the parameter names are fixed).
SELECT name, value, isdefault
  FROM v$parameter
 WHERE name IN ('sga_target', 'db_cache_size', 'db_writer_processes',
                'filesystemio_options', 'disk_asynch_io',
                'control_management_pack_access', 'log_buffer', 'sga_max_size',
                'awr_pdb_autoflush_enabled')
 ORDER BY name
