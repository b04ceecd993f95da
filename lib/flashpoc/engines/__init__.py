"""Engines: each one lives in its own folder here (``engines/<name>/``), with its settings, its plan
(pure), its run (host I/O through :mod:`flashpoc.run.hosts`), its parse (pure) and its check."""
