"""The typer side of rein's CLI: commands whose help is rendered by `rein.cli._help` (the layout the
light paths print too), usage errors as one line, and exits as codes instead of process exits.

    app = plain_app("List and test stream rules (TTSR).")

    @command(app, "list")
    def list_rules(...) -> None: ...

    code = run_app(app, args, prog)          # 0, or typer.Exit's code, or 2 for a usage error

typer 0.29 carries its own copy of click (`typer._click`): the command, context and exception types
come from there, and this is the one module that names them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from typer._click import Command, Context, HelpFormatter
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from rein.cli._help import HelpPage, render, usage_error

F = TypeVar("F", bound=Callable[..., Any])
SETTINGS: dict[str, list[str]] = {"help_option_names": ["-h", "--help"]}


def plain_app(summary: str, *, no_args_is_help: bool = False) -> typer.Typer:
    """A typer app for a rein command: plain help, `-h` and `--help`, no shell-completion options."""
    return typer.Typer(
        add_completion=False,
        help=summary,
        no_args_is_help=no_args_is_help,
        rich_markup_mode=None,
        cls=PlainGroup,
        context_settings=dict(SETTINGS),
    )


def command(app: typer.Typer, name: str | None = None) -> Callable[[F], F]:
    """`app.command` for a command that renders its help with rein's layout."""
    decorator: Callable[[F], F] = app.command(name, cls=PlainCommand, context_settings=dict(SETTINGS))
    return decorator


def run_app(app: typer.Typer, args: list[str], prog: str) -> int:
    """Run `app` on `args`; the exit code: 0 when the command returned (or showed its help),
    `typer.Exit`'s code, 2 for a usage error (told on stderr in one line), 1 for a closed stdout."""
    try:
        # without standalone mode, typer returns typer.Exit's code (and the command's own value)
        result = typer.main.get_command(app).main(args=args, prog_name=prog, standalone_mode=False)
    except NoArgsIsHelpError as error:
        print(error.ctx.get_help(), file=sys.stderr)
        return 2
    except UsageError as error:
        where = error.ctx.command_path if error.ctx else prog
        return usage_error(where, _sentence(error.format_message()))
    except ClickException as error:
        print(f"{prog}: {_sentence(error.format_message())}", file=sys.stderr)
        return error.exit_code
    except typer.Abort:
        return 1
    except SystemExit as stop:  # typer's own answer to a closed stdout (EPIPE): exit 1, quietly
        return stop.code if isinstance(stop.code, int) else 1
    return result if isinstance(result, int) else 0


def page_of(command: Command, ctx: Context) -> HelpPage:
    """A click command's help as a `HelpPage`: its docstring's first paragraph is the summary."""
    summary, _, details = (command.help or "").strip().partition("\n\n")
    params = command.get_params(ctx)
    arguments = tuple(_argument_row(p) for p in params if isinstance(p, TyperArgument) and not p.hidden)
    options = tuple(_option_row(p) for p in params if isinstance(p, TyperOption) and not p.hidden)
    pieces = ["[OPTIONS]", *(_usage_piece(p) for p in params if isinstance(p, TyperArgument))]
    commands: tuple[tuple[str, str], ...] = ()
    if isinstance(command, TyperGroup):
        pieces.append("COMMAND [ARGS]...")
        listed = ((name, command.get_command(ctx, name)) for name in command.list_commands(ctx))
        commands = tuple((name, _summary(sub)) for name, sub in listed if sub and not sub.hidden)
    return HelpPage(
        usage=(" ".join([ctx.command_path, *pieces]),),
        summary=" ".join(summary.split()),
        details=details.replace("\b", ""),
        arguments=arguments,
        options=options,
        commands=commands,
    )


class PlainCommand(TyperCommand):
    """A typer command whose help is rein's layout."""

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        formatter.write(render(page_of(self, ctx)))


class PlainGroup(TyperGroup):
    """A typer group whose help is rein's layout."""

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        formatter.write(render(page_of(self, ctx)))


def _summary(command: Command) -> str:
    return " ".join((command.short_help or command.help or "").strip().split("\n\n")[0].split())


def _name(param: TyperArgument | TyperOption) -> str:
    return param.metavar or (param.name or "value").upper()


def _usage_piece(param: TyperArgument) -> str:
    many = "..." if param.nargs == -1 else ""
    return f"{_name(param)}{many}" if param.required else f"[{_name(param)}]{many}"


def _argument_row(param: TyperArgument) -> tuple[str, str]:
    return _name(param) + ("..." if param.nargs == -1 else ""), param.help or ""


def _option_row(param: TyperOption) -> tuple[str, str]:
    term = ", ".join(sorted(param.opts, key=lambda opt: opt.startswith("--")))  # -h before --help
    if not param.is_flag and not param.count:
        term += f" {param.metavar or '<' + (param.name or 'value') + '>'}"
    return term, param.help or ""


def _sentence(message: str) -> str:
    """A click message as a clause of rein's one-line errors: one line, lower-case start, no stop."""
    text = " ".join(message.split()).rstrip(".").replace("Value error, ", "")  # typer's coercion prefix
    return text[:1].lower() + text[1:]
