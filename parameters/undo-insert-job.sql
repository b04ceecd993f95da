REM Seed method: the DBA's insert job that found UNDO to be the hot spot, as the seed ran it: each session
REM inserts 30,000 rows of about 1,000 bytes into its own table, which carries a composite index, one row
REM per INSERT, committing every 1,000 rows (30 commits); 20 sessions at once (dba-job-undo.yaml).
REM &session_name (S0001, S0002, ...) and &session (1, 2, ...) are filled in per session by flashpoc, so
REM 20 sessions create 20 tables instead of failing with ORA-00955.
REM Edit: nothing to run the seed's job; a job of your own replaces this file (sql_workload.script).
SET ECHO OFF
CREATE TABLE load_&session_name (
  session_no NUMBER(6)      NOT NULL,
  row_no     NUMBER(10)     NOT NULL,
  created    DATE           NOT NULL,
  status     VARCHAR2(10)   NOT NULL,
  pad        VARCHAR2(960)  NOT NULL
);
CREATE INDEX load_&session_name._ix ON load_&session_name (session_no, row_no, created);
BEGIN
  FOR i IN 1 .. 30000 LOOP
    INSERT INTO load_&session_name (session_no, row_no, created, status, pad)
      VALUES (&session, i, SYSDATE, 'NEW', RPAD('x', 960, 'x'));
    IF MOD(i, 1000) = 0 THEN
      COMMIT;
    END IF;
  END LOOP;
END;
/
REM the table goes, so that the next run (another label) creates it again
DROP TABLE load_&session_name PURGE;
EXIT
