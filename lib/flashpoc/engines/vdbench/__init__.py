"""vdbench as an engine: one invocation measures a list of thread counts (``forthreads=``).

- :mod:`.plan` (pure): parmfiles (probe, sweep, fill) and the SSH config for several hosts.
- :mod:`.run`: runs vdbench on the controller host and fetches its output directory.
- :mod:`.parse` (pure): totals, flatfile and histograms into rows, cross-checked.
- :mod:`.measure`: an invocation's rows, intervals and histograms; filling the targets.
"""
