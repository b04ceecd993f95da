"""AWR parse speed and ``flashpoc parse`` start-up, measured in one run.

For each real AWR report of the test data (text and HTML, 0.3-2.1 MB; and the Statspack report,
0.18 MB, which ``parse_awr`` hands to :mod:`flashpoc.oracle.statspack`): the best of 5
``parse_awr`` calls, next to the best of 5 bare passes of the standard library's
``html.parser`` over the same HTML (what the parser used to do before reading any section,
so a lower bound of the old parse time). Then the wall time of the ``flashpoc parse awr``
command on one report (best of 5 processes) next to a bare ``python -c pass`` and a
``python -c "import flashpoc.params"`` (pydantic: what ``import flashpoc`` used to load), and
the metrics of a whole SLOB run directory (instance and RAC global reports, text and HTML).

Run: ``.venv/bin/python benchmarks/awr_parse.py``. Goals (issue 20): under 0.1 s a report,
start-up well under a second.
"""

from __future__ import annotations

import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

from _common import REPO

from flashpoc.oracle.awr import parse_awr, read_awr_file
from flashpoc.engines.slob.parse import slob_point_metrics

REPEATS = 5
DATA = REPO / "tests" / "data"
# whole reports only: an excerpt has no "End of Report"
REPORTS = sorted(p for p in (DATA / "awr").iterdir() if p.suffix != ".md" and "excerpt" not in p.name) + sorted(
    p for p in (DATA / "slob").glob("*/awr*") if p.name.startswith(("awr.", "awr_rac.")))


def best(fn, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def html_parser_pass(text: str) -> None:
    parser = HTMLParser(convert_charrefs=True)
    parser.feed(text)
    parser.close()


def command_time(args: list[str]) -> float:
    return best(lambda: subprocess.run(args, check=True, capture_output=True, cwd=REPO))


def main() -> None:
    print(f"{'report':<68} {'MB':>5} {'parse_awr':>10} {'html.parser':>12}")
    worst = 0.0
    for path in REPORTS:
        text = read_awr_file(path)
        parse_s = best(lambda: parse_awr(text))
        worst = max(worst, parse_s)
        is_html = "<html" in text[:5000].lower()
        old = f"{best(lambda: html_parser_pass(text)):.3f} s" if is_html else "-"
        print(f"{path.relative_to(DATA).as_posix():<68} {len(text) / 1e6:>5.2f} {parse_s:>8.3f} s {old:>12}")
    print(f"slowest report: {worst:.3f} s (goal < 0.1 s)")
    run_dir = DATA / "slob" / "slob2.5_19c_rac2node_s256_t1_wu4_update10"
    files = {f.name: f.read_bytes() for f in run_dir.iterdir() if f.is_file()}
    print(f"SLOB run directory ({run_dir.name}, slob_point_metrics): {best(lambda: slob_point_metrics(files)):.3f} s")

    python = sys.executable
    report = str(DATA / "awr" / "18c_rac_instance_prod_awr.htm")
    bare = command_time([python, "-c", "pass"])
    params = command_time([python, "-c", "import flashpoc.params"])
    parse_cmd = command_time([python, "-m", "flashpoc.cli", "parse", "awr", report, "--format", "json"])
    print(f"python -c pass: {bare:.3f} s; import flashpoc.params (pydantic): {params:.3f} s")
    print(f"flashpoc parse awr (2.1 MB HTML, start-up + parse + JSON): {parse_cmd:.3f} s "
          f"({parse_cmd - bare:.3f} s over a bare interpreter)")


if __name__ == "__main__":
    main()
