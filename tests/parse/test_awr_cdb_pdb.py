"""AWR reports of container databases and of their PDBs, and report headers of 11.2 and 12.1, on
real reports (tests/data/awr, see PROVENANCE.md there).

Expected values are the numbers printed in the reports (the printed text in a comment when a
unit is converted).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import TESTS
from flashpoc.parse.awr import parse_awr, read_awr_file

DATA = TESTS / "data" / "awr"
F_11204 = DATA / "11.2.0.4_single_prod_awr.html.gz"
F_11203 = DATA / "11.2.0.3_single_prod_awr_aix.html.gz"
F_121 = DATA / "12.1.0.2_single_prod_awr.html.gz"

_CACHE: dict[Path, dict] = {}


def parsed(path: Path, **kwargs) -> dict:
    if path not in _CACHE:
        _CACHE[path] = parse_awr(read_awr_file(path), **kwargs)
    return _CACHE[path]


# --------------------------------------------------------------------------- 11.2 and 12.1 headers


@pytest.mark.parametrize(("path", "instance", "db_name"), [
    # "XYDB  1932768254  xydb  1  22-Jun-23 09:06  11.2.0.4.0  NO"
    (F_11204, "xydb", "XYDB"),
    # "DB1UAT  3002120671  DB1UAT  1  07-Sep-18 23:09  11.2.0.3.0  NO"
    (F_11203, "DB1UAT", "DB1UAT"),
    # "RECEIPT  1431238624  RECEIPT  1  06-Dec-17 21:12  12.1.0.2.0  NO"
    (F_121, "RECEIPT", "RECEIPT"),
])
def test_instance_printed_in_the_database_table_is_read(path, instance, db_name):
    """11.2 and 12.1 print the instance and its number in the database table ('DB Name  DB Id
    Instance  Inst num  Startup Time  Release  RAC'), not in a table of their own: the header
    listed no instance."""
    header = parsed(path)["header"]
    assert header["db_name"] == db_name
    assert header["instances"] == [{"instance": instance, "inst_num": 1}]
