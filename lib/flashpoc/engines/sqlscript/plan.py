"""Split a DBA's SQL*Plus script into statements python-oracledb can run (pure: text in, list out).

A DBA brings the script they would run with ``sqlplus user/pw @load.sql`` (INSERTs and a
COMMIT, a PL/SQL block looping inserts, some DDL); flashpoc runs it in N concurrent
sessions through python-oracledb, whose ``cursor.execute`` takes ONE statement: a SQL
statement without its trailing ``;``, or a PL/SQL block with its text up to ``END;``.
:func:`split_sql_script` cuts the script the way SQL*Plus would:

* A SQL statement ends with ``;`` as the last thing on a line (outside string literals
  and comments; a comment may follow it), or with a line holding only ``/``. The ``;``
  is removed. Two statements on one line (``INSERT ...; COMMIT;``) are refused, as
  SQL*Plus would send them to the server as one statement that fails.
* A PL/SQL block -- starting with ``DECLARE`` or ``BEGIN``, or ``CREATE [OR REPLACE]
  [EDITIONABLE|NONEDITIONABLE] FUNCTION|PROCEDURE|PACKAGE [BODY]|TRIGGER|TYPE [BODY]|
  LIBRARY|JAVA`` -- ends only at a line holding only ``/``; its text keeps the final
  ``END;``. ``WITH FUNCTION|PROCEDURE ...`` queries also end only at ``/`` (kind ``sql``).
* ``--`` and ``/* */`` comments inside a statement are kept (optimizer hints live
  there); comments and blank lines between statements are dropped, so each statement's
  text starts at its first keyword and ends at its last token (``line`` is that keyword's
  line). ``REM``/``REMARK`` lines between statements are dropped.
* String literals ``'...'`` (with ``''``), ``N'...'`` and q-quotes (``q'[...]'``,
  ``q'{...}'``, ``q'(...)'``, ``q'<...>'``, ``q'!...!'``) may hold ``;``, ``--``, ``/*``
  and span lines.
* SQL*Plus commands are recognised only at the start of a statement, on their own line
  (with SQL*Plus abbreviations, e.g. ``PRO``, ``COL``, ``SHO``, and ``-`` at the end of
  the line continuing the command on the next one). Display and session-formatting
  commands are dropped (see :data:`DROPPED_COMMANDS`; :func:`scan_sql_script` lists
  them); ``EXIT``/``QUIT`` ends the script as in SQL*Plus; ``EXEC[UTE] call`` becomes the
  block ``BEGIN call; END;``. Commands that would change what runs -- ``@``/``@@``/
  ``START``, ``CONNECT``/``DISCONNECT``, ``HOST``/``!``/``$``, ``DEFINE``/``UNDEFINE``/
  ``ACCEPT``/``VARIABLE``/``PRINT``, buffer and file commands (``RUN``, ``GET``...),
  ``STARTUP``/``SHUTDOWN``..., ``SET AUTOCOMMIT ON`` and ``SET SQLTERMINATOR``/
  ``BLOCKTERMINATOR``/``CMDSEP`` -- and any ``&var`` substitution variable outside
  literals and comments (after ``SET DEFINE OFF`` no longer; ``SET DEFINE ^`` moves it to
  ``^``) raise :class:`~flashpoc.errors.ParameterError` naming the source, the line and
  what to do.
* Two substitution variables are flashpoc's own, so one script runs in N sessions without
  its object names colliding (ORA-00955): ``&session`` (the session's number, 1 to N) and
  ``&session_name`` (``S0001`` ... : :func:`session_name`), e.g. ``CREATE TABLE
  t_&session_name (...)``. They are filled per session before the statement is sent
  (:meth:`Statement.for_session`), with ``&&`` and a ``.`` ending the name as in SQL*Plus,
  in literals and comments too (as SQL*Plus does), but not after ``SET DEFINE OFF``.
* A ``/`` line with no statement before it would make SQL*Plus run the previous
  statement a second time (``COMMIT;`` then ``/``), a ``.`` line ends a statement without
  running it: both are refused. A statement left without terminator at the end of the
  script is refused (SQL*Plus would not run it), as is an unterminated literal or comment.

Differences from SQL*Plus, on purpose: blank lines inside a SQL statement are kept (as
with ``SET SQLBLANKLINES ON``; by default SQL*Plus would silently drop such a statement);
any other ``&`` inside literals and comments is left alone (SQL*Plus would substitute it unless
``SET DEFINE OFF``); dropped commands are not checked for ``&``.

Error messages quote at most the first 60 characters of the offending line, and never the
arguments of ``CONNECT``/``PASSWORD``/``DEFINE``/``ACCEPT`` lines (they may hold a password).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from flashpoc.errors import ParameterError

StatementKind = Literal["sql", "plsql"]

SESSION_VARIABLES = ("session", "session_name")
"""The substitution variables flashpoc fills per session (``&session``, ``&session_name``)."""

QUOTE_MAX = 60
"""At most this many characters of an offending line are quoted in an error message."""


@dataclass(frozen=True)
class Statement:
    """One statement of a script, ready for ``cursor.execute(statement.text)``.

    Attributes:
        text: the statement text: SQL without its trailing ``;``, PL/SQL ending in ``END;``.
        kind: ``"sql"`` or ``"plsql"``.
        line: 1-based line of the script where the statement's first keyword is.
        define: the substitution character in force for the statement (``&``; None after
            ``SET DEFINE OFF``): :meth:`for_session` replaces ``&session`` and
            ``&session_name`` with it.
    """

    text: str
    kind: StatementKind
    line: int
    define: str | None = field(default="&", compare=False)

    def __post_init__(self) -> None:
        if self.kind not in ("sql", "plsql"):
            raise ParameterError(f"Statement.kind must be 'sql' or 'plsql', got {self.kind!r}")
        if not self.text.strip():
            raise ParameterError("Statement.text is empty")
        if self.line < 1:
            raise ParameterError(f"Statement.line must be >= 1, got {self.line}")

    def for_session(self, number: int) -> Statement:
        """The statement as session ``number`` (1-based) runs it: ``&session`` replaced by the
        number, ``&session_name`` by :func:`session_name` (``&&`` and a ``.`` ending the name
        as in SQL*Plus, any case; in literals and comments too, as SQL*Plus substitutes them)."""
        if self.define is None:
            return self
        pattern = re.compile(re.escape(self.define) + "{1,2}(session_name|session)(?![A-Za-z0-9_#$])[.]?",
                             re.IGNORECASE)
        values = {"session": str(number), "session_name": session_name(number)}
        text = pattern.sub(lambda m: values[m.group(1).lower()], self.text)
        return self if text == self.text else replace(self, text=text)

    @property
    def verb(self) -> str:
        """The statement's first keyword in upper case (``INSERT``, ``BEGIN``, ``CREATE``)."""
        lexer = _Lexer()
        for lineno, line in enumerate(self.text.split("\n"), start=1):
            for tok in lexer.scan(line, lineno, None, "statement"):
                if tok.kind == _WORD:
                    return tok.text.upper()
        return ""


