"""The one mechanism that says what a damaged engine output cost: flashpoc.core.damage."""

from flashpoc.core.damage import DAMAGED, Loss, carry, damaged_files, note_loss, note_losses


def test_a_loss_empties_its_columns_and_names_its_file():
    row = {"iops": 7951.0, "cpu_busy_pct": 99.52, "tm_s": 301}
    note_loss(row, Loss("mpstat.out", "cut short after line 64", ("cpu_busy_pct",)))
    assert row == {"iops": 7951.0, "cpu_busy_pct": None, "tm_s": 301,
                   DAMAGED: "mpstat.out: cut short after line 64 (lost: cpu_busy_pct)"}


def test_losses_are_joined_once_each_in_order():
    row: dict = {}
    tm = Loss("tm.out", "missing", ("tm_s",))
    note_losses(row, [tm, Loss("hostcpu.log", "empty"), tm])
    assert row[DAMAGED] == "tm.out: missing (lost: tm_s); hostcpu.log: empty"
    assert damaged_files(row) == ["tm.out", "hostcpu.log"]
    assert row["tm_s"] is None


def test_an_undamaged_row_names_no_file():
    assert damaged_files({"iops": 1.0}) == []


def test_carry_adds_other_rows_texts_once_each():
    row = {"iops": 1.0, DAMAGED: "a.json: x"}
    carry(row, None, "b.json: y; a.json: x", "")
    assert row[DAMAGED] == "a.json: x; b.json: y"
    assert DAMAGED not in carry({"iops": 1.0}, None, "")
