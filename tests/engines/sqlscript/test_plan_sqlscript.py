"""SQL*Plus script splitting: exact statements, SQL*Plus commands dropped or refused, errors."""

from __future__ import annotations

import dataclasses

import pytest

from flashpoc.core.errors import ParameterError
from flashpoc.jobs.sqlscript.plan import (
    SkippedCommand, SqlScript, Statement, scan_sql_script, script_summary, split_sql_script,
)


def S(text: str, line: int) -> Statement:
    return Statement(text, "sql", line)


def P(text: str, line: int) -> Statement:
    return Statement(text, "plsql", line)


def refused(text: str, *fragments: str, source: str = "load.sql") -> str:
    """Split ``text`` expecting a ParameterError whose message holds every fragment."""
    with pytest.raises(ParameterError) as info:
        split_sql_script(text, source=source)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


# --------------------------------------------------------------------------------------
# The seed case: 20 sessions each run the same DBA insert script

SEED_LOOP = """\
REM poc_load.sql - run by 20 concurrent sessions (flashpoc seed)
REM loads 100000 rows per session, committing every 1000 rows
SET ECHO OFF
SET FEEDBACK OFF
SET SERVEROUTPUT ON SIZE UNLIMITED
SET TIMING ON
WHENEVER SQLERROR EXIT SQL.SQLCODE ROLLBACK
PROMPT Loading 100000 rows into POC_LOAD ...

DECLARE
  c_rows   CONSTANT PLS_INTEGER := 100000;
  c_batch  CONSTANT PLS_INTEGER := 1000;   -- commit every 1000 rows; not 10000
  v_sid    NUMBER := SYS_CONTEXT('USERENV', 'SID');
BEGIN
  FOR i IN 1 .. c_rows LOOP
    INSERT /*+ NO_GATHER_OPTIMIZER_STATISTICS */ INTO poc_load (id, sid, created, payload)
    VALUES (poc_load_seq.NEXTVAL, v_sid, SYSTIMESTAMP, RPAD('x', 200, 'x'));
    IF MOD(i, c_batch) = 0 THEN
      COMMIT;
    END IF;
  END LOOP;
  COMMIT;
END;
/

SELECT COUNT(*) FROM poc_load WHERE sid = SYS_CONTEXT('USERENV', 'SID');
EXIT
"""

SEED_BLOCK = """\
DECLARE
  c_rows   CONSTANT PLS_INTEGER := 100000;
  c_batch  CONSTANT PLS_INTEGER := 1000;   -- commit every 1000 rows; not 10000
  v_sid    NUMBER := SYS_CONTEXT('USERENV', 'SID');
BEGIN
  FOR i IN 1 .. c_rows LOOP
    INSERT /*+ NO_GATHER_OPTIMIZER_STATISTICS */ INTO poc_load (id, sid, created, payload)
    VALUES (poc_load_seq.NEXTVAL, v_sid, SYSTIMESTAMP, RPAD('x', 200, 'x'));
    IF MOD(i, c_batch) = 0 THEN
      COMMIT;
    END IF;
  END LOOP;
  COMMIT;
END;"""


def test_seed_loop_script():
    assert split_sql_script(SEED_LOOP, source="poc_load.sql") == [
        P(SEED_BLOCK, 10),
        S("SELECT COUNT(*) FROM poc_load WHERE sid = SYS_CONTEXT('USERENV', 'SID')", 26),
    ]


