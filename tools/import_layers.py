"""The package's imports against its layers (``.importlinter``), read through grimp's graph.

Prints the counts (modules, imports, imports inside functions, import cycles) and, with
``--ignore``, the ``ignore_imports`` lines the contracts need today: every import that climbs a
layer (the layers contract), the imports that join two engine folders, directly or through
a climb (the independence contract), and every import grimp nominates to break a cycle
between the modules of a package (the acyclic contract). Each one waits for a move
(docs/architecture.md). Run it from the repository's root: ``python tools/import_layers.py``.
"""

from __future__ import annotations

import argparse
import ast
import configparser
import importlib.util
from pathlib import Path

import grimp

CONFIG = Path(".importlinter")


def read_config(path: Path = CONFIG) -> configparser.ConfigParser:
    """The import-linter configuration, as import-linter reads it (INI)."""
    config = configparser.ConfigParser()
    config.read(path)
    return config


def contract(config: configparser.ConfigParser, kind: str) -> configparser.SectionProxy:
    """The first contract of type ``kind``."""
    for section in config.sections():
        if section.startswith("importlinter:contract:") and config[section].get("type") == kind:
            return config[section]
    raise SystemExit(f"{CONFIG}: no contract of type {kind}")


def layer_of(config: configparser.ConfigParser) -> dict[str, int]:
    """Each layer's module (with its container) -> its rank, 0 the lowest."""
    section = contract(config, "layers")
    container = section.get("containers", "").strip()
    lines = [line.strip() for line in section["layers"].splitlines() if line.strip()]
    ranks = {}
    for rank, line in enumerate(reversed(lines)):
        for name in line.replace("|", ":").split(":"):
            name = name.strip().strip("()")
            ranks[f"{container}.{name}" if container else name] = rank
    return ranks


def rank(module: str, ranks: dict[str, int]) -> int | None:
    """The rank of the layer holding ``module`` (its longest listed prefix), or None."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        found = ranks.get(".".join(parts[:end]))
        if found is not None:
            return found
    return None


def function_lines(module: str) -> set[int]:
    """The line numbers of the import statements inside a function of ``module``."""
    spec = importlib.util.find_spec(module)
    tree = ast.parse(Path(spec.origin).read_text())
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines |= {n.lineno for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return lines


def edges(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    """Every direct import between the package's modules."""
    return sorted((m, i) for m in graph.modules for i in graph.find_modules_directly_imported_by(m))


def in_functions(graph: grimp.ImportGraph, pairs: list[tuple[str, str]]) -> int:
    """How many import statements of the package's modules are inside a function."""
    lines = {m: function_lines(m) for m in graph.modules}
    return sum(1 for a, b in pairs for d in graph.get_import_details(importer=a, imported=b)
               if d["line_number"] in lines[a])


def cycles(pairs: list[tuple[str, str]]) -> list[set[str]]:
    """The import cycles: the strongly connected components of more than one module (Kosaraju)."""
    forward: dict[str, set[str]] = {}
    backward: dict[str, set[str]] = {}
    for a, b in pairs:
        forward.setdefault(a, set()).add(b)
        backward.setdefault(b, set()).add(a)
    order, seen = [], set()
    for start in sorted(forward):
        stack = [(start, iter(sorted(forward.get(start, ()))))]
        if start in seen:
            continue
        seen.add(start)
        while stack:
            node, rest = stack[-1]
            nxt = next((n for n in rest if n not in seen), None)
            if nxt is None:
                order.append(node)
                stack.pop()
            else:
                seen.add(nxt)
                stack.append((nxt, iter(sorted(forward.get(nxt, ())))))
    components, done = [], set()
    for start in reversed(order):
        if start in done:
            continue
        component, todo = set(), [start]
        while todo:
            node = todo.pop()
            if node not in done:
                done.add(node)
                component.add(node)
                todo.extend(backward.get(node, ()))
        if len(component) > 1:
            components.append(component)
    return components


