"""Programs of shells whose syntax is not bash's: fish, csh/tcsh, PowerShell, nushell, elvish (and
xonsh's shell lines). Each is read as the bash script that runs the same commands; one launch holds
it, unknown where the shell runs something rein cannot follow."""

from __future__ import annotations

from collections.abc import Mapping

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.lexical._reader import MAX_TEXT
from rein.steering.bash.launch.shells import _dialects
from rein.steering.bash.launch.shells._reader import translate
from rein.steering.bash.launch.shells._xonsh import xonsh

DIALECTS = {
    "fish": _dialects.FISH,
    "csh": _dialects.CSH,
    "powershell": _dialects.POWERSHELL,
    "nu": _dialects.NU,
    "elvish": _dialects.ELVISH,
}


def read(language: str, text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    if len(text) > MAX_TEXT:
        return (Launch(api=f"{language} code", unknown=f"the {language} program is too long to read"),)
    if language == "xonsh":
        return xonsh(text, env)
    script, notes = translate(text, DIALECTS[language])
    if not script.strip() and not notes:
        return ()
    unknown = "; ".join(dict.fromkeys(notes))
    return (Launch(api=f"{language} code", shell=script or None, unknown=unknown),)


__all__ = ["DIALECTS", "read"]
