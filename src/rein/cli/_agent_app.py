"""`rein [OPTIONS] [PROMPT]...`: the agent's command line, parsed before the agent runtime loads, so
`rein --help` and a usage error cost next to nothing. argparse, not typer: see `rein.cli._argparse`.

    parsed = parse(args, prog="rein")   # AgentOptions, or an exit code (help shown, usage error told)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rein import __version__
from rein.cli import COMMANDS
from rein.cli._argparse import Option, UsageError, build
from rein.cli._argparse import parse as parse_args
from rein.cli._help import HelpPage, render, usage_error, wants_help

Approve = Literal["ask", "auto", "deny"]
APPROVE: tuple[Approve, ...] = ("ask", "auto", "deny")

OPTIONS = (
    Option(("-p", "--print"), None, "Run one prompt, print the reply, exit.", dest="print_mode"),
    Option(("--mode",), "<text|json>", "Output of -p: text, or JSON events, one per line.", ("text", "json")),
    Option(
        ("--provider",),
        "<name>",
        "anthropic, openai, openai-responses, local or faux (default: from your keys, else local).",
    ),
    Option(("--model",), "<id>", "Model id (default: the provider's); for local, a GGUF file."),
    Option(("--base-url",), "<url>", "An OpenAI- or Anthropic-compatible server (Ollama, vLLM, llama.cpp)."),
    Option(
        ("-c", "--continue"),
        None,
        "Continue the last session of this directory (with --server: its last one on the server).",
        dest="resume_latest",
    ),
    Option(("--resume",), "<id|file>", "Resume a session: its id, the start of its id, or its file."),
    Option(("--cwd",), "<dir>", "Project directory (default: here)."),
    Option(
        ("--server",),
        "<url>",
        "Keep the session on a `rein serve` server, which calls the model (default: $REIN_SERVER_URL;"
        " token: $REIN_SERVER_TOKEN). --model asks it for a model; --provider/--base-url are refused.",
    ),
    Option(("--session",), "<id>", "With --server: continue the server's session with this id."),
    Option(
        ("--approve",),
        "<ask|auto|deny>",
        "Tool calls that change things: ask first, run them, or refuse them (default: the settings'"
        " [rein] approve, else ask; -p and JSON mode never wait for an answer).",
        APPROVE,
    ),
    Option(("--no-extensions",), None, "Do not load user extensions."),
    Option(("--version",), None, "Print rein's version."),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentOptions:
    """What `rein` was asked to do; one field per option."""

    prompt: tuple[str, ...] = ()
    print_mode: bool = False
    mode: Literal["text", "json"] = "text"
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    resume_latest: bool = False
    resume: str | None = None
    """A session id, the start of one, or a session file (`rein.session.find_session`)."""
    cwd: Path | None = None
    server: str | None = None
    session: str | None = None
    no_extensions: bool = False
    approve: Approve | None = None
    line_by_line: bool = False
    """Interactive with stdin not a terminal: prompts come line by line and nobody can answer a question."""

    @property
    def headless(self) -> bool:
        """Print or JSON mode: one prompt, no person at the keyboard to ask."""
        return self.print_mode or self.mode == "json"


def page(prog: str) -> HelpPage:
    """`rein --help`: the agent's options and every command, one page for both forms."""
    return HelpPage(
        usage=(f"{prog} [OPTIONS] [PROMPT]...", f"{prog} COMMAND [ARGS]..."),
        summary="A coding agent with stream rules and steering.",
        details="`rein` starts the interactive agent, `rein PROMPT` starts it with a first prompt, `rein -p"
        " PROMPT` runs one prompt and prints the reply. A first word that names a command runs the"
        " command: put `--` before a prompt that starts with one (`rein -- check the tests`)."
        "\n\nExit status: 0 success, 1 the run failed (a model error, aborted, the session could not be"
        " saved), 2 usage or input error (a bad option, settings file or session file).",
        arguments=(
            ("PROMPT...", "The first prompt (interactive), or the prompt (-p; read from stdin when absent)."),
        ),
        options=tuple(option.row for option in OPTIONS),
        commands=tuple((name, summary) for name, (_, summary) in COMMANDS.items()),
    )


def parse(args: list[str], prog: str = "rein") -> AgentOptions | int:
    """The options `args` ask for, or the exit code when parsing ended the run: 0 after `--help` or
    `--version`, 2 after a usage error (told on stderr in one line)."""
    if wants_help(args):
        print(render(page(prog)), end="")
        return 0
    try:
        values = parse_args(build(prog, OPTIONS, "prompt"), args, "prompt")
    except UsageError as error:
        return usage_error(prog, str(error))
    if values.version:
        print(f"rein {__version__}")
        return 0
    return AgentOptions(
        prompt=tuple(values.prompt),
        print_mode=values.print_mode,
        mode="json" if values.mode == "json" else "text",
        provider=values.provider,
        model=values.model,
        base_url=values.base_url,
        resume_latest=values.resume_latest,
        resume=values.resume,
        cwd=Path(values.cwd) if values.cwd is not None else None,
        server=values.server,
        session=values.session,
        no_extensions=values.no_extensions,
        approve=next((choice for choice in APPROVE if choice == values.approve), None),
    )
