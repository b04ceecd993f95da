"""fio as an engine: a point is one fio job at N jobs (threads) on every target.

- :mod:`.plan` (pure): job files.
- :mod:`.run`: runs a job on a host (or several through fio client/server) and fetches its outputs.
- :mod:`.parse` (pure): fio JSON, latency logs and histograms into rows, cross-checked.
"""
