"""git as git reads it: global options, configuration that changes what a subcommand does, aliases,
abbreviated options, and the subcommands that run other commands.

`read_git` rewrites a git argv to what git will do, so a rule reads the meaning: an alias is expanded
(`git -c alias.p='push -f' p` is `git push -f`), abbreviations are written out (`reset --har` is
`reset --hard`), and configuration that turns a plain subcommand into a forced one is made explicit
(`remote.origin.push=+...` or `remote.origin.mirror=true` force `git push`; `clean.requireForce=false`
makes `git clean` delete). It also says what git runs itself: `rebase --exec`, `bisect run`,
`submodule foreach`, `filter-branch` filters, `difftool -x`, command-valued configuration, `!` aliases.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from rein.steering.bash.commands._git_checkout import disambiguate
from rein.steering.bash.commands._git_config import (
    COMMAND_ENV,
    Config,
    config_view,
    is_command_key,
    setting,
)
from rein.steering.bash.commands._git_hooks import external, hooks
from rein.steering.bash.commands._git_options import GIT_COMMANDS, GIT_GLOBAL, git_spec
from rein.steering.bash.commands._inner import NOTHING, Argv, Call, Inner, Unwrapped, Value, run, script
from rein.steering.bash.commands._options import Options, normalize, parse
from rein.steering.bash.model import Expansion, Unknown, Word

_MAX_ALIASES = 16
_FALSE = frozenset({"false", "no", "off", "0", ""})


_last: list[tuple[Argv, int]] = []


def subcommand_index(argv: Argv) -> int:
    """The index of git's subcommand (len(argv) when there is none). The last answer is kept: the
    walker and every git rule ask it of the same argv in a row."""
    if _last and _last[0][0] is argv:
        return _last[0][1]
    index = parse(argv, 1, GIT_GLOBAL).rest
    _last[:] = [(argv, index)]
    return index


def read_git(call: Call) -> tuple[Call, tuple[str, ...], Unwrapped]:
    """The command as git will act on it, why that differs from what was written, and what git runs."""
    config = config_view(call)
    argv, whys, notes = _normalized(call.argv, config)
    index = subcommand_index(argv)
    if index < len(argv) and argv[index].value == "checkout":
        argv, why = disambiguate(call, config, argv, index)
        whys = (*whys, why) if why else whys
    if argv is not call.argv:
        call = replace(call, argv=argv)
    found = _runs(call, config)
    return call, whys, Unwrapped(found.inners, (*notes, *found.notes))


def _normalized(argv: Argv, config: Config) -> tuple[Argv, tuple[str, ...], tuple[str, ...]]:
    """The argv git will act on, why it differs from the one written, and what is unknown about it."""
    whys: list[str] = []
    notes: list[str] = []
    seen: set[str] = set()
    while True:
        index = subcommand_index(argv)
        if index >= len(argv):
            return argv, tuple(whys), tuple(notes)
        head = argv[index]
        name = head.value
        if head.dynamic or name in GIT_COMMANDS or len(seen) >= _MAX_ALIASES or name.lower() in seen:
            break
        value = config.get(f"alias.{name.lower()}")
        if value is None:
            break
        seen.add(name.lower())
        if isinstance(value, Unknown):
            notes.append(f"git alias '{name}' is set to a value not known statically")
            break
        if value.startswith("!"):
            break  # a shell alias: `runs` walks it
        words = tuple(Word.literal(word) for word in _split(value))
        argv = (*argv[:index], *words, *argv[index + 1 :])
        source = config.source(f"alias.{name.lower()}")
        whys.append(f"'git {name}' is the alias 'git {value}'" + (f" ({source.where})" if source else ""))
    sub = argv[index].value
    spec = git_spec(sub)
    if spec is not None:
        argv = normalize(argv, index + 1, spec)
    forced, why, key = _forced_by_config(argv, index, sub, spec, config)
    if forced is not None:
        argv = (*argv, forced)
        source = config.source(key)
        whys.append(why + (f" ({source.where})" if source else ""))
    return argv, tuple(whys), tuple(notes)


def _forced_by_config(
    argv: Argv, index: int, sub: str, spec: Options | None, config: Config
) -> tuple[Word | None, str, str]:
    """A flag the configuration adds (`--force`/`--mirror` to a push, `--force` to a clean), why, and
    the key that adds it."""
    if spec is None or sub not in ("push", "clean"):
        return None, "", ""
    parsed = parse(argv, index + 1, spec)
    if sub == "push" and not parsed.has("--force", "-f", "--mirror"):
        remote = parsed.operands[0].value if parsed.operands else _default_remote(config)
        key = f"remote.{remote}.mirror"
        mirror = config.get(key)
        if mirror is not None and (isinstance(mirror, Unknown) or mirror.lower() not in _FALSE):
            return _flag("--mirror", mirror), f"remote.{remote}.mirror makes this push a mirror push", key
        key = f"remote.{remote}.push"
        refspec = config.get(key)
        forced = isinstance(refspec, Unknown) or (refspec is not None and refspec.startswith("+"))
        if len(parsed.operands) < 2 and refspec is not None and forced:
            return _flag("--force", refspec), f"remote.{remote}.push is a forced refspec ({refspec})", key
    if sub == "clean" and not parsed.has("-f", "--force", "-n", "--dry-run", "-i", "--interactive"):
        required = config.get("clean.requireforce")
        if required is not None and (isinstance(required, Unknown) or required.lower() in _FALSE):
            why = "clean.requireForce=false lets git clean delete without -f"
            return _flag("--force", required), why, "clean.requireforce"
    return None, "", ""


def _flag(name: str, value: Value) -> Word:
    if isinstance(value, str):
        return Word.literal(name)
    return Word(value=name, raw=name, parts=(Expansion(kind="option", raw=name),))


def _default_remote(config: Config) -> str:
    value = config.get("remote.pushdefault")
    return value if isinstance(value, str) else "origin"


def _split(value: str) -> list[str]:
    """git's split_cmdline: words split on blanks, single and double quotes group, backslash escapes."""
    words: list[str] = []
    current: list[str] = []
    quote = ""
    started = False
    escape = False
    for char in value:
        if escape:
            current.append(char)
            escape = False
        elif char == "\\" and quote != "'":
            escape = True
        elif quote:
            if char == quote:
                quote = ""
            else:
                current.append(char)
        elif char in "'\"":
            quote, started = char, True
        elif char.isspace():
            if current or started:
                words.append("".join(current))
            current, started = [], False
        else:
            current.append(char)
    if current or started:
        words.append("".join(current))
    return words


