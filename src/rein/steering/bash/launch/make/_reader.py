"""What a GNU makefile launches: every recipe line of every rule (rein cannot know which targets run,
so it checks them all), each `$(shell ...)` wherever it appears, and `VAR != command`.

Read as GNU make reads a makefile: logical lines, comments outside recipes, rules (`::`, `;` recipes,
pattern, static pattern and grouped targets, target-specific variables), recipe lines after a rule
(a tab or `.RECIPEPREFIX`), assignments (`=`, `:=`, `::=`, `:::=`, `?=`, `+=`, `!=`, `define`,
`override`, `export`, `undefine`), both branches of every conditional (`_make_branches`), `$(eval)`
text, `.ONESHELL`, `.SECONDEXPANSION`. Recipes are expanded after the whole text is read, with every
value a variable may end up with (`_make_expand`, `_make_recipes`); `env` holds environment
variables make imports. A makefile that sets a variable of make's built-in rules (`CC`, `CFLAGS`)
has those recipes checked too (`_make_builtin`). `include` reads the makefiles it names through
the caller's `include` (files on disk), else they are not read; `load` is not. With `goals`, only
the recipes make runs for them (and their prerequisites') are read. Command-line variables (`make
CC=x`) are not in the text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from rein.steering.bash.launch._launch import RUNTIME, Launch
from rein.steering.bash.launch.make._branches import Branches, capped
from rein.steering.bash.launch.make._builtin import DEFAULTS, REACH, RULES
from rein.steering.bash.launch.make._expand import Alt, Expander, Scope, Value, Values
from rein.steering.bash.launch.make._recipes import Rule, recipe_launches
from rein.steering.bash.launch.make._text import (
    Assignment,
    assignment,
    find,
    first_word,
    join_continued,
    modifiers,
    odd_backslashes,
    strip_comment,
)

_CONDITIONAL = re.compile(r"(ifeq|ifneq|ifdef|ifndef|else|endif)(?=[\s(\"']|\Z)")
_FILES = frozenset({"include", "-include", "sinclude", "vpath", "load", "-load"})
_MENTIONS = re.compile(r"\t|shell|eval|!=|RECIPEPREFIX|guile")
_LAUNCHING = re.compile(r"shell|eval|call|guile")
"""What a deferred value must name to launch anything when it is expanded (`$(call $(f),x)` with
`f = shell` names call)."""
_UNBOUND = {str(number): (Alt(RUNTIME),) for number in range(10)}
"""A deferred value is scanned for its `$(shell)`s out of the `$(call)` that gives `$(1)`.. values:
they are file names or words of the makefile's, not unknown (the call itself is read where it is)."""
_MAKES = ("CURDIR", "MAKEFLAGS", "MAKECMDGOALS", "MAKELEVEL", "MAKEFILE_LIST", "MAKE_VERSION")
"""Variables make sets from its own state: a directory, flags, goals; not known here, not commands."""
_MAX_EVALS = 64
_MAX_EVAL_DEPTH = 4


Include = Callable[[str], str | None]
"""Reads an included makefile by the name `include` gives it; None when it cannot be read."""
_MAX_INCLUDES = 16
_MAX_REACH = 4096