def test_seed_loop_script_scan_and_summary():
    script = scan_sql_script(SEED_LOOP, source="poc_load.sql")
    assert isinstance(script, SqlScript)
    assert script.skipped == (
        SkippedCommand(3, "SET", "SET ECHO OFF"),
        SkippedCommand(4, "SET", "SET FEEDBACK OFF"),
        SkippedCommand(5, "SET", "SET SERVEROUTPUT ON SIZE UNLIMITED"),
        SkippedCommand(6, "SET", "SET TIMING ON"),
        SkippedCommand(7, "WHENEVER", "WHENEVER SQLERROR EXIT SQL.SQLCODE ROLLBACK"),
        SkippedCommand(8, "PROMPT", "PROMPT Loading 100000 rows into POC_LOAD ..."),
        SkippedCommand(27, "EXIT", "EXIT"),
    )
    assert script_summary(script.statements) == {
        "statements": 2, "sql": 1, "plsql": 1, "verbs": {"DECLARE": 1, "SELECT": 1},
    }
    assert script_summary(script.statements, skipped=script.skipped) == {
        "statements": 2, "sql": 1, "plsql": 1, "verbs": {"DECLARE": 1, "SELECT": 1},
        "skipped": {"SET": 4, "WHENEVER": 1, "PROMPT": 1, "EXIT": 1},
    }


def test_seed_plain_inserts_with_commit():
    text = (
        "-- 20 sessions x this script\n"
        "INSERT INTO poc_load (id, payload) VALUES (poc_load_seq.NEXTVAL, RPAD('a', 200, 'a'));\n"
        "INSERT INTO poc_load (id, payload)\n"
        "  VALUES (poc_load_seq.NEXTVAL, RPAD('b', 200, 'b'));\n"
        "INSERT INTO poc_load (id, payload)\n"
        "SELECT poc_load_seq.NEXTVAL, RPAD('c', 200, 'c')\n"
        "  FROM dual CONNECT BY LEVEL <= 1000;\n"
        "COMMIT;\n"
    )
    statements = split_sql_script(text)
    assert statements == [
        S("INSERT INTO poc_load (id, payload) VALUES (poc_load_seq.NEXTVAL, RPAD('a', 200, 'a'))", 2),
        S("INSERT INTO poc_load (id, payload)\n  VALUES (poc_load_seq.NEXTVAL, RPAD('b', 200, 'b'))", 3),
        S("INSERT INTO poc_load (id, payload)\nSELECT poc_load_seq.NEXTVAL, RPAD('c', 200, 'c')\n"
          "  FROM dual CONNECT BY LEVEL <= 1000", 5),
        S("COMMIT", 8),
    ]
    assert script_summary(statements) == {
        "statements": 4, "sql": 4, "plsql": 0, "verbs": {"INSERT": 3, "COMMIT": 1},
    }


def test_summary_example_from_brief():
    statements = split_sql_script(
        "INSERT INTO t VALUES (1);\nCOMMIT;\nBEGIN\n  NULL;\nEND;\n/\n")
    assert statements == [S("INSERT INTO t VALUES (1)", 1), S("COMMIT", 2),
                          P("BEGIN\n  NULL;\nEND;", 3)]
    assert script_summary(statements) == {
        "statements": 3, "sql": 2, "plsql": 1, "verbs": {"INSERT": 1, "COMMIT": 1, "BEGIN": 1},
    }


def test_summary_of_nothing():
    assert script_summary([]) == {"statements": 0, "sql": 0, "plsql": 0, "verbs": {}}
    assert script_summary([], skipped=()) == {
        "statements": 0, "sql": 0, "plsql": 0, "verbs": {}, "skipped": {}}


# --------------------------------------------------------------------------------------
# PL/SQL blocks


def test_plsql_loop_block_with_slash():
    text = ("BEGIN\n"
            "  FOR i IN 1 .. 100000 LOOP\n"
            "    INSERT INTO t (id) VALUES (i);\n"
            "    IF MOD(i, 1000) = 0 THEN COMMIT; END IF;\n"
            "  END LOOP;\n"
            "  COMMIT;\n"
            "END;\n"
            "  /  \n"
            "COMMIT;\n")
    assert split_sql_script(text) == [
        P("BEGIN\n  FOR i IN 1 .. 100000 LOOP\n    INSERT INTO t (id) VALUES (i);\n"
          "    IF MOD(i, 1000) = 0 THEN COMMIT; END IF;\n  END LOOP;\n  COMMIT;\nEND;", 1),
        S("COMMIT", 9),
    ]