def _runs(call: Call, config: Config) -> Unwrapped:
    """What git runs itself, besides the subcommand: from options, configuration and aliases."""
    argv = call.argv
    inners: list[Inner] = []
    notes: list[str] = []
    for key, value in config.items():
        if is_command_key(key) and key in config.given:
            _command(inners, notes, f"git -c {key}", value)
    for name in COMMAND_ENV:
        command = call.state.env.get(name)
        if isinstance(command, str) and command:
            inners.append(Inner(f"git {name}", "maybe", script=command, why=f"git runs ${name}"))
    for key, configured in config.disk.items():  # commands the agent put in a configuration file
        if not configured.lenient and is_command_key(key) and config.source(key) is not None:
            text = configured.text.removeprefix("!")
            inners.append(
                Inner(f"git {key}", "maybe", script=text, why=f"git runs {key}", origin=configured.where)
            )
    index = subcommand_index(argv)
    if index >= len(argv):
        return Unwrapped(tuple(inners), tuple(notes))
    sub = argv[index].value
    rest_words = argv[index + 1 :]
    alias = config.get(f"alias.{sub.lower()}") if sub not in GIT_COMMANDS else None
    if isinstance(alias, str) and alias.startswith("!"):
        rest = tuple(word.value for word in rest_words)
        inner = Inner(f"git alias {sub}", "child", script=alias[1:], args=(alias[1:], *rest))
        source = config.source(f"alias.{sub.lower()}")
        if source is not None:
            dynamic = any(word.dynamic for word in rest_words)
            inner = replace(inner, origin=source.where, lenient=source.lenient and not dynamic)
        inners.append(inner)
    elif alias is None and not argv[index].dynamic and sub not in GIT_COMMANDS:
        program = external(call, sub, rest_words)
        inners.extend([program] if program is not None else [])
    handler = _SUBCOMMANDS.get(sub)
    if handler is not None:
        found = handler(argv, index)
        inners.extend(found.inners)
        notes.extend(found.notes)
    if config.repo is not None:
        inners.extend(hooks(call, config.repo, config, sub, rest_words))
    return Unwrapped(tuple(inners), tuple(notes))


def _command(inners: list[Inner], notes: list[str], label: str, value: Value) -> None:
    if isinstance(value, Unknown):
        notes.append(f"{label} is set to a command not known statically")
    elif value:
        inners.append(Inner(label, "maybe", script=value.removeprefix("!"), why=f"git runs {label}"))