@dataclass(frozen=True)
class SkippedCommand:
    """A SQL*Plus command of the script that flashpoc does not run.

    Attributes:
        line: 1-based line of the command in the script.
        command: the command's full name in upper case (``SET``, ``PROMPT``, ``EXIT``).
        text: the command line, at most its first 60 characters.
    """

    line: int
    command: str
    text: str


@dataclass(frozen=True)
class SqlScript:
    """What :func:`scan_sql_script` found in a script.

    Attributes:
        statements: the statements to run, in script order (at least one).
        skipped: the SQL*Plus commands dropped, in script order.
    """

    statements: tuple[Statement, ...]
    skipped: tuple[SkippedCommand, ...]


# --------------------------------------------------------------------------------------
# SQL*Plus commands

_DROP = "drop"
_EXIT = "exit"
_EXEC = "exec"
_REM = "rem"
_SET = "set"
_INCLUDE = "include"
_CONNECT = "connect"
_HOST = "host"
_SUBST = "substitution"
_BIND = "bind"
_BUFFER = "buffer"
_ADMIN = "admin"

# (full name, shortest abbreviation SQL*Plus accepts, action)
_COMMANDS: tuple[tuple[str, int, str], ...] = (
    ("SET", 3, _SET),
    ("PROMPT", 3, _DROP),
    ("SPOOL", 3, _DROP),
    ("EXIT", 4, _EXIT),
    ("QUIT", 4, _EXIT),
    ("WHENEVER", 8, _DROP),
    ("SHOW", 3, _DROP),
    ("TIMING", 4, _DROP),
    ("COLUMN", 3, _DROP),
    ("TTITLE", 3, _DROP),
    ("BTITLE", 3, _DROP),
    ("REPHEADER", 4, _DROP),
    ("REPFOOTER", 4, _DROP),
    ("BREAK", 3, _DROP),
    ("COMPUTE", 4, _DROP),
    ("CLEAR", 2, _DROP),
    ("PAUSE", 3, _DROP),
    ("DESCRIBE", 4, _DROP),
    ("HELP", 4, _DROP),
    ("REMARK", 3, _REM),
    ("EXECUTE", 4, _EXEC),
    ("START", 3, _INCLUDE),
    ("CONNECT", 4, _CONNECT),
    ("DISCONNECT", 4, _CONNECT),
    ("PASSWORD", 5, _CONNECT),
    ("HOST", 2, _HOST),
    ("DEFINE", 3, _SUBST),
    ("UNDEFINE", 5, _SUBST),
    ("ACCEPT", 3, _SUBST),
    ("VARIABLE", 3, _BIND),
    ("PRINT", 3, _BIND),
    ("RUN", 1, _BUFFER),
    ("LIST", 1, _BUFFER),
    ("INPUT", 1, _BUFFER),
    ("APPEND", 1, _BUFFER),
    ("CHANGE", 1, _BUFFER),
    ("DEL", 3, _BUFFER),
    ("EDIT", 2, _BUFFER),
    ("GET", 3, _BUFFER),
    ("SAVE", 3, _BUFFER),
    ("STORE", 5, _BUFFER),
    ("STARTUP", 7, _ADMIN),
    ("SHUTDOWN", 8, _ADMIN),
    ("RECOVER", 7, _ADMIN),
    ("ARCHIVE", 7, _ADMIN),
    ("COPY", 4, _ADMIN),
    ("XQUERY", 6, _ADMIN),
)

