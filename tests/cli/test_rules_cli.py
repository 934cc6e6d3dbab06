"""`rein rules list` and `rein rules test`, run as the real CLI with real rule files in temporary folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rein as rein_package


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    cwd = tmp_path / "proj"
    (tmp_path / "home").mkdir()
    write(
        cwd / ".rein/rules/no-eval.md",
        "---\ncondition: '\\beval\\('\ndescription: eval\n---\nDo not use eval.\n",
    )
    write(cwd / ".rein/rules/dup-words.md", "---\ncondition: '\\b(\\w+) \\1\\b'\nscope: text\n---\nNo dup.\n")
    write(cwd / ".rein/rules/keep-k.md", "---\ntrigger: 'foo\\Kbar'\nscope: line\n---\nNo foobar.\n")
    write(cwd / ".rein/rules/broken.md", "---\ncondition: '(unclosed'\n---\nx\n")
    write(tmp_path / "home/.rein/rules/home-rule.md", "---\ncondition: 'home_only'\n---\nFrom home.\n")
    return cwd


def rein(project: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(project.parent / "home"), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "rein.cli", "rules", *args],
        check=False,
        cwd=project,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_list_shows_rules_sources_paths_and_skipped_files(project: Path) -> None:
    result = rein(project, "list")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for name in ("no-eval", "dup-words", "keep-k", "home-rule", "python-bare-except"):
        assert name in out
    assert ".rein/rules/no-eval.md" in out  # shown relative to the project
    assert "~/.rein/rules/home-rule.md" in out
    assert "builtin:python-bare-except.md" in out
    assert "hyperscan" in out and "prefilter+confirm" in out and "fallback" in out
    assert "Back-references are unsupported" in out
    assert "broken.md:2" in out and "not a valid regular expression" in out
    assert "interrupt_mode=always" in out


def test_list_with_explicit_roots(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    write(other / ".cursor/rules/ts.mdc", "---\nglobs: *.ts\ncondition: 'as any'\n---\nNo any.\n")
    result = rein(project, "list", "--cwd", str(other), "--home", str(tmp_path / "nohome"))
    assert result.returncode == 0, result.stderr
    assert "ts.mdc" in result.stdout and "no-eval" not in result.stdout and "home-rule" not in result.stdout


@pytest.mark.slow
def test_list_bad_settings_is_a_config_error(project: Path) -> None:
    write(project / ".rein/settings.toml", "[ttsr]\nrepeat_mode = 'twice'\n")
    result = rein(project, "list")
    assert result.returncode == 2
    assert "repeat_mode must be one of once, after-gap" in result.stderr
    write(project / ".rein/settings.toml", "[ttsr\n")
    result = rein(project, "list")
    assert result.returncode == 2 and "settings.toml: invalid TOML" in result.stderr


def test_settings_turn_builtin_rules_off(project: Path) -> None:
    write(project / ".rein/settings.toml", "[ttsr]\nbuiltin_rules = false\ndisabled_rules = ['keep-k']\n")
    result = rein(project, "list")
    assert result.returncode == 0
    assert "python-bare-except" not in result.stdout
    assert "disabled in settings" in result.stdout


def test_test_text_file_reports_where_and_interrupt(project: Path) -> None:
    source = write(project / "reply.md", "Sure.\nthe the plan is:\nx = eval(data)\nfoobar\n")
    result = rein(project, "test", str(source), "--chunk", "4")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "dup-words" in out and "2:1" in out
    assert "no-eval" in out and "3:5" in out
    assert "keep-k" in out and "4:4" in out  # \\K moves the start to "bar"
    assert "yes" in out and "prefilter+confirm" in out and "fallback" in out
    assert "The reply would be cut at delta" in out and "'dup-words'" in out
    assert "skipped rule" in result.stderr and "broken.md:2" in result.stderr


@pytest.mark.slow
def test_test_reads_stdin(project: Path) -> None:
    result = rein(project, "test", "-", stdin="call home_only now")
    assert result.returncode == 0, result.stderr
    assert "home-rule" in result.stdout
    result = rein(project, "test", stdin="nothing to see")
    assert result.returncode == 0 and "No rule fired" in result.stdout


@pytest.mark.slow
def test_test_tool_source_streams_json_arguments(project: Path) -> None:
    source = write(project / "code.py", "import os\n\ntry:\n    run()\nexcept:\n    pass\n")
    result = rein(
        project, "test", str(source), "--source", "tool", "--tool", "Write", "--path", "src/code.py"
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "python-bare-except" in out and "content" in out and "5:1" in out
    assert "no (reminder)" in out
    assert "No match would interrupt" in out
    result = rein(project, "test", str(source), "--source", "tool", "--path", "src/code.ts")
    assert "No rule fired" in result.stdout


def test_test_tool_source_with_json_arguments(project: Path) -> None:
    args = json.dumps({"file_path": "a.py", "content": "x = eval(1)\n"})
    result = rein(project, "test", "-", "--source", "tool", "--json-args", "--rule", "no-eval", stdin=args)
    assert result.returncode == 0, result.stderr
    assert "no-eval" in result.stdout and "content" in result.stdout and "1:5" in result.stdout


@pytest.mark.slow
def test_test_thinking_source(project: Path) -> None:
    write(project / ".rein/rules/think.md", "---\ncondition: 'give up'\nscope: thinking\n---\nKeep going.\n")
    result = rein(project, "test", "-", "--source", "thinking", stdin="I should give up.")
    assert "think" in result.stdout and "thinking" in result.stdout
    result = rein(project, "test", "-", stdin="I should give up.")
    assert "No rule fired" in result.stdout


def test_test_when_disabled_in_settings_still_tests(project: Path) -> None:
    write(project / ".rein/settings.toml", "[ttsr]\nenabled = false\n")
    result = rein(project, "test", "-", stdin="eval(1)")
    assert result.returncode == 0
    assert "disabled in settings" in result.stdout and "no-eval" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("test", "--chunk", "0"), "--chunk"),
        (("test", "--source", "bogus"), "--source"),
        (("test", "missing-file.txt"), "cannot read missing-file.txt"),
        (("test", "--rule", "nope"), "unknown rule(s) nope"),
        (("list", "--cwd", "/nonexistent/dir"), "is not a directory"),
        (("frobnicate",), "no such command 'frobnicate'"),
    ],
)
@pytest.mark.slow
def test_usage_errors_exit_2(project: Path, args: tuple[str, ...], message: str) -> None:
    result = rein(project, *args, stdin="")
    assert result.returncode == 2
    assert message in result.stderr


def test_help(project: Path) -> None:
    result = rein(project, "--help")
    assert result.returncode == 0 and "list" in result.stdout and "test" in result.stdout


@pytest.mark.slow
def test_the_count_says_whose_rules_they_are(tmp_path: Path) -> None:
    """One rule written, seven built in: "1 rule of yours and 7 built-in", never "8 rules"."""
    cwd = tmp_path / "proj"
    (tmp_path / "home").mkdir()
    write(cwd / ".rein/rules/no-eval.md", "---\ncondition: '\\beval\\('\n---\nDo not use eval.\n")
    builtin = len(list((Path(rein_package.__file__).parent / "ttsr" / "builtin").glob("*.md")))
    tested = rein(cwd, "test", "-", stdin="nothing to see")
    assert f"(1 rule of yours and {builtin} built-in, " in tested.stdout, tested.stdout
    listed = rein(cwd, "list")
    assert f"Stream rules (1 rule of yours and {builtin} built-in active)" in listed.stdout, listed.stdout
