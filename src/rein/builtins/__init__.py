"""Extensions rein ships and loads by default: stream rules (`ttsr`), command steering (`steering`),
the `/timebox` budget, the slash commands (`commands`), the validation hints (`hints`), the
checkpoints behind `/undo` (`checkpoints`), the tools of MCP servers (`mcp`) and the approval of tool
calls (`approval`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rein.builtins._tree_view import CURRENT_MARK
from rein.builtins.approval import ApprovalExtension, ApproveMode, approve_mode
from rein.builtins.checkpoints import CheckpointExtension
from rein.builtins.checkpoints_undo import UndoResult, undo_turns
from rein.builtins.commands import DEFAULT_MODELS, CommandsExtension, provider_default
from rein.builtins.hints import HintsExtension
from rein.builtins.mcp import McpExtension, add_editor_servers
from rein.builtins.steering import SteeringExtension
from rein.builtins.timebox import TimeboxExtension
from rein.builtins.ttsr import TtsrExtension
from rein.extensions import discover_extensions
from rein.session import AgentSession


def load_extensions(
    session: AgentSession,
    *,
    cwd: str,
    home: str,
    settings: Mapping[str, Mapping[str, object]],
    discovered: bool = True,
    approve: ApproveMode | None = None,
    interactive: bool = True,
    checkpoints: bool = True,
    checkpoint_exclude: Sequence[Path] = (),
) -> None:
    """Load the built-in extensions, then the user's (`.rein/extensions`, `~/.rein/extensions`,
    entry points), then the approval of tool calls, so that every extension's block comes before a
    person is asked. A broken user extension is reported and skipped.

    `approve` is the `--approve` option (None: `[rein] approve` from settings, else "ask");
    `interactive` False means nobody can be asked (print and JSON modes): "ask" then denies.
    `checkpoints` False leaves out the checkpoints behind `/undo`; `checkpoint_exclude` names the
    paths they never take (the session server's database and state, which may sit in the project)."""
    ttsr = TtsrExtension(session.api("ttsr"), cwd=cwd, home=home, settings=settings.get("ttsr", {}))
    steering = SteeringExtension(session.api("steering"), cwd=cwd, home=home, interactive=interactive)
    TimeboxExtension(session.api("timebox")).register()
    if settings.get("rein", {}).get("validation_hints", True) is not False:
        HintsExtension(session.api("hints"))
    CommandsExtension(session.api("commands"), session, home=home, ttsr=ttsr, steering=steering)
    McpExtension(
        session.api("mcp"), session, home=home, settings=settings.get("mcp", {}), interactive=interactive
    )
    if checkpoints:
        CheckpointExtension(session.api("checkpoints"), session, home=home, exclude=checkpoint_exclude)
    for found in discover_extensions(Path(cwd), Path(home)) if discovered else ():
        if found.factory is None:
            session.ui.notify(f"extension {found.name} ({found.origin}) skipped: {found.problem}", "warning")
        else:
            session.load_extension(found.name, found.factory)
    try:
        mode = approve_mode(settings, approve)
    except ValueError as error:
        # Fail closed: a setting that does not say how to approve must not let every call run.
        session.ui.notify(f"settings: {error}; bash, write, edit and MCP tool calls are denied", "error")
        mode = "deny"
    ApprovalExtension(
        session.api("approval"),
        session,
        mode=mode,
        interactive=interactive,
        home=home,
        allowed_by_person=steering.allowed_by_person,
        on_outcome=steering.settle,
    )


__all__ = [
    "CURRENT_MARK",
    "DEFAULT_MODELS",
    "ApprovalExtension",
    "ApproveMode",
    "CheckpointExtension",
    "CommandsExtension",
    "HintsExtension",
    "McpExtension",
    "SteeringExtension",
    "TtsrExtension",
    "UndoResult",
    "add_editor_servers",
    "load_extensions",
    "provider_default",
    "undo_turns",
]