def upward(pairs: list[tuple[str, str]], ranks: dict[str, int]) -> list[tuple[str, str]]:
    """The imports from a layer to a layer above it."""
    found = []
    for a, b in pairs:
        ra, rb = rank(a, ranks), rank(b, ranks)
        if ra is not None and rb is not None and ra < rb:
            found.append((a, b))
    return found


def folder(module: str, folders: list[str]) -> str | None:
    """The independent module (an engine's folder) that holds ``module``, or None."""
    return next((f for f in folders if module == f or module.startswith(f + ".")), None)


def independence(graph: grimp.ImportGraph, ranks: dict[str, int], folders: list[str]) -> list[tuple[str, str]]:
    """The imports the independence contract ignores: one folder's of another's, then the first
    upward import of each chain left from one folder to another, until no chain is left."""
    found = set()
    for a, b in edges(graph):
        fa, fb = folder(a, folders), folder(b, folders)
        if fa and fb and fa != fb:
            found.add((a, b))
            graph.remove_import(importer=a, imported=b)
    while True:
        chains = {chain for x in folders for y in folders if x != y
                  for chain in graph.find_shortest_chains(importer=x, imported=y)}
        if not chains:
            return sorted(found)
        for chain in sorted(chains):
            steps = list(zip(chain, chain[1:]))
            a, b = next((s for s in steps if s in set(upward(steps, ranks))), steps[0])
            if graph.direct_import_exists(importer=a, imported=b):
                found.add((a, b))
                graph.remove_import(importer=a, imported=b)


def cycle_breakers(graph: grimp.ImportGraph, package: str) -> list[tuple[str, str]]:
    """The direct imports that break every cycle between the modules of ``package`` and, in
    turn, of each package under it (grimp's nomination, as the acyclic contract makes it)."""
    found = []
    for a, b in sorted(graph.nominate_cycle_breakers(package)):
        found += [(d["importer"], d["imported"]) for d in graph.find_matching_direct_imports(
            import_expression=f"{a} -> {b}")] + [(d["importer"], d["imported"]) for d in
                                                   graph.find_matching_direct_imports(
            import_expression=f"{a}.** -> {b}")] + [(d["importer"], d["imported"]) for d in
                                                      graph.find_matching_direct_imports(
            import_expression=f"{a} -> {b}.**")] + [(d["importer"], d["imported"]) for d in
                                                      graph.find_matching_direct_imports(
            import_expression=f"{a}.** -> {b}.**")]
    for child in sorted(graph.find_children(package)):
        if graph.find_children(child):
            found += cycle_breakers(graph, child)
    return sorted(set(found))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ignore", action="store_true", help="print the ignore_imports lines")
    args = parser.parse_args()
    config = read_config()
    root = config["importlinter"]["root_package"]
    exclude = config["importlinter"].getboolean("exclude_type_checking_imports", False)
    graph = grimp.build_graph(root, cache_dir=None, exclude_type_checking_imports=exclude)
    pairs = edges(graph)
    ranks = layer_of(config)
    up = upward(pairs, ranks)
    print(f"modules {len(graph.modules)}, imports {len(pairs)}, statements inside functions "
          f"{in_functions(graph, pairs)}, upward imports {len(up)}, cycles "
          f"{sorted((len(c) for c in cycles(pairs)), reverse=True)}")
    if args.ignore:
        print("layers:")
        for a, b in up:
            print(f"    {a} -> {b}")
        print("independence:")
        folders = [m.strip() for m in contract(config, "independence")["modules"].split()]
        for a, b in independence(grimp.build_graph(root, cache_dir=None, exclude_type_checking_imports=exclude),
                                 ranks, folders):
            print(f"    {a} -> {b}")
        print("acyclic:")
        for a, b in cycle_breakers(graph, root):
            print(f"    {a} -> {b}")


if __name__ == "__main__":
    main()