DROPPED_COMMANDS: tuple[str, ...] = tuple(
    name for name, _, action in _COMMANDS if action in (_DROP, _SET, _EXIT)
)
"""SQL*Plus commands flashpoc drops (``EXIT``/``QUIT`` also end the script)."""

_REFUSAL: dict[str, tuple[str, str]] = {
    _INCLUDE: ("runs another script", "inline the included script (paste its statements here)"),
    _CONNECT: ("changes the connection",
               "remove the line (flashpoc opens the sessions itself, as the user of the run "
               "parameters)"),
    _HOST: ("runs an OS command", "remove the line (flashpoc runs SQL only)"),
    _SUBST: ("uses substitution variables",
             "remove the line and replace each &var by its value"),
    _BIND: ("uses bind variables",
            "remove the line and replace each :var by a literal or a PL/SQL local variable"),
    _BUFFER: ("edits or re-runs the SQL*Plus buffer or a file",
              "remove the line and write each statement out in full"),
    _ADMIN: ("is an administration command", "remove the line"),
}

_SQL_SET_WORDS = frozenset({"TRANSACTION", "ROLE", "CONSTRAINT", "CONSTRAINTS"})
"""``SET TRANSACTION|ROLE|CONSTRAINT[S]`` are SQL statements, not SQL*Plus ``SET``."""

_CMD_WORD_RE = re.compile(r"([A-Za-z]+)(?=$|[\s;])")



