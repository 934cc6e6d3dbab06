"""Package scripts a command runs: `npm run x` runs `scripts.x` of the package.json the manager uses.

A package manager runs a script (and its `pre` and `post` scripts) with `sh -c`, in the package's
directory. A package.json this line wrote is read from what it wrote, and one it changed with content
rein cannot know (`npm pkg set`, `jq ... > p && mv p package.json`, `sed -i`) makes a run of any script
unknown. Otherwise the package.json on disk is read (the nearest one up from where the manager runs, as
npm finds its package), with where each command comes from (`package.json scripts.clean`): the
person's leniently, one the agent wrote this session strictly. Installing runs the lifecycle scripts
(`preinstall`, `install`, `postinstall`, `prepare`).
"""

from __future__ import annotations

import json
import posixpath
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import replace

from rein.steering.bash._disk import Read
from rein.steering.bash._effects import join_path
from rein.steering.bash.commands._inner import Call, Inner, Unwrapped, Value
from rein.steering.bash.model import UNKNOWN, Unknown, Word

INSTALL_SCRIPTS = ("preinstall", "install", "postinstall", "preprepare", "prepare", "postprepare")
"""What installing a package's dependencies runs of its own scripts."""


Package = tuple[str, Value, Read | None]
"""A package.json: its path, its content (UNKNOWN when not known), and the read when it is on disk."""


def _packages(call: Call, directory: Word | None, workspaces: bool) -> list[Package] | str:
    """The package.json files the command reads: the one in its directory, and with workspaces every
    one below it, of those this line wrote; else the one on disk; a string says why that cannot be
    told."""
    if directory is not None and directory.dynamic:
        base: str | Unknown = Unknown()
    else:
        base = join_path(call.state.cwd, directory.value) if directory is not None else call.state.cwd
    written = {path: content for path, content in call.files.items() if path.endswith("/package.json")}
    if not written:
        return _on_disk(call, base, directory is not None) if not workspaces else []
    if isinstance(base, Unknown):
        return f"{call.name} reads a package.json in a directory rein cannot tell, after this line wrote one"
    own = f"{posixpath.normpath(base)}/package.json"
    found: list[Package] = [(own, written[own], None)] if own in written else []
    if workspaces:
        found += [
            (path, content, None)
            for path, content in written.items()
            if path.startswith(base + "/") and path != own
        ]
    return found


def _on_disk(call: Call, base: str | Unknown, exact: bool) -> list[Package]:
    """The package.json on disk the manager uses: in `base` when given (`--prefix`), else the nearest
    one up from it, as npm finds its package."""
    if call.disk is None or isinstance(base, Unknown):
        return []
    directory = posixpath.normpath(base)
    while True:
        path = f"{directory.rstrip('/')}/package.json"
        found = call.disk.read(path)
        if found is not None:
            read = call.disk.log[-1] if found.text is not None else None
            if found.text is None and not found.agent:
                return []
            return [(path, found.text if found.text is not None else UNKNOWN, read)]
        if exact or directory == "/":
            return []
        directory = posixpath.dirname(directory)


def _scripts_of(content: str) -> Mapping[str, object]:
    try:
        data = json.loads(content)
    except ValueError:
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return scripts if isinstance(scripts, dict) else {}


def package_scripts(
    call: Call,
    label: str,
    names: Sequence[str],
    args: Sequence[Word] = (),
    *,
    directory: Word | None = None,
    workspaces: bool = False,
    lifecycle: bool = True,
    quiet: bool = False,
) -> Unwrapped | None:
    """The scripts `names` (each with its `pre`/`post` scripts when `lifecycle`) of the package.json
    this line wrote where the command runs, with `args` appended to the last name's. None when the
    line wrote no package.json there (a script, if any, is the project's own); an empty result when it
    did and has none of them. `quiet`: content rein cannot know is not reported (for lifecycle scripts
    that may not exist)."""
    found = _packages(call, directory, workspaces)
    if isinstance(found, str):
        return None if quiet else Unwrapped(notes=(found,))
    if not found:
        return None
    inners: list[Inner] = []
    notes: list[str] = []
    suffix = "".join(f" {shlex.quote(word.value)}" for word in args)
    dynamic = [word.raw for word in args if word.dynamic]
    tolerated: list[str] = []
    for path, content, read in found:
        if not isinstance(content, str):
            if not quiet:
                notes.append(f"{label} runs a script of {path}, which was written with content not known")
            continue
        scripts = _scripts_of(content)
        cwd = Word.literal(posixpath.dirname(path))
        for name in names:
            wanted = (f"pre{name}", name, f"post{name}") if lifecycle else (name,)
            for key in wanted:
                text = scripts.get(key)
                if not isinstance(text, str):
                    continue
                origin = f"{read.label} scripts.{key}" if read is not None else ""
                whose = "which this command line wrote" if read is None else "read from disk"
                why = f"{label} runs the script '{key}' of {path}, {whose}"
                passes = key == name and name == names[-1]
                line = text + suffix if passes else text
                # The person's script, unless the line hands it words only known at run time.
                lenient = read is not None and read.lenient and not (passes and dynamic)
                inner = Inner(label, "child", script=line, cwd=cwd, via="package.json", why=why)
                inners.append(replace(inner, origin=origin, lenient=lenient))
                if dynamic and key == name:
                    passed = f"{label} passes arguments only known at run time: {dynamic[0]}"
                    (tolerated if lenient else notes).append(passed)
    return Unwrapped(tuple(inners), tuple(notes), tolerated=tuple(tolerated))
