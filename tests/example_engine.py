"""A minimal engine, defined outside the library: the proof that a new engine is one folder (here
one module) and one registry line (``engines.register("ddread", ENGINE)``), with no edit elsewhere.

It reads each target with ``dd iflag=direct`` (the real coreutils dd, on the host through the host
interface), one dd per thread at once, and takes the point's numbers from what dd prints: the
blocks it copied and the seconds it took. Read-only: its workloads must read.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field

from flashpoc.engines import loop
from flashpoc.engines.base import Engine
from flashpoc.core.errors import ParseError
from flashpoc.params import EngineSettings, parse_size
from flashpoc.analysis.rows import add_littles_law, base_row
from flashpoc.hosts.host import quote

#: dd's last line: "<bytes> bytes (...) copied, <seconds> s, <rate>"
COPIED = re.compile(r"^(\d+) bytes .* copied, ([0-9.e+-]+) s, ", re.M)


class DdSettings(EngineSettings):
    """The ``engine: {ddread: {...}}`` block."""

    blocks: int = Field(256, ge=1, description="blocks each dd reads per point")


def parse_dd(stderr: str, block_bytes: int) -> list[tuple[int, float]]:
    """(blocks, seconds) of each dd that ran, from their standard error.

    Raises:
        ParseError: a dd printed no summary line, or a partial block.
    """
    found = [(int(m[1]), float(m[2])) for m in COPIED.finditer(stderr)]
    if not found or any(size % block_bytes for size, _ in found):
        raise ParseError(f"dd printed no whole-block summary: {stderr[-300:]!r}")
    return [(size // block_bytes, seconds) for size, seconds in found]


class DdEngine(Engine):
    name = "ddread"
    settings_model = DdSettings

    def point_runtime_s(self, cfg) -> int:
        return 1

    def point_definition(self, wb, spec) -> dict[str, Any]:
        return {"engine": self.name, "workload": spec.workload.model_dump(mode="json", exclude={"description"}),
                "threads": spec.threads, "blocks": wb.cfg.settings.blocks,
                "targets": [t.model_dump(mode="json", include={"name", "path", "size"}) for t in wb.cfg.targets]}

    def run_points(self, wb, specs, keys, bar=None):
        return loop.each(specs, keys, bar, lambda spec, pid: self.run_point(wb, spec, pid))

    def run_point(self, wb, spec, pid: str) -> tuple[dict[str, Any], dict[str, str]]:
        cfg, host_params = wb.cfg, wb.cfg.hosts[0]
        block = parse_size(spec.workload.bs)
        target = cfg.targets_of(host_params)[0]
        blocks = cfg.settings.blocks
        command = " ".join(f"dd if={quote(target.path)} of=/dev/null bs={block} count={blocks} skip={i * blocks} "
                           f"iflag=direct &" for i in range(spec.threads)) + " wait"
        result = wb.host(host_params).run(command, purpose=f"{spec.phase} {spec.workload.name} {spec.threads} dd")
        runs = parse_dd(result.stderr, block)
        wall = max(seconds for _, seconds in runs)
        row = base_row(cfg, phase=spec.phase, point_id=pid, engine=self.name, workload=spec.workload, iodepth=1,
                       threads=spec.threads, outstanding=spec.threads, hosts=[host_params.name],
                       runtime_s=spec.runtime_s, ramp_s=0, repeat=spec.repeat, wall_s=wall)
        row["iops"] = sum(n / seconds for n, seconds in runs)
        row["lat_mean_ms"] = 1000.0 * sum(seconds for _, seconds in runs) / sum(n for n, _ in runs)
        add_littles_law(row)
        return row, {"command.sh": command, "dd.stderr.txt": result.stderr}


ENGINE = DdEngine()