def _lookup_command(stripped: str) -> tuple[str, str, int] | None:
    """Return (full name, action, end of the command word) if a stripped line is a command."""
    m = _CMD_WORD_RE.match(stripped)
    if m is None:
        return None
    word = m.group(1).upper()
    for name, min_len, action in _COMMANDS:
        if len(word) >= min_len and name.startswith(word):
            rest = stripped[m.end():].split()
            if action == _SET and rest and rest[0].upper() in _SQL_SET_WORDS:
                return None  # SET TRANSACTION / ROLE / CONSTRAINT[S] is SQL
            return name, action, m.end()
    return None


def _would_run(stripped: str) -> bool:
    """True if a stripped line, read on its own between statements, holds something to run."""
    if not stripped or stripped.startswith(("--", "/*")):
        return False
    found = _lookup_command(stripped)
    return found is None or found[1] not in (_DROP, _SET, _REM)


# --------------------------------------------------------------------------------------
# PL/SQL block detection

_BLOCK_STARTS = frozenset({"DECLARE", "BEGIN"})
_CREATE_OPTIONAL = frozenset({"EDITIONABLE", "NONEDITIONABLE", "NOFORCE"})
_CREATE_BLOCKS = frozenset({"FUNCTION", "PROCEDURE", "PACKAGE", "TRIGGER", "TYPE",
                            "LIBRARY", "JAVA"})


def _classify(words: Sequence[str]) -> tuple[StatementKind, bool]:
    """Return (kind, ends only at '/') from a statement's first words (upper case)."""
    if not words:
        return "sql", False
    if words[0] in _BLOCK_STARTS:
        return "plsql", True
    if words[0] == "WITH":
        return "sql", len(words) > 1 and words[1] in ("FUNCTION", "PROCEDURE")
    if words[0] != "CREATE":
        return "sql", False
    i = 1
    if words[i:i + 2] == ["OR", "REPLACE"]:
        i += 2
    if words[i:i + 1] == ["AND"] and words[i + 1:i + 2] in (["RESOLVE"], ["COMPILE"]):
        i += 2
    while i < len(words) and words[i] in _CREATE_OPTIONAL:
        i += 1
    if i < len(words) and words[i] in _CREATE_BLOCKS:
        return "plsql", True
    return "sql", False


# --------------------------------------------------------------------------------------
# Lexer: literals, comments, words, ';' and substitution variables, line by line

_WORD = "word"
_LIT = "literal"
_SEMI = "semi"
_AMP = "substitution"
_PUNCT = "punct"

_Q_CLOSE = {"[": "]", "{": "}", "(": ")", "<": ">"}


@dataclass(frozen=True)
class _Tok:
    kind: str
    start: int
    end: int
    text: str = ""


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c in "_$#"


