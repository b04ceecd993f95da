"""The import server the import-alone tests ask (tests/fresh_import.py) finds what a fresh
interpreter finds: a cycle between two modules fails the import of the one imported first, with
the same error, whichever is asked first; a module that imports is said to."""

from __future__ import annotations

import os
import subprocess
import sys

from fresh_import import ImportServer

FILES = {"a.py": "from cyc.b import helper\n\nVALUE = 1\n",  # a and b import each other's names: a cycle
         "b.py": "from cyc.a import VALUE\n\n\ndef helper():\n    return VALUE\n",
         "c.py": "from cyc.d import VALUE\n", "d.py": "VALUE = 2\n"}


def test_a_cycle_fails_as_in_a_fresh_interpreter_and_a_sound_module_imports(tmp_path):
    package = tmp_path / "cyc"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in FILES.items():
        (package / name).write_text(text)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    server = ImportServer(env)
    try:
        for module in ("cyc.a", "cyc.b", "cyc.c"):
            fresh = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, env=env)
            said = server.error(module)
            assert (said.splitlines() or [""])[-1] == (fresh.stderr.strip().splitlines() or [""])[-1], module
            assert bool(said) == (fresh.returncode != 0) == (module != "cyc.c"), module
        assert "partially initialized module" in server.error("cyc.a")
        assert server.error("flashpoc.analysis.fit") == ""
        assert server.error("flashpoc.no_such_module").splitlines()[-1] == (
            "ModuleNotFoundError: No module named 'flashpoc.no_such_module'")
    finally:
        server.close()
