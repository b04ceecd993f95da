"""The lexer: literals, comments, words, ``;`` and substitution variables, line by line."""

from __future__ import annotations

from dataclasses import dataclass
from flashpoc.core.errors import ParameterError


SESSION_VARIABLES = ("session", "session_name")
"""The substitution variables flashpoc fills per session (``&session``, ``&session_name``)."""


QUOTE_MAX = 60
"""At most this many characters of an offending line are quoted in an error message."""


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
                i = self._word(line, i, lineno, source, toks)
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

    def _word(self, line: str, i: int, lineno: int, source: str, toks: list[_Tok]) -> int:
        """Add the word starting at ``i``, or the literal it opens (``q'[...]'``, ``N'...'``);
        return the index after it."""
        n = len(line)
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
            return self._literal(line, i, j + 2, _Q_CLOSE.get(delim, delim) + "'",
                                 lineno, toks)
        if j < n and line[j] == "'" and word == "N":
            return self._literal(line, i, j, "'", lineno, toks)
        toks.append(_Tok(_WORD, i, j, line[i:j]))
        return j

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
