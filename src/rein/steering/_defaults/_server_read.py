"""How `no-dev-server` reads a command against its `Tool` entry: the operands, the options that turn
watching (or following) on or off, the subcommand that serves, and a package script's name.

Most tools' options are not all known to rein, so the subcommand is read two ways: every word that is
no option (`flask --debug run`), and every word that also follows no option (`flask --app app run`).
A tool serves if either reading says so; a word rein cannot read (`next $CMD`) may be the serving
subcommand, which is UNKNOWN, while a glob is read by its pattern (`_server_words`: `jest src/*.test.js`
names files, never `--watch`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from rein.steering._args import Args, read
from rein.steering._defaults._server_kit import FALSY, Flags, Tool
from rein.steering._defaults._server_tables import QUIET_VERBS, SERVING_WORDS
from rein.steering._defaults._server_words import may_be, may_be_option
from rein.steering._rule import Tri
from rein.steering.bash import UNKNOWN, Unknown, Word
from rein.steering.bash.commands import Options

Words = Sequence[Word]


def tool_serves(tool: Tool, args: Words, own: Words | None = None) -> Tri:
    """Whether a tool given `args` never exits. `own`: the words its own options are read from (a
    runner's end before the command it runs, `watch -n1 grep -q x`)."""
    own = args if own is None else own
    if flag(own, tool.exits):
        return False
    watched = flag(own, tool.watch)
    if watched:
        return True
    if tool.watching and watched is False:  # `vitest --watch=false`, `ng test --no-watch`
        return False
    served = _subcommand(tool, args)
    return UNKNOWN if served is False and may_be_option(own, tool.watch) else served  # `jest --$MODE`


def readings(args: Words) -> tuple[list[int], list[int]]:
    """The operands' indices, read two ways: every word that is no option, and those that also follow
    no option without `=` (`flask --app app run`; `vite --port 3000` has none)."""
    plain: list[int] = []
    skipping: list[int] = []
    after_option = False
    for index, word in enumerate(args):
        value = word.value
        if value == "--" and not word.dynamic:
            break
        if value.startswith("-") and value != "-":
            after_option = "=" not in value
            continue
        plain.append(index)
        if not after_option:
            skipping.append(index)
        after_option = False
    return plain, skipping


def _subcommand(tool: Tool, args: Words) -> Tri:
    """Whether its subcommand serves: yes if either reading says so; UNKNOWN if the stricter reading's
    subcommand is a word rein cannot read that may serve."""
    plain, skipping = readings(args)
    if tool.quiet is not None:  # it serves unless told one of its other subcommands
        answers = [_unquiet(tool.quiet, args[found[0]]) for found in (plain, skipping) if found]
        if "" in tool.serves and not (plain and skipping):
            answers.append(True)  # given none, it serves (`vite --port 3000`); `ping` needs a host
        return False if False in answers else True if True in answers else UNKNOWN if answers else False
    answers = [_named(tool, args, found) for found in (plain, skipping)]
    return True if True in answers else answers[1]


def _unquiet(quiet: frozenset[str], word: Word) -> Tri:
    if not word.dynamic:
        return word.value not in quiet
    return True if maybe(word, quiet) is False else UNKNOWN


def _named(tool: Tool, args: Words, found: list[int]) -> Tri:
    if not found:
        return "" in tool.serves
    word = args[found[0]]
    if word.dynamic:  # a serving subcommand, or the watch option (`jest $X`; not `jest src/*.test.js`)
        return UNKNOWN if may_be(word, tool.serves, tool.watch) else False
    second = args[found[1]] if len(found) > 1 else None
    pair = f"{word.value} {second.value}" if second is not None else word.value
    if pair in tool.stops:  # `jupyter lab build`
        return False
    if second is not None and second.dynamic and word.value in tool.serves and tool.stops:
        return UNKNOWN if may_be(second, (name.split()[1] for name in tool.stops)) else True
    return word.value in tool.serves or pair in tool.serves


def maybe(word: Word, names: Iterable[str]) -> Tri:
    """UNKNOWN when a word rein cannot read fully may be one of `names`, else False."""
    return UNKNOWN if may_be(word, names) else False


def flag(args: Words, flags: Flags) -> bool | None:
    """True: one of `flags` is on (`--watch`, `--watch=src`, `-w`, `-cw` where short flags bundle,
    `-watch` as tsc reads it); False: only turned off (`--no-watch`, `--watch=false`); None: not given."""
    found: bool | None = None
    for word in args:
        value = word.value
        if value == "--":
            break
        if word.dynamic or not value.startswith("-") or len(value) < 2:
            continue
        name, eq, setting = value[2:].partition("=")
        if value.startswith("--") and name in flags.longs:
            on = not eq or setting.lower() not in FALSY
        elif value.startswith("--no-") and name[3:] in flags.longs:
            on = False
        elif value.startswith("--") or not _short(value[1:], flags):
            continue
        else:
            on = True
        if on:
            return True
        found = False
    return found


def _short(letters: str, flags: Flags) -> bool:
    """`-w`, `-watch` (tsc reads long options with one dash), `-cw` where short flags bundle."""
    bundled = flags.bundles and letters.isalpha() and bool(set(letters) & set(flags.shorts))
    return letters in flags.longs or letters[0] in flags.shorts or bundled


def any_of(answers: Iterable[Tri]) -> Tri:
    """Three-valued OR: True if any is, else UNKNOWN if any is, else False."""
    found: Tri = False
    for answer in answers:
        if answer is True:
            return True
        if isinstance(answer, Unknown):
            found = answer
    return found


def scripted(name: str) -> bool:
    """A package script (or task) name that serves: a part serves (`dev`, `dev:web`, `web:dev`,
    `/^watch:/`), unless the first part is a verb that does not (`build:dev` builds in development
    mode), which only a `watch` part makes watch (`test:watch`)."""
    parts = [part for part in re.split(r"[^A-Za-z0-9]+", name) if part]
    if parts[:1] and parts[0] in QUIET_VERBS:
        return "watch" in parts[1:]
    return any(part in SERVING_WORDS for part in parts)


def task(word: Word) -> Tri:
    """A script or task named by a word: UNKNOWN when rein cannot read the name (`npm run "$S"`)."""
    return UNKNOWN if word.dynamic else scripted(word.value)


def argv(name: str, args: Words) -> tuple[Word, ...]:
    return (Word.literal(name), *args)


def before_dashdash(args: Args) -> list[Word]:
    after = len(args.after_dashdash or ())
    return list(args.operands[: len(args.operands) - after])


def read_both(words: Words, options: Options) -> list[Args]:
    """`words` (a command's argv) read with `options`, and again with every option the table does not
    know taking the next word, as npm's nopt gives one it does not know."""
    first = read(words, 1, options)
    names = {entry.split()[0][2:].partition("=")[0] for entry in first.unknown_options if entry[:2] == "--"}
    if not names:
        return [first]
    return [
        first,
        read(words, 1, replace(options, long={**options.long, **dict.fromkeys(names, "required")})),
    ]