def test_create_or_replace_procedure_with_inner_semicolons():
    text = ("CREATE OR REPLACE PROCEDURE poc_insert (p_rows IN PLS_INTEGER) AS\n"
            "BEGIN\n"
            "  FOR i IN 1 .. p_rows LOOP\n"
            "    INSERT INTO t VALUES (i);\n"
            "  END LOOP;\n"
            "  COMMIT;\n"
            "END poc_insert;\n"
            "/\n"
            "EXEC poc_insert(1000);\n"
            "execute poc_insert(p_rows => 10) -- comment after the call\n")
    assert split_sql_script(text) == [
        P("CREATE OR REPLACE PROCEDURE poc_insert (p_rows IN PLS_INTEGER) AS\nBEGIN\n"
          "  FOR i IN 1 .. p_rows LOOP\n    INSERT INTO t VALUES (i);\n  END LOOP;\n"
          "  COMMIT;\nEND poc_insert;", 1),
        P("BEGIN poc_insert(1000); END;", 9),
        P("BEGIN poc_insert(p_rows => 10); END;", 10),
    ]


@pytest.mark.parametrize("head", [
    "CREATE FUNCTION f RETURN NUMBER AS",
    "create or replace function f return number as",
    "CREATE OR REPLACE EDITIONABLE FUNCTION f RETURN NUMBER AS",
    "CREATE OR REPLACE NONEDITIONABLE FUNCTION f RETURN NUMBER AS",
    "CREATE OR REPLACE\n  FUNCTION f RETURN NUMBER AS",
])
def test_create_function_variants_are_blocks(head):
    text = f"{head}\nBEGIN\n  RETURN 1;\nEND;\n/\n"
    assert split_sql_script(text) == [P(f"{head}\nBEGIN\n  RETURN 1;\nEND;", 1)]


def test_package_trigger_type_library_blocks():
    text = ("CREATE OR REPLACE PACKAGE poc AS\n  PROCEDURE run;\nEND poc;\n/\n"
            "CREATE OR REPLACE PACKAGE BODY poc AS\n  PROCEDURE run IS BEGIN NULL; END;\nEND poc;\n/\n"
            "CREATE OR REPLACE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW\n"
            "BEGIN :new.created := SYSDATE; END;\n/\n"
            "CREATE TYPE pt AS OBJECT (a NUMBER, b VARCHAR2(10));\n/\n"
            "CREATE OR REPLACE TYPE BODY pt AS\n  MEMBER FUNCTION f RETURN NUMBER IS BEGIN RETURN a; END;\nEND;\n/\n"
            "CREATE LIBRARY poclib AS '/opt/lib/poc.so';\n/\n")
    assert split_sql_script(text) == [
        P("CREATE OR REPLACE PACKAGE poc AS\n  PROCEDURE run;\nEND poc;", 1),
        P("CREATE OR REPLACE PACKAGE BODY poc AS\n  PROCEDURE run IS BEGIN NULL; END;\nEND poc;", 5),
        P("CREATE OR REPLACE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW\n"
          "BEGIN :new.created := SYSDATE; END;", 9),
        P("CREATE TYPE pt AS OBJECT (a NUMBER, b VARCHAR2(10));", 12),
        P("CREATE OR REPLACE TYPE BODY pt AS\n"
          "  MEMBER FUNCTION f RETURN NUMBER IS BEGIN RETURN a; END;\nEND;", 14),
        P("CREATE LIBRARY poclib AS '/opt/lib/poc.so';", 18),
    ]


def test_ddl_is_allowed_and_sql():
    text = ("CREATE TABLE poc_load (id NUMBER PRIMARY KEY, payload VARCHAR2(200));\n"
            "CREATE OR REPLACE VIEW v AS SELECT * FROM poc_load;\n"
            "CREATE SEQUENCE poc_load_seq CACHE 10000;\n"
            "TRUNCATE TABLE poc_load;\n"
            "DROP TABLE poc_old PURGE;\n")
    assert [(s.kind, s.line) for s in split_sql_script(text)] == [
        ("sql", 1), ("sql", 2), ("sql", 3), ("sql", 4), ("sql", 5)]
    assert split_sql_script(text)[1].text == "CREATE OR REPLACE VIEW v AS SELECT * FROM poc_load"