class _Lexer:
    """Tokens of a script's lines, carrying open literals and comments from line to line."""

    def __init__(self) -> None:
        self.close: str | None = None  # "*/", "'" or a q-quote's closing "X'"
        self.open_line = 0

    @property
    def clean(self) -> bool:
        """True when no literal or block comment is open at the start of the next line."""
        return self.close is None

    def scan(self, line: str, lineno: int, define: str | None, source: str) -> list[_Tok]:
        """Return the code tokens of one line (comments are not tokens)."""
        toks: list[_Tok] = []
        n = len(line)
        i = 0
        if self.close is not None:
            i = self._resume(line, toks)
        while i < n:
            c = line[i]
            if c.isspace():
                i += 1
            elif line.startswith("--", i):
                break
            elif line.startswith("/*", i):
                end = line.find("*/", i + 2)
                if end < 0:
                    self.close, self.open_line = "*/", lineno
                    break
                i = end + 2
            elif c == "'":
                i = self._literal(line, i, i, "'", lineno, toks)
            elif c == '"':
                end = line.find('"', i + 1)
                end = n if end < 0 else end + 1
                toks.append(_Tok(_WORD, i, end, line[i + 1:end].rstrip('"')))
                i = end
            elif _is_word_char(c):
                j = i
                while j < n and _is_word_char(line[j]):
                    j += 1
                word = line[i:j].upper()
                if j < n and line[j] == "'" and word in ("Q", "NQ"):
                    if j + 1 >= n or line[j + 1].isspace():
                        raise ParameterError(
                            f"{source} line {lineno}: q-quoted literal without a delimiter "
                            f"({_quote(line)}); write q'[...]' (or another delimiter)")
                    delim = line[j + 1]
                    i = self._literal(line, i, j + 2, _Q_CLOSE.get(delim, delim) + "'",
                                      lineno, toks)
                elif j < n and line[j] == "'" and word == "N":
                    i = self._literal(line, i, j, "'", lineno, toks)
                else:
                    toks.append(_Tok(_WORD, i, j, line[i:j]))
                    i = j
            elif c == ";":
                toks.append(_Tok(_SEMI, i, i + 1, ";"))
                i += 1
            elif define is not None and c == define:
                j = i + 1
                if j < n and line[j] == define:
                    j += 1
                k = j
                while k < n and (line[k].isalnum() or line[k] == "_"):
                    k += 1
                kind = _AMP if k > j else _PUNCT
                toks.append(_Tok(kind, i, k if k > j else i + 1, line[i:k]))
                i = k if k > j else i + 1
            else:
                toks.append(_Tok(_PUNCT, i, i + 1, c))
                i += 1
        return toks

    def _resume(self, line: str, toks: list[_Tok]) -> int:
        """Continue an open comment or literal at the start of a line; return where code resumes."""
        assert self.close is not None
        if self.close == "*/":
            end = line.find("*/")
            if end < 0:
                return len(line)
            self.close = None
            return end + 2
        if self.close == "'":
            end = _plain_literal_end(line, 0)
        else:
            end = line.find(self.close)
            end = -1 if end < 0 else end + len(self.close)
        if end < 0:
            toks.append(_Tok(_LIT, 0, len(line)))
            return len(line)
        self.close = None
        toks.append(_Tok(_LIT, 0, end))
        return end

    def _literal(self, line: str, start: int, body: int, close: str, lineno: int,
                 toks: list[_Tok]) -> int:
        """Add the literal starting at ``start`` (text at ``body``); return the index after it."""
        if close == "'":
            end = _plain_literal_end(line, body + 1 if line[body] == "'" else body)
        else:
            end = line.find(close, body)
            end = -1 if end < 0 else end + len(close)
        if end < 0:
            self.close, self.open_line = close, lineno
            toks.append(_Tok(_LIT, start, len(line)))
            return len(line)
        toks.append(_Tok(_LIT, start, end))
        return end


def session_name(number: int) -> str:
    """The session-unique name ``&session_name`` stands for: ``S0001`` for session 1, a valid
    Oracle identifier (and suffix of one) on every version."""
    return f"S{number:04d}"


def _session_variable(token: str) -> bool:
    """True for ``&session`` / ``&session_name`` (``&&`` too, any case): flashpoc fills them."""
    return token.lstrip(token[:1]).lower() in SESSION_VARIABLES


def _plain_literal_end(line: str, i: int) -> int:
    """Index after the closing quote of a '...' literal whose text starts at ``i``, or -1."""
    n = len(line)
    while True:
        q = line.find("'", i)
        if q < 0:
            return -1
        if q + 1 < n and line[q + 1] == "'":
            i = q + 2
            continue
        return q + 1


def _quote(line: str) -> str:
    """The offending line for an error message: at most its first 60 characters, quoted."""
    text = line.strip()
    if len(text) > QUOTE_MAX:
        return f'"{text[:QUOTE_MAX]}..."'
    return f'"{text}"'


# --------------------------------------------------------------------------------------
# Parser


