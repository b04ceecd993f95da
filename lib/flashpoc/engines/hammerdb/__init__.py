"""HammerDB TPROC-C as an engine: a point is one timed run at N virtual users.

- :mod:`.settings`: the validated ``hammerdb:`` settings block (no secret in it: passwords are
  read on the load host from environment variables it names).
- :mod:`.plan` (pure): the ``hammerdbcli auto`` Tcl scripts (schema build, one timed run).
- :mod:`.run`: runs a script with the real HammerDB on a host and fetches its outputs.
- :mod:`.parse` (pure): a run's logs and ``jobs`` answers into rows, cross-checked.
"""
