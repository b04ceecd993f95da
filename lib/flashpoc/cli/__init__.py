"""The ``flashpoc`` command: run, check, validate, parse, saturation.

This is the only package that prints and sets exit codes (:data:`EXIT_CODES`): library errors
are caught here and shown as one line ``flashpoc: error: ...``, never a traceback.
"""

from __future__ import annotations

# Every name keeps its old path (flashpoc.cli.X): the package re-exports its modules' names.
from flashpoc.cli.commands import (TABLE_COLUMNS, _Formatter, _Parser, _READERS, _SUMMARIES, _awr_summary, _cmd_check, _cmd_parse,
                       _cmd_run, _cmd_saturation, _cmd_validate, _parse, _print_rows, _read_awr, build_parser, main)
from flashpoc.cli.notebooks import (EXIT_CODES, NOTEBOOKS, PHASE_NAMES, PLAIN_WIDTH, Terminal, _AtomicNotebookWriter, _Follower,
                        _environment, _kernel_stderr, _notebook_dir, output_width, run_notebooks)
