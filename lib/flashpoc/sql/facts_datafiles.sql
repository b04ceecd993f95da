-- The database's data files and temp files by name: those outside ASM (not '+DISKGROUP/...') are
-- files of a file system, whose mounts are the database's storage path.
-- No bind variables.
SELECT name FROM v$datafile
UNION
SELECT name FROM v$tempfile
 ORDER BY 1