def test_with_function_query_ends_at_slash():
    text = ("WITH FUNCTION twice(n NUMBER) RETURN NUMBER IS BEGIN RETURN 2 * n; END;\n"
            "SELECT twice(21) FROM dual;\n/\n")
    assert split_sql_script(text) == [
        S("WITH FUNCTION twice(n NUMBER) RETURN NUMBER IS BEGIN RETURN 2 * n; END;\n"
          "SELECT twice(21) FROM dual", 1)]


def test_block_keeps_inner_comments_and_blank_lines_but_not_trailing_comment():
    text = ("-- leading comment, dropped\n"
            "\n"
            "DECLARE\n"
            "  n NUMBER; -- inner\n"
            "\n"
            "  /* block ; comment */\n"
            "BEGIN\n"
            "  n := 1;\n"
            "END; -- end of block\n"
            "/\n")
    assert split_sql_script(text) == [
        P("DECLARE\n  n NUMBER; -- inner\n\n  /* block ; comment */\nBEGIN\n  n := 1;\nEND;", 3)]


def test_unterminated_block_is_refused():
    text = "INSERT INTO t VALUES (1);\nBEGIN\n  INSERT INTO t VALUES (2);\nEND;\nCOMMIT;\n"
    message = refused(text, "load.sql line 2", "PL/SQL block", '"BEGIN"', "'/'")
    assert "not terminated" in message


def test_unterminated_create_procedure_is_refused():
    refused("CREATE OR REPLACE PROCEDURE p AS\nBEGIN\n  NULL;\nEND;\n",
            "load.sql line 1", '"CREATE OR REPLACE PROCEDURE p AS"', "not terminated")


def test_unterminated_sql_statement_is_refused():
    refused("COMMIT;\nSELECT *\n  FROM t\n", "load.sql line 2", '"SELECT *"',
            "no terminator", "';'")


# --------------------------------------------------------------------------------------
# Literals and comments


def test_strings_with_semicolons_and_dashes():
    text = ("INSERT INTO t VALUES ('a;b', 'c -- not a comment', 'it''s; fine');\n"
            "INSERT INTO t VALUES ('/* not a comment ;', N'nchar;');\n"
            "UPDATE t SET v = 'x;' WHERE id = 1; -- trailing comment; dropped\n")
    assert split_sql_script(text) == [
        S("INSERT INTO t VALUES ('a;b', 'c -- not a comment', 'it''s; fine')", 1),
        S("INSERT INTO t VALUES ('/* not a comment ;', N'nchar;')", 2),
        S("UPDATE t SET v = 'x;' WHERE id = 1", 3),
    ]


@pytest.mark.parametrize("literal", [
    "q'[a;b'c]'", "q'{a;b'c}'", "q'(a;b'c)'", "q'<a;b'c>'", "q'!a;b'c!'", "Q'#a;--b#'",
    "nq'[x;y]'", "q'[ends with ;]'",
])
def test_q_quotes(literal):
    text = f"INSERT INTO t VALUES ({literal});\nCOMMIT;\n"
    assert split_sql_script(text) == [S(f"INSERT INTO t VALUES ({literal})", 1), S("COMMIT", 2)]


def test_multiline_literals():
    text = ("INSERT INTO t VALUES ('line one;\n"
            "/\n"
            "line three -- still text;');\n"
            "INSERT INTO t VALUES (q'[a;\n"
            "b]');\n")
    assert split_sql_script(text) == [
        S("INSERT INTO t VALUES ('line one;\n/\nline three -- still text;')", 1),
        S("INSERT INTO t VALUES (q'[a;\nb]')", 4),
    ]


