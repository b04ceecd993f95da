"""jobs: the DBA's own SQL script (sqlscript): a job run once or a few times through the engine API's
measure loop, with its own report section; it drives no load curve, so it sits above the engines."""