class _Reader:
    def __init__(self, env: Mapping[str, str], include: Include | None = None) -> None:
        self.include = include
        self.file = ""
        self.included = 0
        self.table: dict[str, Values] = {name: (Value(text, True),) for name, text in DEFAULTS.items()}
        self.table.update({name: (Value(text, True),) for name, text in env.items() if name != "SHELL"})
        self.table.update(dict.fromkeys(_MAKES, (Value(RUNTIME, False),)))
        self.assigned: set[str] = set()
        self.launches: list[Launch] = []
        self.rules: list[Rule] = []
        self.deferred: list[tuple[str, int]] = []
        self.errors: list[int] = []
        self.rule: Rule | None = None
        self.prefix = "\t"
        self.oneshell = False
        self.second_expansion = False
        self.depth = 0
        self.evals = 0
        self.expander = Expander(self.table, self.launches, self._evaluate)

    def _expand(self, text: str, line: int) -> list[Alt]:
        return self.expander.expand(text, Scope(line))

    def feed(self, text: str, line: int = 0) -> None:
        """Read makefile text; `line` numbers all its lines (an `$(eval)` text) when not 0."""
        lines = [line.removesuffix("\r") for line in text.split("\n")]  # make drops a CR before LF
        conditionals: list[Branches] = []
        at = 0
        while at < len(lines):
            number = line or at + 1
            if self.rule is not None and lines[at].startswith(self.prefix):
                recipe, at = self._recipe_line(lines, at)
                self.rule.recipe.append((recipe, number))
                continue
            logical, at = join_continued(lines, at)
            stripped = strip_comment(logical).lstrip()  # a value keeps its trailing blanks
            conditional = _CONDITIONAL.match(stripped)
            if not stripped.strip():
                continue
            if conditional is not None and assignment(stripped) is None:
                self._conditional(
                    conditional.group(1), stripped[conditional.end() :].strip(), number, conditionals
                )
            else:
                at = self._line(logical, stripped, number, lines, at)
        if conditionals:
            self.errors.append(len(lines))
        while conditionals:
            conditionals.pop().close(self.table)
        self.rule = None

    def _recipe_line(self, lines: list[str], at: int) -> tuple[str, int]:
        """A recipe line with its backslash-newline continuations, which stay (the shell reads
        them); a continuation line loses one leading recipe prefix."""
        text, at = lines[at][1:], at + 1
        while odd_backslashes(text, len(text)) and at < len(lines):
            following = lines[at]
            text += "\n" + (following[1:] if following.startswith(self.prefix) else following)
            at += 1
        return text, at

    def _line(self, logical: str, stripped: str, number: int, lines: list[str], at: int) -> int:
        found = assignment(stripped)
        if found is not None:
            self.rule = None
            self._assign(found, number)
            return at
        mods, rest = modifiers(stripped)
        word = first_word(rest)
        if word == "define":
            self.rule = None
            return self._define(rest[len(word) :].strip(), number, lines, at)
        if mods or word in _FILES or word == "undefine":
            self.rule = None
            found = assignment(rest) if mods else None
            if found is not None:
                self._assign(found, number)
            elif word == "undefine":
                for alt in self._expand(rest[len(word) :], number):
                    self.table.update(dict.fromkeys(alt.text.split(), (None,)))
            else:
                alts = self._expand(rest, number)  # an include or export list may hold a $(shell)
                if word in ("include", "-include", "sinclude") and self.include is not None:
                    self._include([name for alt in alts for name in alt.text.split()])
            return at
        if word == "endef":
            self.errors.append(number)
            return at
        self._rule_line(logical, stripped, number)
        return at

    def _include(self, names: list[str]) -> None:
        """Read the makefiles an `include` names, where they can be read (a bounded number)."""
        assert self.include is not None
        for name in dict.fromkeys(names):
            if RUNTIME in name or self.included >= _MAX_INCLUDES:
                continue
            text = self.include(name)
            if text is None:
                continue
            self.included += 1
            file, rule, self.file, self.rule = self.file, self.rule, name, None
            self.feed(text)
            self.file, self.rule = file, rule

    def _define(self, header: str, number: int, lines: list[str], at: int) -> int:
        """A multi-line variable: `define NAME [op]` ... `endef` (nested defines count)."""
        match = re.fullmatch(r"(.*?)\s*(:::=|::=|:=|\+=|\?=|!=|=)?", header)
        name, op = (match.group(1), match.group(2) or "=") if match else (header, "=")
        body: list[str] = []
        depth = 1
        while at < len(lines):
            word = first_word(lines[at])
            depth += 1 if word == "define" else -1 if word == "endef" else 0
            at += 1
            if not depth:
                self._assign(Assignment(name, op, "\n".join(body)), number)
                return at
            body.append(lines[at - 1])
        self.errors.append(number)
        return at

    def _assign(self, found: Assignment, number: int, *, target: bool = False) -> None:
        names = self._expand(found.name, number)
        if len(names) != 1 or names[0].unknown or RUNTIME in names[0].text:
            why = "the makefile sets a variable whose name is built at run time"
            self.launches.append(Launch(api="make", unknown=why, line=number))
            return
        name, op, value = names[0].text.strip(), found.op, found.value
        self.assigned.add(name)
        old = self.table.get(name)
        new: Values
        if op in (":=", "::=", ":::="):
            new = tuple(Value(alt.text, False, alt.unknown) for alt in self._expand(value, number))
        elif op == "!=":
            for alt in self._expand(value, number):
                self.launches.append(Launch(api="!=", shell=alt.text, unknown=alt.unknown, line=number))
            new = (Value(RUNTIME, False, "the output of a != assignment is known only at run time"),)
        elif op == "?=" and old and None not in old:
            new = old
        elif op == "?=" and old:
            new = tuple(Value(value, True) if old_value is None else old_value for old_value in old)
        elif op == "+=" and old:
            new = tuple(self._append(old_value, value, number) for old_value in old)
        else:
            new = (Value(value, True),)
        if op not in (":=", "::=", ":::=", "!=") and _LAUNCHING.search(value):
            self.deferred.append((value, number))
        if target:  # a target's own value: the other targets (and its prerequisites) see the old ones
            new = (*(old or (None,)), *new)
        self.table[name] = capped(new)
        if name == ".RECIPEPREFIX":
            text = self._expand(value, number)[0].text
            self.prefix = text[0] if text else "\t"

    def _append(self, old: Value | None, value: str, number: int) -> Value:
        if old is None:
            return Value(value, True)
        if old.recursive:
            return Value(f"{old.text} {value}" if old.text else value, True)
        alts = self._expand(value, number)
        text = alts[0].text if len(alts) == 1 else RUNTIME
        unknown = (
            old.unknown or alts[0].unknown or ("" if len(alts) == 1 else "a variable with several values")
        )
        return Value(f"{old.text} {text}" if old.text else text, False, unknown)

    def _conditional(self, word: str, rest: str, number: int, open_: list[Branches]) -> None:
        """Both branches may apply (see `_make_branches`); the conditions may hold a `$(shell)`."""
        if word.startswith("if"):
            self._expand(rest, number)
            open_.append(Branches(dict(self.table)))
        elif not open_:
            self.errors.append(number)
        elif word == "else":
            open_[-1].next_branch(self.table, plain=not rest)
            self._expand(rest, number)
        else:
            open_.pop().close(self.table)

    def _rule_line(self, logical: str, stripped: str, number: int) -> None:
        self.rule = None
        colon = find(stripped, ":")
        if colon >= 0:
            rest = stripped[colon + 1 :].removeprefix(":")
            found = assignment(modifiers(rest.strip())[1])
            if found is not None:  # target-specific variable: `target: VAR = value`
                self._expand(stripped[:colon], number)
                self._assign(found, number, target=True)
                return
        head, recipe = stripped, None
        separator = find(logical, ";#")
        if separator >= 0 and logical[separator] == ";":
            head, recipe = logical[:separator].strip(), logical[separator + 1 :]
        colon = find(head, ":")
        if colon < 0:
            alts = self._expand(head, number)
            expanded = next((alt.text for alt in alts if find(alt.text, ":") >= 0), None)
            if expanded is not None:  # the colon came from a variable
                self._rule_line(expanded + (f";{recipe}" if recipe is not None else ""), expanded, number)
            elif any(alt.text.strip() for alt in alts) or recipe is not None:
                self.errors.append(number)
            return
        targets, rest = head[:colon].rstrip().removesuffix("&"), head[colon + 1 :].removeprefix(":")
        static = None
        second = find(rest, ":")
        if second >= 0:
            static, rest = rest[:second], rest[second + 1 :]
        bar = find(rest, "|")
        prereqs, order = (rest[:bar], rest[bar + 1 :]) if bar >= 0 else (rest, "")
        patterns = self._words(static, number) if static is not None else ()
        rule = Rule(
            self._words(targets, number),
            self._words(prereqs, number),
            self._words(order, number),
            patterns[0] if patterns else None,
            number,
            file=self.file,
        )
        if recipe is not None:
            rule.recipe.append((recipe, number))
        self.oneshell = self.oneshell or ".ONESHELL" in rule.targets
        self.second_expansion = self.second_expansion or ".SECONDEXPANSION" in rule.targets
        self.rules.append(rule)
        self.rule = rule

    def _words(self, text: str, number: int) -> tuple[str, ...]:
        """The words of `text`: of each value it may have, in order (`$+` keeps repeated ones)."""
        alts = self._expand(text, number)
        if len(alts) == 1:
            return tuple(alts[0].text.split())
        return tuple(dict.fromkeys(word for alt in alts for word in alt.text.split()))

    def _evaluate(self, text: str, number: int, unknown: str) -> None:
        """`$(eval text)`: the text is read as makefile text, bounded."""
        if unknown:
            why = f"make evaluates makefile text built at run time ({unknown})"
            self.launches.append(Launch(api="$(eval)", unknown=why, line=number))
        if self.depth >= _MAX_EVAL_DEPTH or self.evals >= _MAX_EVALS:
            self.launches.append(
                Launch(api="$(eval)", unknown="$(eval) nests too deeply to read", line=number)
            )
            return
        rule, self.rule = self.rule, None
        self.depth, self.evals = self.depth + 1, self.evals + 1
        self.feed(text, number)
        self.depth, self.rule = self.depth - 1, rule

    def finish(self, goals: Sequence[str] | None = None) -> list[Launch]:
        """Expand every recipe (and every deferred value, for its `$(shell)`s) with the variables
        as the whole text left them. An `$(eval)` met here may add rules: they are read too. With
        `goals` (`[]`: make's default goal) only the recipes make would run for them are."""
        self.expander.scanning = True
        for value, number in self.deferred:
            self.expander.expand(value, Scope(number, bound=_UNBOUND))
        self.expander.scanning = False
        if self.second_expansion:
            for rule in list(self.rules):
                self._expand(" ".join(rule.prereqs), rule.line)
        for (target, prereq, recipe), reach in zip(RULES, REACH, strict=True):
            if self.assigned & reach:
                self.rules.append(Rule((target,), (prereq,), (), None, 0, [(recipe, 0)], builtin=True))
        done: set[int] = set()
        while True:
            wanted = range(len(self.rules)) if goals is None else _reached(self.rules, goals, self.table)
            todo = [index for index in wanted if index not in done]
            if not todo:
                return self.launches
            counts = Counter(target for rule in self.rules for target in set(rule.targets))
            for index in todo:
                done.add(index)
                self.launches.extend(recipe_launches(self.rules[index], self.expander, self.oneshell, counts))