def test_block_comments_with_semicolons():
    text = ("/* header; several lines;\n"
            "   still the header; */\n"
            "SELECT /* inline; */ 1\n"
            "  /* multi;\n"
            "     line; */\n"
            "  FROM dual;\n"
            "INSERT /*+ APPEND */ INTO t SELECT * FROM s;\n")
    assert split_sql_script(text) == [
        S("SELECT /* inline; */ 1\n  /* multi;\n     line; */\n  FROM dual", 3),
        S("INSERT /*+ APPEND */ INTO t SELECT * FROM s", 7),
    ]


def test_line_comment_inside_statement_is_kept():
    text = "SELECT a, -- first; column\n       b\n  FROM t;\n"
    assert split_sql_script(text) == [S("SELECT a, -- first; column\n       b\n  FROM t", 1)]


def test_only_comments_yields_no_statement():
    refused("-- nothing here;\n/* nor; here */\nREM nor here;\n\n", "no SQL statement in load.sql")


def test_unterminated_literal_and_comment():
    refused("COMMIT;\nINSERT INTO t VALUES ('abc);\n", "load.sql line 2",
            "unterminated string literal", "INSERT INTO t VALUES ('abc);")
    refused("COMMIT;\n/* never closed\n", "load.sql line 2", "unterminated /* comment")
    refused("INSERT INTO t VALUES (q'[abc);\n", "line 1", "unterminated string literal")
    refused("INSERT INTO t VALUES (q' x');\n", "line 1", "q-quoted literal without a delimiter")


# --------------------------------------------------------------------------------------
# Terminators, line ends, lines


def test_slash_terminates_plain_sql():
    text = "SELECT 1\n  FROM dual\n/\nUPDATE t SET a = 1\n /\nCOMMIT\n/\n"
    assert split_sql_script(text) == [
        S("SELECT 1\n  FROM dual", 1), S("UPDATE t SET a = 1", 4), S("COMMIT", 6)]


def test_semicolon_on_its_own_line():
    assert split_sql_script("SELECT 1 FROM dual\n;\n") == [S("SELECT 1 FROM dual", 1)]


def test_division_is_not_a_terminator():
    text = "SELECT a\n     / b AS ratio\n  FROM t;\n"
    assert split_sql_script(text) == [S("SELECT a\n     / b AS ratio\n  FROM t", 1)]


def test_crlf_line_ends():
    text = ("SET ECHO OFF\r\n"
            "INSERT INTO t VALUES (1);\r\n"
            "BEGIN\r\n"
            "  NULL;\r\n"
            "END;\r\n"
            "/\r\n"
            "COMMIT;\r\n")
    assert split_sql_script(text) == [
        S("INSERT INTO t VALUES (1)", 2), P("BEGIN\n  NULL;\nEND;", 3), S("COMMIT", 7)]


def test_bom_cr_and_missing_final_newline():
    assert split_sql_script("\ufeffINSERT INTO t VALUES (1);\rCOMMIT;") == [
        S("INSERT INTO t VALUES (1)", 1), S("COMMIT", 2)]


def test_blank_lines_inside_sql_statement_are_kept():
    assert split_sql_script("SELECT a\n\n  FROM t;\n") == [S("SELECT a\n\n  FROM t", 1)]


def test_set_transaction_is_sql_not_a_sqlplus_set():
    text = "SET TRANSACTION READ ONLY;\nset role all;\nSET CONSTRAINTS ALL DEFERRED;\n"
    assert split_sql_script(text) == [
        S("SET TRANSACTION READ ONLY", 1), S("set role all", 2),
        S("SET CONSTRAINTS ALL DEFERRED", 3)]


def test_sqlplus_keywords_inside_a_statement_are_sql():
    text = "UPDATE t\nSET v = 1\nWHERE id IN (SELECT id FROM s);\n"
    assert split_sql_script(text) == [S("UPDATE t\nSET v = 1\nWHERE id IN (SELECT id FROM s)", 1)]


def test_two_statements_on_one_line_are_refused():
    refused("INSERT INTO t VALUES (1); COMMIT;\n", "load.sql line 1",
            "more than one statement", '"INSERT INTO t VALUES (1); COMMIT;"')


