-- The ASM disks of the disk groups this instance uses (no rows without ASM): the disk group,
-- the disk's path and size, its failure group and states.
-- No bind variables.
SELECT g.name        AS diskgroup,
       d.name        AS name,
       d.path        AS path,
       d.total_mb    AS total_mb,
       d.failgroup   AS failgroup,
       d.mode_status AS mode_status,
       d.state       AS state
  FROM v$asm_disk d
  JOIN v$asm_diskgroup g ON g.group_number = d.group_number
 ORDER BY g.name, d.path
