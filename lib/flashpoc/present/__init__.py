"""present: what a reader sees. Summary tables, charts, the report (HTML/PDF) and its document,
the live progress and live view, the explorer; it reads stored results and never runs a phase."""
