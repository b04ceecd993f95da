"""Whether a flashpoc module imports first, in an interpreter that has imported nothing of flashpoc
but its package root, for the tests that ask it of every module (an import cycle between two
modules shows only when one of them is imported first).

A fresh ``python -c "import flashpoc.X"`` a module costs 1-1.5 CPU-s, nearly all of it the third-party
packages the module pulls in (pandas, altair, pydantic...): 90 modules asked, 2 CPU-minutes of the
suite. :class:`ImportServer` imports those packages once (every package that a module of flashpoc
imports, found in its sources) and then forks for each module asked: the child imports the module
and says how it went. What the child starts from is what a fresh interpreter that had imported the
same third-party packages would: no flashpoc module but the package root (which every ``import
flashpoc.X`` imports first, and which imports nothing of flashpoc itself); third-party code never
imports flashpoc, so a cycle between flashpoc's modules fails the child's import as it fails a fresh
interpreter's. The server checks both premises at its start and refuses to serve otherwise.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LIB = Path(__file__).resolve().parent.parent / "lib" / "flashpoc"

SERVER = r'''
import ast, importlib, json, os, sys, traceback
import flashpoc  # the package root, which `import flashpoc.X` imports first
names = set()
for path in sorted(__import__("pathlib").Path(sys.argv[1]).rglob("*.py")):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
for name in sorted(names - set(sys.stdlib_module_names) - {"flashpoc", "__future__"}):
    try:
        importlib.import_module(name)
    except ImportError:
        pass
loaded = sorted(m for m in sys.modules if m.startswith("flashpoc."))
print(json.dumps(loaded), flush=True)  # none, or the server must not be used
for line in sys.stdin:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            importlib.import_module(line.strip())
            said = ""
        except BaseException:
            said = traceback.format_exc()
        os.write(write, said.encode() or b"\0")
        os._exit(0)
    os.close(write)
    said = b""
    while chunk := os.read(read, 1 << 16):
        said += chunk
    os.close(read)
    os.waitpid(pid, 0)
    print(json.dumps(said.decode().strip("\0") if said else "the child importing it died"), flush=True)
'''


class ImportServer:
    """One server process (:data:`SERVER`) for a test session's worker; :meth:`error` asks it."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self._process = subprocess.Popen([sys.executable, "-c", SERVER, str(LIB)], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, env=env)
        loaded = json.loads(self._process.stdout.readline() or '["(the server did not start)"]')
        if loaded:
            self.close()
            raise RuntimeError(f"importing flashpoc's third-party packages imported flashpoc modules: {loaded}")

    def error(self, module: str) -> str:
        """How importing ``module`` first went: empty when it imported, else the traceback."""
        self._process.stdin.write(module + "\n")
        self._process.stdin.flush()
        return json.loads(self._process.stdout.readline())

    def close(self) -> None:
        self._process.stdin.close()
        self._process.wait(timeout=60)
