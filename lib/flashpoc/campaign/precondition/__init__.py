"""The precondition: every target filled once with the campaign's data before anything is measured.

An all-flash array answers reads of blocks never written (thin) from its metadata, without
touching flash: a read test on an unfilled LUN reports fantasy IOPS. So before the probe (its
first action, and again before the sweep) every target the campaign may write (``create`` or
``allow_write``) is written once from start to end of its working set, sequentially in large
blocks, by the campaign's engine with the data its settings describe (fio's
``buffer_compress_percentage``/``dedupe_percentage``, vdbench's ``compratio``/``dedupratio``:
:meth:`flashpoc.engines.base.Engine.fill_targets`), after the safety gate. Each fill is recorded
per host and target in ``targets/<host>/<target>.json`` (written atomically): the bytes the engine
says it wrote, the data and its reducibility, the date, the checksum of a sample read back (and
how well it compresses), and the target's identity (a LUN's WWID, a file's device, inode and birth time).
The next run skips a target whose record still matches (path, working set, engine, data,
identity); a LUN several hosts see (the same WWID) is filled once, from the first host. A read workload on a target that is not filled (and not named in
``precondition.filled_elsewhere``) is refused before any I/O, or, with ``precondition.unfilled:
warn``, warned about and recorded in ``precondition.json``.

Write workloads then get SNIA PTS-style workload-dependent preconditioning when
``precondition.write_rounds`` asks for it: rounds of each write workload (``round_s`` seconds at
``threads``), each stored as a point of the phase ``precondition`` (a rerun reuses them), until
its IOPS are steady by SNIA's rule over the last 5 rounds (:func:`snia_window`), at most
``write_rounds``; the rounds and the window's verdict go into ``precondition.json`` and are
charted (:func:`flashpoc.present.chart.precondition_rounds`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flashpoc.hosts.targets import make_scratch_files, read_back, target_identities, target_sizes  # noqa: F401 (callers' names)

# Every name keeps its old path (flashpoc.campaign.precondition.X): the package re-exports its modules' names.
from flashpoc.campaign.precondition.fills import (RECORD_DIR, SAMPLE_BYTES, STATUS_FILE, UnfilledTargetWarning, _SAMPLE_BLOCK,
                    _fill_host, _plan_fills, _reads, _shareable, create_scratch, fill_record, fill_targets,
                    read_sample, record_path, sample_offsets, unfilled_message)
from flashpoc.campaign.precondition.rounds import (MAX_EXCURSION, MAX_SLOPE_EXCURSION, ROUNDS_DIR, ROUNDS_FILL_FILE, SUPERSEDED_DIR, WINDOW,
                     fill_stamp, run_write_rounds, snia_window, supersede_rounds)
from flashpoc.campaign.precondition.status import (FILL_STATUS, _record, fill_table, load_status, read_status, rounds_display,
                     rounds_table, status_text, written_text)

if TYPE_CHECKING:
    from flashpoc.hosts.workbench import Workbench


def precondition_targets(wb: Workbench) -> list[dict[str, Any]]:
    """The whole precondition: the fill (:func:`fill_targets`), then the write workloads' rounds
    (:func:`run_write_rounds`); what the fill did, one dict per host and target."""
    done = fill_targets(wb)
    run_write_rounds(wb)
    return done