def _reached(rules: Sequence[Rule], goals: Sequence[str], table: Mapping[str, Values]) -> list[int]:
    """The rules make runs to make `goals` (none: the default goal): each goal's rules, then their
    prerequisites', with pattern rules for the targets they match; bounded."""
    if not goals:
        default = table.get(".DEFAULT_GOAL")
        named = default[0].text.strip() if default and default[0] is not None else ""
        first = next((r.targets[0] for r in rules if r.targets and _goal_like(r.targets[0])), "")
        goals = [named or first] if named or first else []
    queue, seen, found = list(goals), set(goals), set[int]()
    while queue and len(seen) < _MAX_REACH:
        target = queue.pop()
        for index, rule in enumerate(rules):
            stem = None if target in rule.targets else _pattern_stem(rule, target)
            if target not in rule.targets and stem is None:
                continue
            found.add(index)
            for prereq in (*rule.prereqs, *rule.order_only):
                name = prereq.replace("%", stem, 1) if stem is not None else prereq
                if name not in seen:
                    seen.add(name)
                    queue.append(name)
    return sorted(found)


def _goal_like(target: str) -> bool:
    """A target make may take as its default goal: not a special (`.PHONY`) nor a pattern."""
    return "%" not in target and (not target.startswith(".") or "/" in target)


