"""What a customer reads in the report, found by reading the demo's report as a newcomer would:
no folder of the machine that ran the campaign, sentences that read, verdicts said once."""

from __future__ import annotations

import pandas as pd

from flashpoc import document
from flashpoc.params import campaign_from_dict


def test_the_targets_table_prints_a_scratch_file_as_the_parameters_give_it(tmp_path, monkeypatch):
    """The demo's report printed its scratch file as /home/.../results/scratch/flashpoc-demo.dat:
    the folder of the machine that ran it. A path under the workbook root is printed relative to
    it, as the parameters give it; a device path as it is."""
    monkeypatch.setenv("FLASHPOC_ROOT", str(tmp_path))
    cfg = campaign_from_dict({
        "campaign": "paths", "hosts": [{"name": "local", "address": "localhost"}],
        "workloads": [{"name": "randread-4k", "rw": "randread", "bs": "4k"}],
        "targets": [{"name": "scratch", "path": "results/scratch/flashpoc-demo.dat", "size": "1g", "create": True},
                    {"name": "lun1", "path": "/dev/mapper/lun1"}]}).resolved()
    assert cfg.targets[0].path == str(tmp_path / "results/scratch/flashpoc-demo.dat")  # what the phases use
    table = document.targets_table(cfg, pd.DataFrame())
    assert table.frame["Path"].tolist() == ["results/scratch/flashpoc-demo.dat", "/dev/mapper/lun1"]
    assert str(tmp_path) not in table.to_html()

