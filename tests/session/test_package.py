"""The package's door and boundaries: what it exports, what it imports."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import rein.session

PACKAGE = Path(rein.session.__file__).parent


def test_door_exports_exactly_what_it_declares() -> None:
    for name in rein.session.__all__:
        assert hasattr(rein.session, name), name
    public = {n for n in dir(rein.session) if not n.startswith("_")}
    assert public - set(rein.session.__all__) <= {"annotations", "errors", "compaction", "remote"}
    assert len(set(rein.session.__all__)) == len(rein.session.__all__)


def test_store_depends_on_nothing_above_it() -> None:
    # `AgentSession` joins the loop, the store and the extensions (with its compactor and the conversion
    # of stored messages to the loop's types); the store modules stay below them.
    joined = {"_agent_session.py", "_compactor.py", "_convert.py", "__init__.py"}
    for path in (p for p in PACKAGE.glob("*.py") if p.name not in joined):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names.append(node.module)
            for name in names:
                top = name.split(".")[0]
                assert top != "rein" or name.startswith("rein.session"), f"{path.name} imports {name}"


def test_importing_the_store_is_silent_and_light() -> None:
    code = (
        "import sys, rein.session; "
        "heavy = ('openai', 'anthropic', 'typer', 'pydantic'); "
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]" and done.stderr == ""
