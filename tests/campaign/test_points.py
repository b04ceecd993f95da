"""The one measure loop (flashpoc.engines.loop) on the real fio: records in the specs' order, repeats
findable together, each point stored as it is done (a failure keeps the points before it), and
records that cannot be changed after they are made."""

from __future__ import annotations

import json

import pytest

from conftest import quick_campaign, require_fio
from flashpoc import phases
from flashpoc.engines import loop
from flashpoc.engines.fio import measure as fio_measure
from flashpoc.core.errors import RemoteError
from flashpoc.params import campaign_from_dict
from flashpoc.core.records import PointSpec


def test_a_failure_keeps_the_points_before_it_and_repeats_are_found_together(tmp_path, monkeypatch):
    require_fio()
    cfg = campaign_from_dict(quick_campaign(tmp_path))
    measured = []
    run_point = fio_measure.run_point

    def third_fails(wb, spec, pid, bar=None):
        if len(measured) == 2:
            raise RemoteError(f"local: probe {spec.workload.name} {spec.threads} threads: the host went away")
        measured.append(pid)
        return run_point(wb, spec, pid, bar)

    with phases.open_campaign(cfg) as wb:
        phases.prepare_targets(wb)
        workload = wb.cfg.workload("randread-4k")
        first = PointSpec("probe", workload, 1, 1)
        specs = [first, first.again(1), PointSpec("probe", workload, 2, 1)]
        monkeypatch.setattr(fio_measure, "run_point", third_fails)
        with pytest.raises(RemoteError, match="the host went away"):
            loop.measure(wb, specs)
        stored = sorted(p.name for p in wb.store.point_dir("probe", "x").parent.iterdir() if not p.name.startswith("."))
        assert stored == sorted(measured) and measured[1] == measured[0] + "_r1"  # the two done are kept

        monkeypatch.setattr(fio_measure, "run_point", run_point)
        done = loop.measure(wb, specs)
    assert [(p.spec, p.reused) for p in done] == [(specs[0], True), (specs[1], True), (specs[2], False)]
    assert [p.point_id for p in done[:2]] == measured
    for point in done:  # the record holds the row as stored, with whether it was reused
        on_disk = json.loads((wb.store.point_dir("probe", point.point_id) / "point.json").read_text())
        assert "reused" not in on_disk and point.as_row() == {**on_disk, "reused": point.reused}
    with pytest.raises(TypeError):
        done[0].row["iops"] = 0  # type: ignore[index]

    together = loop.repeats(done)
    assert list(together) == [("probe", "randread-4k", 1, None), ("probe", "randread-4k", 2, None)]
    assert [p.row["repeat"] for p in together[("probe", "randread-4k", 1, None)]] == [0, 1]
