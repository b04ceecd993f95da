"""campaign: the phases' actions. A campaign opened for running (session), the environment check,
the precondition, the one measure loop (points), the probe, the sweep, rate curves and extension,
and the stored points read back (results)."""
