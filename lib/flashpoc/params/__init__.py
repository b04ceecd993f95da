"""Campaign parameters: one pydantic schema for everything a POC campaign needs.

A campaign is read from a parameters/*.yaml file, or built from the variables of a
notebook's ``parameters`` cell (papermill injects the YAML's top-level keys there).
Everything is validated before any I/O: unknown keys and impossible values raise
:class:`~flashpoc.core.errors.ParameterError` naming the key path, e.g. ``hosts[1].port``.

Relative paths (``results_dir``, target paths, key files) are relative to the workbook
root: ``$FLASHPOC_ROOT`` when set, else the nearest directory at or above the current one
that holds both ``notebooks/`` and ``parameters/``, else the current directory.
``$FLASHPOC_RESULTS_DIR``, when set, replaces ``results_dir``.
"""

from __future__ import annotations

# Every name keeps its old path (flashpoc.params.X): the package re-exports its modules' names.
from flashpoc.params.campaign import Campaign, check_unique, some_workloads
from flashpoc.params.common import (ADDRESS_RE, DEFAULT_CURVE_PCT, ENV_NAME_RE, FIO_RW, EngineSettings, Flag,
                                    LOCAL_ADDRESSES, MAX_BLOCK_BYTES, MAX_DEPTH, MAX_FILE_BYTES, MAX_SIZE_BYTES,
                                    MAX_TEXT, MAX_THREADS, MAX_VALUES, MIN_WORKING_SET_BYTES, NAME_RE, Name,
                                    PATH_FORBIDDEN, SCRATCH_DIRS, SIZE_RE, SIZE_UNITS, STEADYSTATE_RE, SYSTEM_DIRS,
                                    Size, USER_RE, WRITE_MODES, StrictModel, ascii_note, check_address, find_workbook,
                                    in_system_dir, parse_size, resolve_path, system_dir, under_workbook, workbook_root)
from flashpoc.params.models import (CalibrateIOParams, DatabaseParams, HostParams, OracleParams, SqlWorkloadParams, TargetParams,
                     Workload, check_env_name, check_regex, compile_pattern, slob_size_bytes,
                     standard_workloads)
from flashpoc.params.reader import (ALLOWED_TAGS, MAX_SHOWN_PROBLEMS, PARAMETERS_ENV, PARAMETERS_FILE, PARAMETER_KEYS,
                                    SECRET_KEY_RE, SUBKEY_RE, format_errors, campaign_from_dict,
                                    campaign_from_parameters, check_results_dir, load_campaign, notebook_parameters,
                                    read_parameters_file, read_parameters_text)
from flashpoc.params.values import NumberSpelling, WrittenFloat, key_text, path_text, read_number, value_problem
from flashpoc.params.settings import (ArraySettings, CompareWith, ExtendSettings, PreconditionSettings, ProbeSettings, ReportSettings,
                       SweepSettings)