def test_slash_after_semicolon_would_run_twice():
    refused("INSERT INTO t VALUES (1);\n/\n", "load.sql line 2", "second time")
    refused("/\nCOMMIT;\n", "load.sql line 1", "no statement before it")
    refused("BEGIN NULL; END;\n/\n/\n", "load.sql line 3", "second time")


def test_lone_semicolon_and_period_are_refused():
    refused("COMMIT;\n;\n", "load.sql line 2", "';' with no statement")
    refused("SELECT 1 FROM dual\n.\n", "load.sql line 2", "'.'")


# --------------------------------------------------------------------------------------
# SQL*Plus commands


def test_sqlplus_display_commands_are_dropped():
    text = ("set echo on\n"
            "SET PAGESIZE 0 LINESIZE 200 -\n"
            "    TRIMSPOOL ON\n"
            "PRO Starting;\n"
            "PROMPT\n"
            "SPOOL /tmp/poc.log\n"
            "COL name FORMAT a30\n"
            "COLUMN v HEADING 'Value;'\n"
            "TTITLE 'x'\n"
            "BTITLE OFF\n"
            "BREAK ON name\n"
            "COMPUTE SUM OF v ON name\n"
            "CLEAR BREAKS\n"
            "TIMING START load\n"
            "SHOW USER\n"
            "PAUSE press enter\n"
            "DESC t\n"
            "REMARK a remark; with a semicolon\n"
            "INSERT INTO t VALUES (1);\n"
            "SHO ERRORS\n"
            "SPOOL OFF\n"
            "QUIT\n"
            "INSERT INTO t VALUES (2);\n")
    script = scan_sql_script(text)
    assert script.statements == (S("INSERT INTO t VALUES (1)", 19),)
    assert [(c.line, c.command) for c in script.skipped] == [
        (1, "SET"), (2, "SET"), (4, "PROMPT"), (5, "PROMPT"), (6, "SPOOL"), (7, "COLUMN"),
        (8, "COLUMN"), (9, "TTITLE"), (10, "BTITLE"), (11, "BREAK"), (12, "COMPUTE"),
        (13, "CLEAR"), (14, "TIMING"), (15, "SHOW"), (16, "PAUSE"), (17, "DESCRIBE"),
        (20, "SHOW"), (21, "SPOOL"), (22, "QUIT")]


def test_exit_ends_the_script():
    text = "INSERT INTO t VALUES (1);\nCOMMIT;\nexit;\nDROP TABLE t;\n"
    assert split_sql_script(text) == [S("INSERT INTO t VALUES (1)", 1), S("COMMIT", 2)]


def test_only_sqlplus_commands_is_no_statement():
    refused("SET ECHO ON\nPROMPT hello\nEXIT\n", "no SQL statement in load.sql")


def test_prompt_continuation_swallowing_a_statement_is_refused():
    message = refused("PROMPT ------\nINSERT INTO t VALUES (1);\n", "load.sql line 1",
                      "line 2", "trailing '-'")
    assert '"PROMPT ------"' in message
    # continuing onto a blank line or another display command is harmless
    assert split_sql_script("PROMPT ----\n\nPROMPT ----\nPROMPT x\nCOMMIT;\n") == [S("COMMIT", 5)]


