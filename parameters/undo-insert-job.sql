REM The seed's DBA job: each session fills its own table, committing every 1,000 rows.
REM &session_name (S0001, S0002, ...) and &session (1, 2, ...) are filled in per session
REM by flashpoc, so 20 sessions create 20 tables instead of failing with ORA-00955.
SET ECHO OFF
CREATE TABLE load_&session_name (id NUMBER, created DATE, pad VARCHAR2(200));
BEGIN
  FOR i IN 1 .. 100 LOOP
    INSERT INTO load_&session_name (id, created, pad)
      SELECT (&session * 1000000) + (i - 1) * 1000 + level, SYSDATE, RPAD('x', 200, 'x')
        FROM dual CONNECT BY level <= 1000;
    COMMIT;
  END LOOP;
END;
/
DROP TABLE load_&session_name PURGE;
EXIT
