"""SLOB as an engine (users bring their own copy): a point is one runit.sh run at N threads per schema.

- :mod:`.plan` (pure): slob.conf.
- :mod:`.run`: runs SLOB on the database host and fetches its run files.
- :mod:`.parse` (pure): AWR or Statspack text, iostat and friends into rows.
- :mod:`.measure`: one point: its conf, its run, its row and intervals.
"""
