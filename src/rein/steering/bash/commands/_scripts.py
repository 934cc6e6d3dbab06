"""Package scripts a command line wrote and then runs: `echo '{"scripts":{"x":"..."}}' > package.json &&
npm run x`.

A package manager runs a script (and its `pre` and `post` scripts) with `sh -c`, in the package's
directory. The package.json on disk is the project's own and is not read; one this line wrote is read
from what it wrote, and one it changed with content rein cannot know (`npm pkg set`, `jq ... > p && mv
p package.json`, `sed -i`) makes a run of any script unknown. Installing runs the lifecycle scripts
(`preinstall`, `install`, `postinstall`, `prepare`) of a package.json the line wrote with known content.
"""

from __future__ import annotations

import json
import posixpath
import shlex
from collections.abc import Mapping, Sequence

from rein.steering.bash._effects import join_path
from rein.steering.bash.commands._inner import Call, Inner, Unwrapped, Value
from rein.steering.bash.model import Unknown, Word

INSTALL_SCRIPTS = ("preinstall", "install", "postinstall", "preprepare", "prepare", "postprepare")
"""What installing a package's dependencies runs of its own scripts."""


def _packages(call: Call, directory: Word | None, workspaces: bool) -> list[tuple[str, Value]] | str:
    """The package.json files this line wrote that the command reads: the one in its directory, and
    with workspaces every one below it; a string says why that cannot be told."""
    if directory is not None and directory.dynamic:
        base: str | Unknown = Unknown()
    else:
        base = join_path(call.state.cwd, directory.value) if directory is not None else call.state.cwd
    written = {path: content for path, content in call.files.items() if path.endswith("/package.json")}
    if not written:
        return []
    if isinstance(base, Unknown):
        return f"{call.name} reads a package.json in a directory rein cannot tell, after this line wrote one"
    own = f"{posixpath.normpath(base)}/package.json"
    found = [(own, written[own])] if own in written else []
    if workspaces:
        found += [
            (path, content)
            for path, content in written.items()
            if path.startswith(base + "/") and path != own
        ]
    return found


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
    for path, content in found:
        if not isinstance(content, str):
            if not quiet:
                notes.append(f"{label} runs a script of {path}, which this line wrote with content not known")
            continue
        scripts = _scripts_of(content)
        cwd = Word.literal(posixpath.dirname(path))
        for name in names:
            wanted = (f"pre{name}", name, f"post{name}") if lifecycle else (name,)
            for key in wanted:
                text = scripts.get(key)
                if not isinstance(text, str):
                    continue
                why = f"{label} runs the script '{key}' of {path}, which this command line wrote"
                line = text + suffix if key == name and name == names[-1] else text
                inners.append(Inner(label, "child", script=line, cwd=cwd, via="package.json", why=why))
                if dynamic and key == name:
                    notes.append(f"{label} passes arguments only known at run time: {dynamic[0]}")
    return Unwrapped(tuple(inners), tuple(notes))
