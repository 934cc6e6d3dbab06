"""Whether Python code may write a file, read from its syntax tree rather than its text: a word such
as `File` or `open` in a string or a comment writes nothing, `open(p)` only reads, `open(p, "w")`
writes. Used for `python -c` and a program on stdin; code that does not parse is read as text."""

from __future__ import annotations

import ast
import re

_WRITE_METHODS = frozenset({
    "write", "write_text", "write_bytes", "writelines", "touch", "rename", "symlink_to", "hardlink_to",
    "link_to", "copy", "copy2", "copyfile", "copytree", "move", "save", "savez", "savez_compressed",
    "savetxt", "dump", "extract", "extractall", "unpack_archive", "urlretrieve", "retrbinary",
    "download_file", "symlink", "link", "mkfifo", "system", "popen", "exec", "eval", "execfile",
})  # fmt: skip
"""Calls that write a file, or run code or a command line that may (`os.system`, `exec`)."""
_WRITE_MODES = frozenset("wax+")
_MODE = re.compile(r"[rwaxbtU+]{1,4}")


def may_write(code: str) -> bool | None:
    """True when `code` may write a file rein cannot name, False when it cannot, None when it is not
    Python rein can parse (the caller then reads it as text)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    return any(isinstance(node, ast.Call) and _writes(node) for node in ast.walk(tree))


def _writes(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    method = isinstance(func, ast.Attribute)
    if name == "open":
        # `open(p, mode)`, `io.open(p, mode)`, `Path(p).open(mode)`; `os.open(p, flags)` may create
        if method and _on_module(func, ("os",)):
            return True
        return _mode_writes(call, 0 if method and not _on_module(func, ("io", "codecs")) else 1)
    if name.startswith("to_") and (call.args or call.keywords):  # `df.to_csv(path)`
        return True
    if name == "replace" and method and _on_module(func, ("os",)):  # not `str.replace`
        return True
    if any(keyword.arg == "shell" for keyword in call.keywords):  # `subprocess.run(line, shell=True)`
        return True
    return name in _WRITE_METHODS


def _on_module(func: ast.expr, modules: tuple[str, ...]) -> bool:
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in modules


def _mode_writes(call: ast.Call, index: int) -> bool:
    mode: ast.expr | None = call.args[index] if len(call.args) > index else None
    for keyword in call.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
        elif keyword.arg is None:  # `open(**options)`: the mode may be anything
            return True
    if mode is None:
        return False
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        # not a mode at all (`webbrowser.open(url)`): nothing opened for writing
        return _MODE.fullmatch(mode.value) is not None and bool(_WRITE_MODES & set(mode.value))
    return True
