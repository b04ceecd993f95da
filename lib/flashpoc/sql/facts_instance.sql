-- One row: this instance's version, the number of open instances (RAC when > 1),
-- whether the database is a CDB and the container this session is in.
-- No bind variables.
SELECT i.version                                       AS version,
       i.instance_name                                 AS instance_name,
       i.instance_number                               AS instance_number,
       i.host_name                                     AS host_name,
       (SELECT COUNT(*) FROM gv$instance)              AS instance_count,
       d.dbid                                          AS dbid,
       d.name                                          AS db_name,
       d.cdb                                           AS cdb,
       SYS_CONTEXT('USERENV', 'CON_NAME')              AS con_name
  FROM v$instance i
 CROSS JOIN v$database d
