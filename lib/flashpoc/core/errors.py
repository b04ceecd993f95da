"""Exceptions raised by flashpoc. Library code raises these; it never prints or exits."""


class FlashpocError(Exception):
    """Base class of every error flashpoc raises on purpose.

    Attributes:
        files: what a failed point's run left (name -> text or bytes: the job, the engine's
            output and error text) for the measure loop to keep (:func:`flashpoc.engines.loop.measure`,
            in the campaign's ``points/<kept_in>/``) and name in the message; empty for other errors.
        kept_in: the folder under ``points/`` they go to: ``failed``, or HammerDB's ``refused``
            for a run whose errors were too many.
    """

    def __init__(self, *args: object, files: dict[str, str | bytes] | None = None, kept_in: str = "failed"):
        super().__init__(*args)
        self.files = dict(files or {})
        self.kept_in = kept_in


class ParameterError(FlashpocError, ValueError):
    """Parameters are invalid; the message names the key path (e.g. ``hosts[0].port``)."""


class ParseError(FlashpocError, ValueError):
    """An engine output could not be parsed; the message says what was expected and where."""


class RemoteError(FlashpocError):
    """A command failed on a host; the message names the host and the command's purpose."""


class CheckFailed(FlashpocError):
    """The environment check found failures; no I/O may run."""


class AnalysisError(FlashpocError, ValueError):
    """The measured points cannot support the requested analysis."""


class OfflineExportError(FlashpocError):
    """An export would still load something from the network; the message lists the URLs."""


class ReportError(FlashpocError):
    """A part of the report (its PDF) could not be made; the message says why and what to do."""


class Stopped(KeyboardInterrupt):
    """A probe or sweep was stopped between points (the live view's stop button), as Ctrl-C stops
    it: the points completed are stored and reused by the next run."""

    def _render_traceback_(self) -> list[str]:
        """What IPython shows of it in a notebook: its message, not a traceback (a stop asked for is no fault)."""
        return [f"Stopped: {self}"]
