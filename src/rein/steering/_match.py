"""Match one extracted command against a rule's matcher, in three values: yes, no, or unknown.

A command that rein could not fully know (a dynamic command name, `eval "$X"`) is not waved through:
where the unknown part could change the answer, the result is UNKNOWN and the rule's `on_unknown`
decides (default: block).
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import replace
from fnmatch import fnmatchcase

from rein.steering._args import may_be_flag, may_split
from rein.steering._pattern import found
from rein.steering._rule import Matcher, RefTest, Rule, Tri
from rein.steering._sql_write import sql_match
from rein.steering._types import Context
from rein.steering.bash import UNKNOWN, CommandRef, Unknown, Word
from rein.steering.bash.commands import subcommand_index

_KUBE = frozenset({
    "-n", "--namespace", "--context", "--cluster", "--user", "--kubeconfig", "-s", "--server", "--token",
    "--as", "--as-group", "--as-uid", "--request-timeout", "--certificate-authority", "--client-certificate",
    "--client-key", "--tls-server-name", "--cache-dir", "-v", "--v", "--vmodule", "--profile",
    "--profile-output", "--username", "--password", "--log-dir", "--log-file",
})  # fmt: skip
"""kubectl's (and oc's) global options that take the next word."""
_COMPOSE = frozenset({
    "-f", "--file", "-p", "--project-name", "--project-directory", "--env-file", "--profile", "--ansi",
    "--parallel", "--progress",
})  # fmt: skip
GROUP_VALUE_OPTIONS: dict[tuple[str, str], frozenset[str]] = {
    ("docker", "compose"): _COMPOSE,
    ("podman", "compose"): _COMPOSE,
    ("nerdctl", "compose"): _COMPOSE,
}
"""Options of a command group that take a value, between the group and its subcommand (`docker compose
-f x.yml down`)."""
# Options that come before a subcommand and take a value, so the value is not mistaken for it.
GLOBAL_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "docker": frozenset({"-H", "--host", "--context", "-c", "--config", "-l", "--log-level"}),
    "cargo": frozenset({"-C", "--config", "-Z", "--color"}),
    "npm": frozenset({
        "--prefix", "-w", "--workspace", "--registry", "--userconfig", "--cache", "--otp", "--tag",
        "--access", "--loglevel",
    }),
    "terragrunt": frozenset({
        "--working-dir", "--log-level", "--config", "--tf-path", "--download-dir", "--iam-assume-role",
        "--parallelism", "--queue-include-dir", "--queue-exclude-dir", "--filter", "--terragrunt-working-dir",
        "--terragrunt-config", "--terragrunt-tfpath",
    }),
    "pnpm": frozenset({"-C", "--dir", "--filter", "-F"}),
    "yarn": frozenset({"--cwd"}),
    "docker-compose": _COMPOSE,
    "podman-compose": _COMPOSE,
    "kubectl": _KUBE,
    "oc": _KUBE,
    "kubecolor": _KUBE,
    "helm": frozenset({
        "-n", "--namespace", "--kube-context", "--kubeconfig", "--kube-apiserver", "--kube-as-user",
        "--kube-as-group", "--kube-ca-file", "--kube-token", "--kube-tls-server-name", "--registry-config",
        "--repository-cache", "--repository-config", "--burst-limit", "--qps",
    }),
    "aws": frozenset({
        "--profile", "--region", "--output", "--endpoint-url", "--query", "--color", "--ca-bundle",
        "--cli-read-timeout", "--cli-connect-timeout", "--cli-binary-format",
    }),
    "gsutil": frozenset({"-o", "-h", "-u", "-i"}),
    "gcloud": frozenset({
        "--project", "--account", "--configuration", "--format", "--verbosity", "--billing-project",
        "--impersonate-service-account", "--flags-file", "--flatten", "--trace-token",
    }),
    "podman": frozenset({
        "-c", "--connection", "--url", "--root", "--runroot", "--storage-driver", "--log-level", "--identity",
        "--cgroup-manager", "--events-backend", "--tmpdir", "--volumepath", "--module", "--ssh",
        "--network-cmd-path", "--storage-opt", "--runtime", "--conmon",
    }),
    "nerdctl": frozenset({
        "-n", "--namespace", "-a", "--address", "-H", "--host", "--snapshotter", "--storage-driver",
        "--cgroup-manager", "--data-root", "--cni-path", "--cni-netconfpath", "--hosts-dir",
    }),
}  # fmt: skip


_last: list[tuple[CommandRef, list[Word]]] = []


def positionals(ref: CommandRef) -> list[Word]:
    """Non-flag arguments, skipping the values of known global options that precede the subcommand.
    The last answer is kept: every rule about a command asks it of the same ref in a row."""
    if _last and _last[0][0] is ref:
        return _last[0][1]
    found = _positionals(ref)
    _last[:] = [(ref, found)]
    return found


def _positionals(ref: CommandRef) -> list[Word]:
    if ref.name == "git":
        index = subcommand_index(ref.argv)
        head, rest = list(ref.argv[index : index + 1]), ref.argv[index + 1 :]
        return head + [word for word in rest if not word.value.startswith("-") or word.dynamic]
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
        elif value.startswith("-") and len(value) > 1 and _literal_dash(word):
            group = GROUP_VALUE_OPTIONS.get((ref.name, out[0].value)) if len(out) == 1 else None
            skip = value in (options if not out else group or ())
        else:
            out.append(word)
    return out


def _literal_dash(word: Word) -> bool:
    """An option as written: `-chdir=$D` is one although its value is only known at run time."""
    return not word.dynamic or (isinstance(word.parts[0], str) and word.parts[0].startswith("-"))


def _subcommand_matches(matcher: Matcher, words: list[Word]) -> tuple[Tri, int]:
    """Whether the leading positionals are one of the subcommands, and how many words it took."""
    if not matcher.subcommand:
        return True, 0
    unknown = False
    for sub in matcher.subcommand:
        matched = _words_match(sub, words)
        if matched is True:
            return True, len(sub)
        unknown = unknown or matched is not False
    return (UNKNOWN if unknown else False), 0


def _words_match(sub: tuple[str, ...], words: list[Word]) -> Tri:
    """Whether `words` start with `sub`: a word rein cannot read may be the name (`git $SUB`), and an
    unquoted one may be several names (`git $CMD` with CMD='stash drop'); a known word that differs is
    a definite no (`xargs git branch` is never `git stash drop`)."""
    result: Tri = True
    for index, name in enumerate(sub):
        if index >= len(words):
            return UNKNOWN if any(may_split(word) for word in words) else False
        word = words[index]
        if not word.dynamic:
            if word.value != name:
                return False
        elif isinstance(word.parts[0], str) and not name.startswith(word.parts[0]):
            return False
        else:
            result = UNKNOWN
    return result


def match_ref(matcher: Matcher, ref: CommandRef, context: Context) -> Tri:
    """Whether `ref` matches every set field of `matcher`."""
    if matcher.empty or not ref.argv:
        return False
    name_dynamic = ref.name_dynamic
    if ref.unknown and not name_dynamic:
        # The command's real content is unknown (`eval "$X"`, `bash -c "$CMD"`): anything could run.
        return UNKNOWN
    results: list[Tri] = []
    # For a name only known at run time: whether a field beyond the name matched (`Matcher.name_alone`).
    evidence = False
    if matcher.pattern is not None:
        hit = found(matcher.pattern, ref.text)
        if hit is False and name_dynamic:  # the pattern may be about the name: try the rule's names
            after = ref.text[len(ref.argv[0].value) :]
            named = [found(matcher.pattern, name + after) for name in sorted(matcher.command)]
            hit = False if matcher.command and not any(named) else UNKNOWN
        evidence = hit is True
        results.append(hit)
    if matcher.command:
        results.append(UNKNOWN if name_dynamic else ref.name in matcher.command)
    if False in results:
        return False
    words = positionals(ref) if matcher.subcommand or matcher.args else []
    sub, taken = _subcommand_matches(matcher, words)
    if sub is False:
        return False
    evidence = evidence or (sub is True and bool(matcher.subcommand))
    results.append(sub)
    # A missing flag or argument may hide in an unquoted expansion (`git push $ARGS`); `wild` is
    # only worked out when one is missing.
    wild = False
    if matcher.flags or matcher.not_flags:
        present = set(ref.flags())
        if present & matcher.not_flags:
            return False
        if matcher.flags and not present & matcher.flags:
            wild = any(may_be_flag(word) for word in ref.args)
            if not wild:
                return False
            results.append(UNKNOWN)
        # a short flag means something else to each tool (`-t`): only a long one says which tool
        evidence = evidence or any(flag.startswith("--") for flag in present & matcher.flags)
    if matcher.args:
        rest = words[taken:]
        hits = [found(p, w.value) for p in matcher.args for w in rest]
        if True not in hits:
            wild = wild or any(may_be_flag(word) for word in ref.args) or UNKNOWN in hits
            if not wild:
                return False
            results.append(UNKNOWN)
        evidence = evidence or True in hits
    if matcher.writes:
        if not any(found(p, path) is not False for p in matcher.writes for path in ref.writes):
            return False
        results.append(True)
        evidence = True
    if matcher.code or matcher.sql:
        code = _code(matcher, ref)
        if code is False:
            return False
        results.append(code)
        evidence = True
    if matcher.test is not None:
        test = matcher.test
        by_name = name_dynamic and not matcher.tests_any_name
        results.append(_any_name(test, ref, matcher.command, context) if by_name else test(ref, context))
        evidence = evidence or results[-1] is not False
    if name_dynamic and matcher.command and not matcher.name_alone and not evidence:
        return False
    return tri_all(results)


def _code(matcher: Matcher, ref: CommandRef) -> Tri:
    """Whether the code the command runs has one of the patterns and one of the SQL kinds."""
    code = ref.code
    if code is None:
        return False
    results: list[Tri] = []
    if matcher.code:
        hits = [found(p, code.text) for p in matcher.code]
        results.append(True if True in hits else next((h for h in hits if h is not False), False))
    if matcher.sql:
        results.append(sql_match(code, matcher.sql))
    return tri_all(results)


def _any_name(test: RefTest, ref: CommandRef, names: frozenset[str], context: Context) -> Tri:
    """A test of a command whose name is only known at run time: UNKNOWN when it can hold for one of
    the names the rule is about (`$C run dev` with C=npm), False when it holds for none."""
    if not names:
        return UNKNOWN
    for name in sorted(names):
        if test(replace(ref, argv=(Word.literal(name), *ref.args)), context) is not False:
            return UNKNOWN
    return False


def tri_all(results: list[Tri]) -> Tri:
    """Three-valued AND: any False is False, else the first unknown value (which may say why), else
    True."""
    if False in results:
        return False
    return next((result for result in results if isinstance(result, Unknown)), True)


def match_path(pattern: str, path: str, cwd: str) -> bool:
    """A file glob against a path as given or as an absolute path."""
    absolute = posixpath.normpath(posixpath.join(cwd, path))
    base = posixpath.basename(path)
    return any(fnmatchcase(candidate, pattern) for candidate in (path, absolute, base))


def first_words(rules: Sequence[Rule]) -> dict[str, frozenset[str]] | None:
    """For each command rules name with subcommands, the subcommands' first words; None when a rule
    names subcommands of any command (then every rule is tried)."""
    firsts: dict[str, set[str]] = {}
    for rule in rules:
        subs = rule.matcher.subcommand
        if not subs:
            continue
        if not rule.matcher.command:
            return None
        for name in rule.matcher.command:
            firsts.setdefault(name, set()).update(sub[0] for sub in subs if sub)
    return {name: frozenset(words) for name, words in firsts.items()}


def subcommand_key(ref: CommandRef, firsts: dict[str, frozenset[str]] | None) -> str | None:
    """The ref's subcommand where rules name subcommands of its command: its first positional, or ""
    for one no rule names (so only rules without a subcommand apply); None when it is not known."""
    if firsts is None or ref.name not in firsts:
        return None
    words = positionals(ref)
    if not words or words[0].dynamic:
        return None
    return words[0].value if words[0].value in firsts[ref.name] else ""
