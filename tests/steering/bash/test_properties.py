"""Properties: `analyze` never raises, and whenever tree-sitter saw an error, there is a problem."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rein.steering.bash import BranchTracker
from rein.steering.bash._parse import parse, uncovered
from tests.steering.bash.helpers import run

TOKENS = st.sampled_from(
    [
        "a", "rm", "-rf", "/", "git", "push", "--force", "sudo", "env", "-i", "X=1", "$X", "${X:-y}",
        "bash", "-c", "sh", "eval", "'", '"', "`", "\\", "$(", "$((", ")", "(", "{", "}", ";", "&&",
        "||", "|", "&", "|&", "!", "<", ">", ">>", "2>&1", "<<EOF", "<<'EOF'", "<<-X", "<<<", "\n",
        "EOF", "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until",
        "case", "esac", ";;", "*)", "f()", "function", "[[", "]]", "[", "]", "((", "))", "cd", "~",
        "-", "*", "?", "{a,b}", "{1..3}", "$'\\x72m'", "#", "# c", "find", "-exec", "\\;", "xargs",
        "ssh", "host", "python3", "-e", "trap", "EXIT", "alias", "x=", "declare", "export", "unset",
        "pushd", "popd", "git", "checkout", "main", "-C", "\t", " ",
    ]
)  # fmt: skip


def _has_error(source: str) -> bool:
    return parse(source.encode("utf-8", "surrogatepass")).has_error


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TOKENS, max_size=30).map(" ".join))
def test_shell_soup(source: str) -> None:
    analysis = run(source, values={"branch": "main"}, trackers=(BranchTracker(),))
    assert not any(problem.startswith("internal error") for problem in analysis.problems), analysis.problems
    if _has_error(source):
        assert analysis.problems
    assert [ref.index for ref in analysis.refs] == list(range(len(analysis.refs)))
    assert all(index < ref.index for ref in analysis.refs for index in ref.after)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=120))
def test_any_text(source: str) -> None:
    analysis = run(source)
    assert not any(problem.startswith("internal error") for problem in analysis.problems), analysis.problems
    if "\0" not in source and _has_error(source):
        assert analysis.problems


@settings(max_examples=60, deadline=None)
@given(st.lists(TOKENS, max_size=12).map(" ".join))
def test_strings_run_by_a_shell(source: str) -> None:
    """What a wrapper re-parses is held to the same rules (a leading space: bash reads `-x` as an option)."""
    source = " " + source
    quoted = "'" + source.replace("'", "'\\''") + "'"
    analysis = run(f"bash -c {quoted}")
    assert not any(problem.startswith("internal error") for problem in analysis.problems)
    if _has_error(source):
        assert analysis.problems


DASHES = st.sampled_from(
    ["a", "-", "-", "--", "x=1", "2>&1", "> f", "<<EOF\nb\nEOF\n", "|", "&&", ";", "\n", "cd"]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(DASHES, min_size=1, max_size=10).map(" ".join))
def test_text_tree_sitter_drops_is_repaired_or_reported(source: str) -> None:
    """tree-sitter silently drops a lone `-` in places; it must come back as a word or be a problem."""
    src = source.encode()
    root = parse(src)
    analysis = run(source)
    if root.has_error or analysis.problems:
        return
    seen = {word.value for ref in analysis.refs for word in ref.argv}
    for start, end in uncovered(root, src):
        assert set(src[start:end].decode().split()) <= seen, (source, src[start:end])
