"""The system prompt of rein's own coding agent, for every host that runs it (`rein`, the web page of
`rein serve`): one text, so a run behaves the same wherever it starts."""

from __future__ import annotations

from rein.ai.providers.local_files import SYSTEM_PROMPT as LOCAL_SYSTEM_PROMPT

AGENT_PROMPT = (
    "You are a careful coding agent working in {cwd}. Use the tools to read, edit and run code. "
    "Keep changes small and verify them. If a tool call is blocked, read the reason and follow it."
)


def system_prompt(provider: str, cwd: str) -> str:
    """The agent's prompt; the embedded local model gets its own short one (a 135M model answers, it
    does not plan agent work)."""
    return LOCAL_SYSTEM_PROMPT if provider == "local" else AGENT_PROMPT.format(cwd=cwd)
