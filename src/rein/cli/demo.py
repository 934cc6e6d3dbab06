"""`rein demo`: an agent session with a stream rule and steering on, then steering on telling commands.
No API key, no network.

By default the session runs on the embedded local model (SmolLM2-135M through llama.cpp): the stream
rule fires on text the model really generates, and what the model does after the cut and after a
blocked command is reported as it happened. `rein demo --scripted` (and a machine without the local
model) runs the same session on scripted replies, which the faux provider streams in small pieces as
a real model would. Either way the rule is injected and the turn retried, the steering engine blocks
a command, and the session is written to a session file in a scratch directory.

Exit codes: 0 the demo ran, 2 a usage error (an unknown option).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Annotated

import typer
from rich.console import Console

from rein.ai import Context, FauxProvider, Model, TextContent, ToolCall, ToolResultMessage
from rein.ai.providers.faux import FauxTurn
from rein.ai.providers.local_files import INSTALL_HINT, local_available
from rein.cli._demo_local import local_report, local_setup
from rein.cli._demo_session import Setup, run_session
from rein.cli._demo_steering import steering_demo
from rein.cli._typer import command, plain_app, run_app

FIRST_TRY = """Here is the function:

```js
export function total(items) {
  const sum = items.reduce((a, b) => a + b.price, 0);
  console.log("total", sum);
  return sum;
}
```
"""

SECOND_TRY = """Here is the function, using the project's logger:

```js
import { log } from "./log.js";

export function total(items) {
  const sum = items.reduce((a, b) => a + b.price, 0);
  log.info("total", { sum });
  return sum;
}
```
"""


def _after_block(context: Context) -> FauxTurn:
    last = context.messages[-1]
    blocked = isinstance(last, ToolResultMessage) and last.is_error
    text = "The push was blocked: I will not force-push. I pushed nothing; shall I open a PR instead?"
    return [TextContent(text=text if blocked else "Pushed.")]


SCRIPT: list[FauxTurn | Callable[[Context], FauxTurn]] = [
    [TextContent(text=FIRST_TRY)],
    [TextContent(text=SECOND_TRY)],
    [
        TextContent(text="I'll publish the branch."),
        ToolCall(id="push-1", name="bash", arguments={"command": "git push --force origin main"}),
    ],
    _after_block,
]


SCRIPTED = Setup(
    title="scripted replies on the faux provider; the engines are real",
    provider=FauxProvider(SCRIPT, chunk_size=6, delay=0.01),
    model=Model(provider="faux", id="scripted"),
    prompts=("Write total(items) in JavaScript.", "Publish this branch."),
)


app = plain_app("A session on the embedded local model: a stream rule cuts a reply, a command is blocked.")


@command(app)
def demo(
    scripted: Annotated[
        bool,
        typer.Option("--scripted", help="Scripted replies on the faux provider instead of the local model."),
    ] = False,
) -> None:
    """A session on the embedded local model (no API key, no network): a stream rule cuts a reply and
    the turn is retried, steering blocks a command; then `rein check` and `rein explain` on a few
    commands.

    Without the local model installed, the same session runs on scripted replies.
    """
    raise typer.Exit(_demo(scripted))


def run(args: list[str], prog: str = "rein demo") -> int:
    return run_app(app, args, prog)


def _demo(scripted: bool) -> int:
    os.environ.setdefault("COLUMNS", "100")
    console = Console(highlight=False)
    if scripted or not local_available():
        if not scripted:
            console.print(
                f"[yellow]The embedded local model is not installed ({INSTALL_HINT}); "
                "showing the scripted demo.[/]"
            )
        code = asyncio.run(run_session(console, SCRIPTED, None))
    else:
        code = asyncio.run(run_session(console, local_setup(), local_report(console)))
    steering_demo(console)
    return code
