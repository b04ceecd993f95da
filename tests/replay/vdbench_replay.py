#!/usr/bin/env python3
"""vdbench REPLAY DOUBLE for tests: not vdbench, and it runs no I/O.

Tests of recorded outputs (other runs, other vdbench versions) use this stand-in; the real
vdbench runs in tests/engines/vdbench/test_vdbench_real.py. It accepts
vdbench's command line (``[-s] -f PARMFILE -o OUTDIR``), checks that the parmfile it is
given has the same definitions as the recorded run's parmfile (general parameters, hd=,
sd=, wd=, rd= lines, with defaults and workload settings folded in; lun paths and host
systems may differ), then serves the recorded real
output set: it copies the recorded files into OUTDIR, prints the recorded console line by
line (``--line-delay`` seconds apart) and exits with the recorded exit status.

Usage (tests write a ``vdbench`` wrapper that calls it):
    vdbench_replay.py --recorded DIR [--exit-code N] [--line-delay S] [-s] -f PARMFILE -o OUTDIR
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

FIXTURE_EXTRAS = {"console.txt", "parmfile.txt", "PROVENANCE.md"}  # added by the recorder, not vdbench
PATH_KEYS = {"lun", "system", "vdbench"}  # may differ between the recording and the test


def definitions(text: str) -> list[tuple[str, dict[str, str]]]:
    """(keyword, {key: value}) per definition line; comments and blank lines skipped."""
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("*", "#", "/")):
            continue
        parts, depth, current = [], 0, ""
        for ch in line:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += ch
        parts.append(current)
        head_key, _, head_value = parts[0].partition("=")
        fields = {}
        for part in parts[1:]:
            key, _, value = part.partition("=")
            fields[key.strip().lower()] = value.strip()
        out.append((head_key.strip().lower(), {"name": head_value.strip(), **fields}))
    return out


def loop_values(text: str) -> list[str]:
    """The values of a for-loop as vdbench expands them: (10-300,10) a range with a step,
    (1-16,d) doubling, (2,4,8) a list; a single value stays itself."""
    inner = text.strip()
    if not (inner.startswith("(") and inner.endswith(")")):
        return [inner]
    parts = [p.strip() for p in inner[1:-1].split(",")]
    if len(parts) == 2 and "-" in parts[0] and not parts[0].startswith("-"):
        lo, hi = (float(v) for v in parts[0].split("-", 1))
        values, value = [], lo
        while value <= hi:
            values.append(value)
            value = value * 2 if parts[1] == "d" else value + float(parts[1])
        return [f"{v:g}" for v in values]
    return parts


def effective(defs: list[tuple[str, dict[str, str]]]) -> dict:
    """What a parmfile asks vdbench to do: ``X=default`` lines folded into each X, workload
    settings folded into the runs that use them (vdbench takes e.g. xfersize from either),
    and the paths that differ between machines left out."""
    general = {kw: f["name"] for kw, f in defs if kw not in {"hd", "sd", "wd", "rd", "fsd", "fwd"}}
    kinds: dict[str, dict[str, dict[str, str]]] = {}
    defaults: dict[str, dict[str, str]] = {}
    for kw, fields in defs:
        if kw in general:
            continue
        if fields["name"] == "default":
            defaults.setdefault(kw, {}).update({k: v for k, v in fields.items() if k != "name"})
            continue
        merged = {**defaults.get(kw, {}), **fields}
        kinds.setdefault(kw, {})[fields["name"]] = {k: v for k, v in merged.items() if k not in PATH_KEYS}
    workloads = kinds.get("wd", {})
    runs = []
    for name, rd in kinds.get("rd", {}).items():
        wd = workloads.get(rd.get("wd", ""), {})
        run = {**{k: v for k, v in wd.items() if k not in ("name", "sd")}, **rd}
        runs.append({k: loop_values(v) if k.startswith("for") else v for k, v in run.items()})
    return {"general": general, "hd": kinds.get("hd", {}), "sd": kinds.get("sd", {}), "runs": runs}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="vdbench (replay double)")
    parser.add_argument("--recorded", required=True, type=Path)
    parser.add_argument("--exit-code", type=int, default=0)
    parser.add_argument("--line-delay", type=float, default=0.0)
    parser.add_argument("-s", action="store_true", help="simulate: check the parmfile only")
    parser.add_argument("-f", required=True, type=Path)
    parser.add_argument("-o", type=Path)
    args = parser.parse_args(argv)
    recorded = args.recorded
    given = effective(definitions(args.f.read_text()))
    expected = effective(definitions((recorded / "parmfile.txt").read_text()))
    if given != expected:
        print("vdbench REPLAY DOUBLE: the parmfile differs from the recorded run's", file=sys.stderr)
        for part in expected:
            if given[part] != expected[part]:
                print(f"  {part} given:    {given[part]}\n  {part} recorded: {expected[part]}", file=sys.stderr)
        return 2
    if args.s:
        return 0
    args.o.mkdir(parents=True, exist_ok=True)
    for path in recorded.iterdir():
        if path.is_file() and path.name not in FIXTURE_EXTRAS:
            shutil.copyfile(path, args.o / path.name)
    for line in (recorded / "console.txt").read_text(errors="replace").splitlines(keepends=True):
        sys.stdout.write(line)
        sys.stdout.flush()
        if args.line_delay:
            time.sleep(args.line_delay)
    return args.exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
