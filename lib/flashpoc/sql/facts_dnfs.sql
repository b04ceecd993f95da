-- One row: how many Direct NFS servers this instance talks to (0: Direct NFS not in use).
-- No bind variables.
SELECT COUNT(*) AS dnfs_server_count
  FROM v$dnfs_servers