@pytest.mark.parametrize("line,fragment", [
    ("@other.sql", "inline the included script"),
    ("@@sub/other.sql", "inline the included script"),
    ("START other.sql", "inline the included script"),
    ("sta other", "inline the included script"),
    ("CONNECT", "flashpoc opens the sessions itself"),
    ("DISCONNECT", "flashpoc opens the sessions itself"),
    ("HOST ls -l", "flashpoc runs SQL only"),
    ("!ls", "flashpoc runs SQL only"),
    ("$dir", "flashpoc runs SQL only"),
    ("DEFINE rows = 1000", "replace each &var by its value"),
    ("UNDEFINE rows", "replace each &var by its value"),
    ("ACCEPT rows PROMPT 'Rows: '", "replace each &var by its value"),
    ("VARIABLE n NUMBER", "PL/SQL local variable"),
    ("PRINT n", "PL/SQL local variable"),
    ("RUN", "write each statement out in full"),
    ("GET other.sql", "write each statement out in full"),
    ("STARTUP", "remove the line"),
    ("SET AUTOCOMMIT ON", "COMMIT statements"),
    ("SET SQLTERMINATOR '#'", "how statements are cut"),
])
def test_commands_changing_what_runs_are_refused(line, fragment):
    text = f"INSERT INTO t VALUES (1);\n\n{line}\nCOMMIT;\n"
    message = refused(text, "load.sql line 3", fragment)
    assert message.startswith("load.sql line 3: ")


def test_include_message_names_the_script():
    message = refused("COMMIT;\n@other.sql\n", "load.sql line 2", '"@other.sql"',
                      "inline the included script")
    assert message == ('load.sql line 2: @ ("@other.sql") runs another script: inline the '
                       "included script (paste its statements here)")


def test_connect_message_hides_the_password():
    message = refused("CONNECT scott/Tiger$Secret@//db:1521/poc\nCOMMIT;\n",
                      "load.sql line 1", "CONNECT")
    assert "Tiger" not in message and "scott" not in message
    message = refused("conn / as sysdba\n", "load.sql line 1")
    assert "sysdba" not in message
    message = refused("DEFINE pw = Tiger$Secret\n", "load.sql line 1", "DEFINE")
    assert "Tiger" not in message


def test_substitution_variables_are_refused_with_their_line():
    text = ("INSERT INTO t VALUES (1);\n"
            "INSERT INTO t\n"
            "  SELECT level FROM dual CONNECT BY level <= &rows;\n")
    refused(text, "load.sql line 3", "&rows", "replace &rows by its value")
    refused("BEGIN\n  FOR i IN 1 .. &&n LOOP NULL; END LOOP;\nEND;\n/\n", "line 2", "&&n")
    refused("INSERT INTO t VALUES (&1);\n", "line 1", "replace &1 by its value")
    refused("EXEC p(&n)\n", "line 1", "&n")


def test_session_variables_are_filled_per_session():
    """&session and &session_name are flashpoc's own: one script in N sessions creates N
    tables instead of one table N times (ORA-00955), as SQL*Plus would substitute them (&&,
    the '.' ending a name, any case, literals too); any other &var is still refused."""
    text = ("CREATE TABLE t_&session_name (id NUMBER, who VARCHAR2(30));\n"
            "INSERT INTO t_&&Session_Name. VALUES (&session, 'session &session_name of R&D');\n"
            "EXEC dbms_stats.gather_table_stats(user, 'T_&session_name')\n"
            "DROP TABLE t_&session_name PURGE;\n")
    statements = split_sql_script(text)
    assert [s.for_session(7).text for s in statements] == [
        "CREATE TABLE t_S0007 (id NUMBER, who VARCHAR2(30))",
        "INSERT INTO t_S0007 VALUES (7, 'session S0007 of R&D')",
        "BEGIN dbms_stats.gather_table_stats(user, 'T_S0007'); END;",
        "DROP TABLE t_S0007 PURGE"]
    assert statements[0].for_session(20).text == "CREATE TABLE t_S0020 (id NUMBER, who VARCHAR2(30))"
    # the statement as parsed keeps the variables; a statement without any is itself
    assert statements[0].text == "CREATE TABLE t_&session_name (id NUMBER, who VARCHAR2(30))"
    plain = split_sql_script("COMMIT;\n")[0]
    assert plain.for_session(3) is plain
    # another define character moves them; SET DEFINE OFF leaves them as text
    assert split_sql_script("SET DEFINE ^\nINSERT INTO t VALUES (^session, '&session');\n")[0] \
        .for_session(2).text == "INSERT INTO t VALUES (2, '&session')"
    assert split_sql_script("SET DEFINE OFF\nINSERT INTO t VALUES ('&session');\n")[0] \
        .for_session(2).text == "INSERT INTO t VALUES ('&session')"
    # a longer name is not ours: refused, naming it and the two flashpoc fills
    refused("CREATE TABLE t_&sessions (id NUMBER);\n", "load.sql line 1", "&sessions",
            "flashpoc fills only &session and &session_name")
    refused("INSERT INTO t_&session_name VALUES (&rows);\n", "line 1", "&rows")