def _bisect(argv: Argv, index: int) -> Unwrapped:
    if index + 1 < len(argv) and argv[index + 1].value == "run":
        return run("git bisect run", "maybe", argv[index + 2 :])
    return NOTHING


def _submodule(argv: Argv, index: int) -> Unwrapped:
    words = [word.value for word in argv[index + 1 :]]
    if "foreach" not in words:
        return NOTHING
    start = index + 2 + words.index("foreach")
    while start < len(argv) and argv[start].value in ("--recursive", "--"):
        start += 1
    return script("git submodule foreach", "maybe", argv[start:], "git submodule foreach command")


def _valued(*names: str) -> Callable[[Argv, int], Unwrapped]:
    """Options whose value is a command git runs through the shell."""

    def handler(argv: Argv, index: int) -> Unwrapped:
        sub = argv[index].value
        parsed = parse(argv, index + 1, git_spec(sub) or Options())
        inners: list[Inner] = []
        notes: list[str] = []
        for name, value in parsed.options:
            if name in names and value is not None:
                found = script(f"git {sub} {name}", "maybe", (value,), f"git {sub} {name} command")
                inners.extend(found.inners)
                notes.extend(found.notes)
        return Unwrapped(tuple(inners), tuple(notes))

    return handler


def _config(argv: Argv, index: int) -> Unwrapped:
    """`git config K V` lasts past this command: what it makes later commands do is checked now."""
    change = setting(argv, index)
    if change is None:
        return NOTHING
    key, value = change
    if value is None:
        return NOTHING
    if key in ("core.hookspath", "include.path") or (key.startswith("includeif.") and key.endswith(".path")):
        return Unwrapped(
            notes=(f"git config sets {key}: later git commands run hooks or read configuration from it",)
        )
    if isinstance(value, Unknown):
        if key.startswith("alias.") or is_command_key(key) or key.endswith((".push", ".mirror")):
            return Unwrapped(notes=(f"git config sets {key} to a value not known statically",))
        return NOTHING
    later = f"after this, git reads {key}={value}"
    if key.startswith("alias."):
        if value.startswith("!"):
            return Unwrapped((Inner("git config", "later", script=value[1:], why=later),))
        words = tuple(Word.literal(word) for word in ["git", *_split(value)])
        return Unwrapped((Inner("git config", "later", argv=words, why=later),))
    if is_command_key(key):
        return Unwrapped((Inner("git config", "later", script=value.removeprefix("!"), why=later),))
    flag = _persisted_flag(key, value)
    if flag is None:
        return NOTHING
    return Unwrapped((Inner("git config", "later", argv=_literal(flag), why=later),))


def _persisted_flag(key: str, value: str) -> tuple[str, ...] | None:
    if key.startswith("remote.") and key.endswith(".push") and value.startswith("+"):
        return ("git", "push", "--force")
    if key.startswith("remote.") and key.endswith(".mirror") and value.lower() not in _FALSE:
        return ("git", "push", "--mirror")
    if key == "clean.requireforce" and value.lower() in _FALSE:
        return ("git", "clean", "--force")
    return None


def _remote(argv: Argv, index: int) -> Unwrapped:
    """`git remote add --mirror[=push] NAME URL`: a later push to NAME is `git push --mirror`."""
    words = [word.value for word in argv[index + 1 :]]
    if "add" not in words or not any(word in ("--mirror", "--mirror=push") for word in words):
        return NOTHING
    why = "after this, git pushes to the remote as a mirror"
    return Unwrapped((Inner("git remote add", "later", argv=_literal(("git", "push", "--mirror")), why=why),))


def _literal(words: tuple[str, ...]) -> Argv:
    return tuple(Word.literal(word) for word in words)


_SUBCOMMANDS: dict[str, Callable[[Argv, int], Unwrapped]] = {
    "remote": _remote,
    "rebase": _valued("-x", "--exec"),
    "bisect": _bisect,
    "submodule": _submodule,
    "config": _config,
    "filter-branch": _valued(
        "--env-filter",
        "--tree-filter",
        "--index-filter",
        "--parent-filter",
        "--msg-filter",
        "--commit-filter",
        "--tag-name-filter",
    ),
    "difftool": _valued("-x", "--extcmd"),
    "clone": _valued("-u", "--upload-pack"),
    "fetch": _valued("--upload-pack"),
    "pull": _valued("--upload-pack"),
    "ls-remote": _valued("--upload-pack", "--exec"),
    "push": _valued("--receive-pack", "--exec"),
    "grep": _valued("-O", "--open-files-in-pager"),
    "send-email": _valued("--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd"),
    "instaweb": _valued("--httpd", "-d"),
    "archive": _valued("--exec"),
}
