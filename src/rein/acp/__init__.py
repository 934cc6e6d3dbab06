"""rein's agent for editors, over the Agent Client Protocol (ACP), on the official Python SDK
(`agent-client-protocol`, module `acp`; the `acp` extra). Zed, JetBrains IDEs, Neovim plugins and
other ACP clients start `rein acp` and talk to it over stdio.

    serve(factory)          # run until the editor closes stdin; `factory` builds rein sessions

The host (`rein.cli.acp`) gives the factory, so the session is built exactly as `rein` builds it
(provider, settings, steering, stream rules, timebox, approval); this package translates:

- `initialize`: loadSession, session list, text and embedded-resource prompts;
- `session/new`, `session/load` (the branch replayed), `session/list`: rein's own session files;
- `session/prompt`: message and thought chunks, tool calls pending / in_progress / completed / failed
  with their output; `session/cancel` aborts the run (stop reason "cancelled");
- approval "ask" as `session/request_permission` (Allow once, Allow for this session,
  Always allow in this project, Deny);
- rein's `/commands` as `available_commands_update`;
- steering blocks and stream-rule cuts as notices in the transcript (`[rein] ...`).
"""

from __future__ import annotations

from rein.acp._agent import ReinAgent
from rein.acp._mcp_servers import editor_servers
from rein.acp._serve import serve, serve_stdio, stdio_problem
from rein.acp._types import SessionFactory, StartFailed, UnknownSession

__all__ = [
    "ReinAgent",
    "SessionFactory",
    "StartFailed",
    "UnknownSession",
    "editor_servers",
    "serve",
    "serve_stdio",
    "stdio_problem",
]