@dataclass
class _Pending:
    """The statement being read: raw lines from its first keyword on."""

    line: int
    offset: int
    parts: list[str]
    words: list[str]
    last: tuple[int, int, int, bool] | None = None  # (part, start, end, is ';') of last token

    def text(self, *, drop_semi: bool) -> str:
        assert self.last is not None
        part, start, end, is_semi = self.last
        cut = start if (drop_semi and is_semi) else end
        lines = self.parts[:part + 1]
        lines[-1] = lines[-1][:cut]
        lines[0] = lines[0][self.offset:]
        return "\n".join(lines).rstrip()


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.lexer = _Lexer()
        self.define: str | None = "&"
        self.statements: list[Statement] = []
        self.skipped: list[SkippedCommand] = []
        self.cur: _Pending | None = None

    def error(self, lineno: int, message: str) -> ParameterError:
        return ParameterError(f"{self.source} line {lineno}: {message}")

    def run(self, text: str) -> SqlScript:
        lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
        i = 0
        while i < len(lines):
            raw = lines[i]
            lineno = i + 1
            i += 1
            stripped = raw.strip()
            if self.lexer.clean and stripped == "/":
                self._slash(lineno)
                continue
            if self.lexer.clean and stripped == ".":
                raise self.error(lineno, "a line holding only '.' ends a statement without "
                                         "running it; end the statement with ';' or '/'")
            if self.cur is None and self.lexer.clean and stripped:
                consumed = self._command(lines, i - 1)
                if consumed is None:
                    break  # EXIT / QUIT
                if consumed:
                    i += consumed - 1
                    continue
            self._code(raw, lineno)
        self._end_of_script(lines)
        if not self.statements:
            raise ParameterError(
                f"no SQL statement in {self.source}: give at least one SQL statement ended "
                "by ';' or a PL/SQL block ended by a line holding only '/'")
        return SqlScript(tuple(self.statements), tuple(self.skipped))

    # ---- statement text

    def _code(self, raw: str, lineno: int) -> None:
        toks = self.lexer.scan(raw, lineno, self.define, self.source)
        cur = self.cur
        if cur is None:
            if not toks:
                return  # blank or comment line between statements
            cur = self.cur = _Pending(lineno, toks[0].start, [], [])
        cur.parts.append(raw)
        part = len(cur.parts) - 1
        for k, tok in enumerate(toks):
            if tok.kind == _AMP and not _session_variable(tok.text):
                raise self.error(
                    lineno, f"substitution variable {tok.text} ({_quote(raw)}) is not "
                            f"supported: replace {tok.text} by its value (flashpoc fills only "
                            f"{self.define}session and {self.define}session_name; or put SET "
                            f"DEFINE OFF before it if '{self.define}' is meant literally)")
            if tok.kind == _WORD and len(cur.words) < 8:
                cur.words.append(tok.text.upper())
            cur.last = (part, tok.start, tok.end, tok.kind == _SEMI)
            if tok.kind == _SEMI and not _classify(cur.words)[1]:
                if k != len(toks) - 1:
                    raise self.error(
                        lineno, f"more than one statement on the line ({_quote(raw)}); put "
                                "each statement on its own line, ended by ';'")
                self._finish(lineno, drop_semi=True)
                return

    def _finish(self, lineno: int, *, drop_semi: bool) -> None:
        cur = self.cur
        assert cur is not None
        self.cur = None
        kind = _classify(cur.words)[0]
        text = cur.text(drop_semi=drop_semi and kind == "sql")
        if not text:
            raise self.error(lineno, "';' with no statement before it; remove it")
        self.statements.append(Statement(text, kind, cur.line, self.define))

    def _slash(self, lineno: int) -> None:
        if self.cur is not None:
            self._finish(lineno, drop_semi=True)
            return
        if self.statements:
            raise self.error(
                lineno, "this '/' follows no statement, so SQL*Plus would run the previous "
                        "one a second time; remove the '/' (a statement ended by ';' needs "
                        "no '/')")
        raise self.error(lineno, "'/' with no statement before it; remove it")

    def _end_of_script(self, lines: list[str]) -> None:
        if not self.lexer.clean:
            what = "/* comment" if self.lexer.close == "*/" else "string literal"
            line = self.lexer.open_line
            raise self.error(line, f"unterminated {what} in {_quote(lines[line - 1])} (it "
                                   "runs to the end of the script); close it")
        cur = self.cur
        if cur is None:
            return
        first = _quote(cur.parts[0][cur.offset:])
        kind, slash_only = _classify(cur.words)
        if slash_only:
            what = "PL/SQL block" if kind == "plsql" else "statement"
            raise self.error(
                cur.line, f"{what} {first} is not terminated: add a line holding only '/' "
                          "after its last line (after END; for a block)")
        raise self.error(
            cur.line, f"statement {first} has no terminator (SQL*Plus would not run it); "
                      "end it with ';'")

    # ---- SQL*Plus commands

    def _command(self, lines: list[str], index: int) -> int | None:
        """Handle a SQL*Plus command at ``lines[index]``.

        Returns:
            The number of lines consumed (0 if the line is not a command), None for EXIT.
        """
        raw = lines[index]
        lineno = index + 1
        stripped = raw.strip()
        if stripped.startswith("@"):
            name = "@@" if stripped.startswith("@@") else "@"
            raise self.error(lineno, f"{name} ({_quote(raw)}) {_REFUSAL[_INCLUDE][0]}: "
                                     f"{_REFUSAL[_INCLUDE][1]}")
        if stripped[0] in "!$":
            raise self.error(lineno, f"host command {stripped[0]} ({_quote(raw)}) "
                                     f"{_REFUSAL[_HOST][0]}: {_REFUSAL[_HOST][1]}")
        found = _lookup_command(stripped)
        if found is None:
            return 0
        name, action, word_end = found
        if action == _REM:
            return 1
        # a '-' ending the line continues the command on the next line
        consumed = 1
        full = stripped
        while full.endswith("-") and index + consumed < len(lines):
            following = lines[index + consumed].strip()
            if name == "PROMPT" and _would_run(following):
                raise self.error(
                    lineno, f"the '-' ending {_quote(raw)} makes SQL*Plus continue the "
                            f"PROMPT on line {lineno + consumed} ({_quote(following)}), "
                            "which then never runs; remove the trailing '-' (or add a blank "
                            "line after the PROMPT)")
            full = full[:-1] + " " + following
            consumed += 1
        args = full[word_end:].strip()
        if action in _REFUSAL:
            # CONNECT / PASSWORD / DEFINE / ACCEPT arguments may hold a password
            hide = action in (_CONNECT, _SUBST)
            shown = f'"{stripped[:word_end]} ..."' if hide else _quote(raw)
            what, todo = _REFUSAL[action]
            raise self.error(lineno, f"SQL*Plus {name} ({shown}) {what}: {todo}")
        if action == _EXEC:
            self._exec(args, raw, lineno)
            return consumed
        if action == _SET:
            self._set(args, raw, lineno)
        self.skipped.append(SkippedCommand(lineno, name, stripped[:QUOTE_MAX]))
        return None if action == _EXIT else consumed

    def _exec(self, args: str, raw: str, lineno: int) -> None:
        toks = _Lexer().scan(args, lineno, self.define, self.source)
        for tok in toks:
            if tok.kind == _AMP and not _session_variable(tok.text):
                raise self.error(
                    lineno, f"substitution variable {tok.text} ({_quote(raw)}) is not "
                            f"supported: replace {tok.text} by its value")
        if toks and toks[-1].kind == _SEMI:
            toks = toks[:-1]
        if not toks:
            raise self.error(lineno, f"EXECUTE without a call ({_quote(raw)}); write the "
                                     "PL/SQL call after EXEC")
        call = args[:toks[-1].end].strip()
        self.statements.append(Statement(f"BEGIN {call}; END;", "plsql", lineno, self.define))

    def _set(self, args: str, raw: str, lineno: int) -> None:
        words = args.split()
        for k, word in enumerate(words):
            opt = word.upper()
            value = words[k + 1].strip("'\"").upper() if k + 1 < len(words) else ""
            if len(opt) >= 3 and "DEFINE".startswith(opt):
                if value == "OFF":
                    self.define = None
                elif value == "ON":
                    self.define = "&"
                elif len(value) == 1 and not value.isalnum() and not value.isspace():
                    self.define = value
            elif len(opt) >= 3 and "SCAN".startswith(opt):
                self.define = None if value == "OFF" else (self.define or "&")
            elif len(opt) >= 4 and "AUTOCOMMIT".startswith(opt) and value not in ("OFF", "0"):
                raise self.error(
                    lineno, f"SET AUTOCOMMIT ({_quote(raw)}) changes when transactions "
                            "commit: remove it and put COMMIT statements in the script")
            elif (len(opt) >= 4 and "SQLTERMINATOR".startswith(opt)
                  and value not in ("ON", ";")) or \
                    (len(opt) >= 3 and "BLOCKTERMINATOR".startswith(opt)
                     and value not in ("ON", "OFF", ".")) or \
                    (len(opt) >= 4 and "CMDSEP".startswith(opt) and value != "OFF"):
                raise self.error(
                    lineno, f"SET {opt} ({_quote(raw)}) changes how statements are cut: "
                            "remove it and end SQL statements with ';' and PL/SQL blocks "
                            "with a line holding only '/'")