def test_ampersand_in_literals_and_comments_is_text():
    text = ("INSERT INTO t VALUES ('R&D', q'[A&B]'); -- Tom & Jerry\n"
            "/* &not_a_var */ COMMIT;\n")
    assert split_sql_script(text) == [
        S("INSERT INTO t VALUES ('R&D', q'[A&B]')", 1), S("COMMIT", 2)]


def test_set_define_off_and_other_define_char():
    text = "SET DEFINE OFF\nSELECT 1 FROM dual WHERE 'a' <> '&x' AND 1 = 1 & 1;\n"
    assert split_sql_script(text) == [
        S("SELECT 1 FROM dual WHERE 'a' <> '&x' AND 1 = 1 & 1", 2)]
    refused("SET DEFINE OFF\nSET DEFINE ON\nSELECT &x FROM dual;\n", "line 3", "&x")
    refused("SET DEFINE '^'\nSELECT ^x, 'a&b' FROM dual;\n", "line 2", "^x")
    assert split_sql_script("set scan off\nSELECT &x FROM dual;\n") == [
        S("SELECT &x FROM dual", 2)]


def test_exec_continuation_line():
    assert split_sql_script("EXEC dbms_stats.gather_table_stats( -\n  user, 'T')\n") == [
        P("BEGIN dbms_stats.gather_table_stats(  user, 'T'); END;", 1)]
    refused("EXEC ;\n", "line 1", "EXECUTE without a call")


# --------------------------------------------------------------------------------------
# Empty scripts, messages, Statement


@pytest.mark.parametrize("text", ["", "\n\n", "   \r\n\t\n"])
def test_empty_script_is_refused(text):
    message = refused(text, "no SQL statement in load.sql")
    assert message.startswith("no SQL statement in load.sql")


def test_default_source_name_and_non_text():
    with pytest.raises(ParameterError, match="no SQL statement in script"):
        split_sql_script("")
    with pytest.raises(ParameterError, match="must be text"):
        split_sql_script(b"COMMIT;")  # type: ignore[arg-type]


def test_messages_quote_at_most_60_characters():
    long_line = "INSERT INTO t VALUES (1); COMMIT; -- " + "x" * 200
    message = refused(long_line + "\n", "more than one statement")
    assert f'"{long_line[:60]}..."' in message
    assert long_line[:61] not in message
    message = refused("@" + "d/" * 100 + "x.sql\n", "line 1")
    assert ("@" + "d/" * 100)[:61] not in message


def test_statement_is_frozen_and_validated():
    stmt = S("COMMIT", 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        stmt.text = "ROLLBACK"  # type: ignore[misc]
    assert stmt.verb == "COMMIT"
    assert P("declare n number; begin null; end;", 3).verb == "DECLARE"
    assert S("(SELECT 1 FROM dual) UNION (SELECT 2 FROM dual)", 1).verb == "SELECT"
    with pytest.raises(ParameterError):
        Statement("COMMIT", "ddl", 1)  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        Statement("  ", "sql", 1)
    with pytest.raises(ParameterError):
        Statement("COMMIT", "sql", 0)


def test_texts_are_oracledb_ready():
    """SQL never ends with ';', PL/SQL always ends with 'END;' (or 'END name;')."""
    for stmt in split_sql_script(SEED_LOOP):
        if stmt.kind == "sql":
            assert not stmt.text.endswith(";")
        else:
            assert stmt.text.upper().rstrip().endswith("END;")
        assert stmt.text == stmt.text.strip()
