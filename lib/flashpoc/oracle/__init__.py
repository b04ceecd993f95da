"""oracle: the database connection and its queries (db), AWR and Statspack snapshots and reports and
their readers, AWR metrics, database statistics and sizing; no engine here."""
