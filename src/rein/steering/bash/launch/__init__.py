"""What a program in another language would launch: the commands a Python, JavaScript, Ruby, Perl,
PHP or awk program, a sed script or a makefile runs.

`launches(language, text)` reads the program text (it never runs it) and returns every process it
would start through a process API, a string passed to a shell, an argv, or an unknown launch where a
process API is called with a value built at run time. Code that calls no process API launches
nothing: its strings are data. Pure: no I/O, never raises (text a reader cannot parse is one unknown
launch).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

from rein.steering.bash.launch import _more
from rein.steering.bash.launch._launch import RUNTIME, Launch

Reader = Callable[[str, Mapping[str, str]], tuple[Launch, ...]]

_READERS: dict[str, str] = {
    "python": "python",
    "javascript": "javascript",
    "ruby": "ruby",
    "perl": "perl",
    "php": "php",
    "awk": "awk",
    "sed": "_sed",
    "make": "make",
}
"""Reader modules by language, imported on first use: a hook that never meets a one-liner never loads
them. Each has `read(text, env) -> tuple[Launch, ...]`: a package per language (`python/`,
`javascript/`, ...), and `_sed` alone."""
LANGUAGES = frozenset(_READERS)


def launches(language: str, text: str, env: Mapping[str, str] | None = None) -> tuple[Launch, ...]:
    """The processes `text`, a program in `language`, would start. `env` holds the environment
    variables known to hold these values (make reads them as variables). An unknown language is one
    unknown launch."""
    module = _READERS.get(language)
    if module is None and language in _more.LANGUAGES:
        return _more.read(language, text, env or {})
    if module is None:
        return (Launch(api=language, unknown=f"rein cannot read {language} programs"),)
    try:
        read: Reader = importlib.import_module(f"{__name__}.{module}").read
        return read(text, env or {})
    except RecursionError:
        return (Launch(api=language, unknown=f"the {language} program nests too deeply to read"),)
    except Exception as error:  # a reader's bug must not let the command through: fail closed
        return (Launch(api=language, unknown=f"reading the {language} program failed: {error!r}"),)


__all__ = ["LANGUAGES", "RUNTIME", "Launch", "Reader", "launches"]
