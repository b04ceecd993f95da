"""The live display a phase reports to, handed in by its caller (the phases' face hands in
:class:`flashpoc.present.progress.Progress`): the phases build no view of their own."""

from __future__ import annotations

from typing import Any


def _nothing(*args: Any, **kwargs: Any) -> None:
    return None


class QuietProgress:
    """The display of a phase whose caller handed in none: it takes the same arguments and calls as
    :class:`flashpoc.present.progress.Progress` and shows and writes nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> QuietProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        return _nothing
