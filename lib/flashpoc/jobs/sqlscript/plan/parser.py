"""The parser: a script's lines into statements, as SQL*Plus would cut them."""

from __future__ import annotations

from dataclasses import dataclass
from flashpoc.core.errors import ParameterError

from flashpoc.jobs.sqlscript.plan.commands import (_CONNECT, _EXEC, _EXIT, _HOST, _INCLUDE, _REFUSAL, _REM, _SET, _SUBST, _classify,
                       _lookup_command, _would_run)
from flashpoc.jobs.sqlscript.plan.lexer import QUOTE_MAX, _AMP, _Lexer, _SEMI, _WORD, _quote, _session_variable
from flashpoc.jobs.sqlscript.plan.statements import SkippedCommand, SqlScript, Statement


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
