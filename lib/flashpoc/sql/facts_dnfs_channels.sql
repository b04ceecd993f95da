-- The Direct NFS channels (network paths) of this instance, one row per channel: the server,
-- the server address (path) and the local address used (local); several paths per server are
-- what oranfstab's path:/local: lines give.
-- No bind variables.
SELECT svrname, path, local, COUNT(*) AS processes
  FROM v$dnfs_channels
 GROUP BY svrname, path, local
 ORDER BY svrname, path, local
