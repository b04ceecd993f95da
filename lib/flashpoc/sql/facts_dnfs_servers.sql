-- The NFS servers this instance talks to through Direct NFS (no rows: Direct NFS is not in use,
-- or no file on NFS has been opened yet), with the NFS version and the transfer sizes.
-- No bind variables.
SELECT svrname, dirname, nfsversion, wtmax, rtmax
  FROM v$dnfs_servers
 ORDER BY svrname, dirname