# --------------------------------------------------------------------------------------
# Public API


def scan_sql_script(text: str, *, source: str = "script") -> SqlScript:
    """Split a SQL*Plus script into statements, and list the SQL*Plus commands dropped.

    Args:
        text: the script's text (``\\n``, ``\\r\\n`` or ``\\r`` line ends; a BOM is ignored).
        source: how error messages name the script (e.g. its file name).

    Returns:
        The statements (at least one) and the dropped SQL*Plus commands.

    Raises:
        ParameterError: if the script holds no statement, a command or ``&var`` that would
            change what runs, an unterminated statement, block, literal or comment, or a
            stray ``/``, ``.`` or ``;``; the message names ``source``, the line and the fix.
    """
    if not isinstance(text, str):
        raise ParameterError(f"{source}: the script must be text (str), got {type(text).__name__}")
    return _Parser(source).run(text)


def split_sql_script(text: str, *, source: str = "script") -> list[Statement]:
    """Split a SQL*Plus script into the statements python-oracledb runs one by one.

    Args:
        text: the script's text (``\\n``, ``\\r\\n`` or ``\\r`` line ends; a BOM is ignored).
        source: how error messages name the script (e.g. its file name).

    Returns:
        The statements in script order: SQL without the trailing ``;``, PL/SQL blocks
        ending with ``END;``.

    Raises:
        ParameterError: see :func:`scan_sql_script`.
    """
    return list(scan_sql_script(text, source=source).statements)


