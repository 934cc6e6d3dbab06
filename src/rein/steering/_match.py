"""Match one extracted command against a rule's matcher, in three values: yes, no, or unknown.

A command that rein could not fully know (a dynamic command name, `eval "$X"`) is not waved through:
where the unknown part could change the answer, the result is UNKNOWN and the rule's `on_unknown`
decides (default: block).
"""

from __future__ import annotations

import posixpath
from fnmatch import fnmatchcase

from rein.steering._rule import Matcher, Tri
from rein.steering._types import Context
from rein.steering.bash import UNKNOWN, CommandRef, Unknown, Word
from rein.steering.bash._effects import GIT_VALUE_OPTIONS

# Options that come before a subcommand and take a value, so the value is not mistaken for it.
GLOBAL_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "git": GIT_VALUE_OPTIONS,
    "docker": frozenset({"-H", "--host", "--context", "-c", "--config", "-l", "--log-level"}),
    "cargo": frozenset({"-C", "--config", "-Z", "--color"}),
    "npm": frozenset({"--prefix", "-w", "--workspace"}),
    "pnpm": frozenset({"-C", "--dir", "--filter", "-F"}),
    "yarn": frozenset({"--cwd"}),
}


def _wild(word: Word) -> bool:
    """An unquoted expansion alone (`$ARGS`) may split into any words, flags included."""
    return (
        word.dynamic
        and not word.raw.startswith(("'", '"'))
        and not any(isinstance(part, str) and part for part in word.parts)
    )


def positionals(ref: CommandRef) -> list[Word]:
    """Non-flag arguments, skipping the values of known global options that precede the subcommand."""
    options = GLOBAL_VALUE_OPTIONS.get(ref.name, frozenset())
    out: list[Word] = []
    skip = dashdash = False
    for word in ref.args:
        value = word.value
        if skip:
            skip = False
        elif dashdash:
            out.append(word)
        elif value == "--":
            dashdash = True
        elif value.startswith("-") and len(value) > 1 and not word.dynamic:
            skip = not out and value in options
        else:
            out.append(word)
    return out


def _subcommand_matches(matcher: Matcher, words: list[Word]) -> tuple[Tri, int]:
    """Whether the leading positionals are one of the subcommands, and how many words it took."""
    if not matcher.subcommand:
        return True, 0
    unknown = False
    for sub in matcher.subcommand:
        head = words[: len(sub)]
        if len(head) == len(sub) and all(w.value == s for w, s in zip(head, sub, strict=True)):
            return True, len(sub)
        if any(_wild(w) for w in head):
            unknown = True
    return (UNKNOWN if unknown else False), 0


def match_ref(matcher: Matcher, ref: CommandRef, context: Context) -> Tri:
    """Whether `ref` matches every set field of `matcher`."""
    if matcher.empty or not ref.argv:
        return False
    name_dynamic = ref.argv[0].dynamic
    if ref.unknown and not name_dynamic:
        # The command's real content is unknown (`eval "$X"`, `bash -c "$CMD"`): anything could run.
        return UNKNOWN
    results: list[Tri] = []
    if matcher.pattern is not None:
        hit = matcher.pattern.search(ref.text) is not None
        results.append(True if hit else (UNKNOWN if name_dynamic else False))
    if matcher.command:
        results.append(UNKNOWN if name_dynamic else ref.name in matcher.command)
    if False in results:
        return False
    words = positionals(ref) if matcher.subcommand or matcher.args else []
    sub, taken = _subcommand_matches(matcher, words)
    if sub is False:
        return False
    results.append(sub)
    # A missing flag or argument may hide in an unquoted expansion (`git push $ARGS`); `wild` is
    # only worked out when one is missing.
    wild = False
    if matcher.flags or matcher.not_flags:
        present = set(ref.flags())
        if present & matcher.not_flags:
            return False
        if matcher.flags and not present & matcher.flags:
            wild = any(_wild(word) for word in ref.args)
            if not wild:
                return False
            results.append(UNKNOWN)
    if matcher.args:
        rest = words[taken:]
        if not any(p.search(w.value) for p in matcher.args for w in rest):
            wild = wild or any(_wild(word) for word in ref.args)
            if not wild:
                return False
            results.append(UNKNOWN)
    if matcher.test is not None:
        results.append(matcher.test(ref, context))
    return tri_all(results)


def tri_all(results: list[Tri]) -> Tri:
    """Three-valued AND: any False is False, else any UNKNOWN is UNKNOWN."""
    if False in results:
        return False
    return UNKNOWN if any(isinstance(r, Unknown) for r in results) else True


def match_path(pattern: str, path: str, cwd: str) -> bool:
    """A file glob against a path as given or as an absolute path."""
    absolute = posixpath.normpath(posixpath.join(cwd, path))
    base = posixpath.basename(path)
    return any(fnmatchcase(candidate, pattern) for candidate in (path, absolute, base))