def _pattern_stem(rule: Rule, target: str) -> str | None:
    for pattern in rule.targets:
        prefix, percent, suffix = pattern.partition("%")
        fits = len(target) >= len(prefix) + len(suffix)
        if percent and fits and target.startswith(prefix) and target.endswith(suffix):
            return target[len(prefix) : len(target) - len(suffix)]
    return None


def read(
    text: str,
    env: Mapping[str, str],
    *,
    goals: Sequence[str] | None = None,
    include: Include | None = None,
) -> tuple[Launch, ...]:
    """What the makefile `text` launches: every recipe, or with `goals` (`[]`: the default goal)
    those make runs for them; `include` reads included makefiles (else they are not read)."""
    reader = _Reader(env, include)
    reader.feed(text)
    launches = reader.finish(goals)
    if reader.errors and _MENTIONS.search(text):
        line = reader.errors[0]
        launches.append(
            Launch(api="make", unknown=f"the makefile does not parse near line {line}", line=line)
        )
    unique: dict[tuple[str, str | None, tuple[str | None, ...], str], Launch] = {}
    for launch in sorted(launches, key=lambda launch: (not launch.line, launch.line)):
        unique.setdefault((launch.api, launch.shell, launch.argv, launch.unknown), launch)
    return tuple(unique.values())