def script_summary(statements: Iterable[Statement], *,
                   skipped: Iterable[SkippedCommand] | None = None) -> dict:
    """Count a script's statements for display (e.g. in a notebook).

    Args:
        statements: statements from :func:`split_sql_script`.
        skipped: dropped SQL*Plus commands from :func:`scan_sql_script`; when given, the
            result also has ``"skipped"``: counts by command name.

    Returns:
        ``{"statements": n, "sql": n_sql, "plsql": n_plsql, "verbs": {verb: count}}``, verbs
        (first keywords) in order of first appearance, e.g. ``{"statements": 3, "sql": 2,
        "plsql": 1, "verbs": {"INSERT": 1, "COMMIT": 1, "BEGIN": 1}}``.
    """
    stmts = list(statements)
    verbs: dict[str, int] = {}
    for stmt in stmts:
        verbs[stmt.verb] = verbs.get(stmt.verb, 0) + 1
    summary: dict = {
        "statements": len(stmts),
        "sql": sum(1 for s in stmts if s.kind == "sql"),
        "plsql": sum(1 for s in stmts if s.kind == "plsql"),
        "verbs": verbs,
    }
    if skipped is not None:
        counts: dict[str, int] = {}
        for cmd in skipped:
            counts[cmd.command] = counts.get(cmd.command, 0) + 1
        summary["skipped"] = counts
    return summary
