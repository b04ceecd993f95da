"""A DBA's SQL script as an engine: the script runs in N sessions between two AWR snapshots.

- :mod:`.plan` (pure): splitting and vetting the script.
- :mod:`.measure`: a run between snapshots, its row and its table.
"""
