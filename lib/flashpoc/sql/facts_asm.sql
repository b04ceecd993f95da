-- ASM disk groups visible to this instance (no rows without ASM).
-- No bind variables.
SELECT name, state, type, total_mb, free_mb
  FROM v$asm_diskgroup
 ORDER BY name
