CREATE TABLE load_&session_name (id NUMBER);
INSERT INTO load_&session_name SELECT level FROM dual CONNECT BY level <= 1000;
COMMIT;
