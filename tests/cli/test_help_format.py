"""The help layout every command shares (`rein.cli._help`), rendered in-process."""

from __future__ import annotations

import os

import pytest

from rein.cli._help import HelpPage, render, wants_help, width


def test_a_page_has_usage_description_and_aligned_sections() -> None:
    page = HelpPage(
        usage=("rein x [OPTIONS] FILE", "rein x COMMAND [ARGS]..."),
        summary="Do a thing.",
        details="More about it.\n\nExit status: 0 done.",
        arguments=(("FILE", "The file."),),
        options=(("--cwd <dir>", "Where."), ("-q, --quiet", "Say less.")),
        commands=(("go", "Go somewhere."),),
    )
    assert render(page, columns=78) == (
        "Usage: rein x [OPTIONS] FILE\n"
        "       rein x COMMAND [ARGS]...\n"
        "\n"
        "  Do a thing.\n"
        "\n"
        "  More about it.\n"
        "\n"
        "  Exit status: 0 done.\n"
        "\n"
        "Arguments:\n"
        "  FILE  The file.\n"
        "\n"
        "Options:\n"
        "  --cwd <dir>  Where.\n"
        "  -q, --quiet  Say less.\n"
        "  -h, --help   Show this message and exit.\n"
        "\n"
        "Commands:\n"
        "  go  Go somewhere.\n"
    )


def test_long_text_wraps_under_its_column_and_a_long_term_takes_its_own_line() -> None:
    long_term = "--a-very-long-option-name <placeholder>"
    page = HelpPage(
        usage=("rein x",),
        summary="word " * 30,
        options=(("--short", "help " * 20), (long_term, "Its help.")),
    )
    lines = render(page, columns=60).splitlines()
    assert all(len(line) <= 60 for line in lines)
    assert lines[2].startswith("  word") and lines[3].startswith("  word")
    short = lines.index("Options:") + 1
    column = lines[short].index("help")
    assert lines[short + 1].index("help") == column  # the wrapped line starts under the first
    at = lines.index(f"  {long_term}")
    assert lines[at + 1].strip() == "Its help." and lines[at + 1].index("Its") == column


def test_words_with_hyphens_are_not_broken() -> None:
    page = HelpPage(usage=("rein x",), summary="s", arguments=(("EVENT", "pre-tool-use " * 12),))
    body = render(page, columns=50)
    assert "pre-\n" not in body and "pre-tool-use" in body


def test_the_help_row_is_added_once() -> None:
    with_help = HelpPage(
        usage=("rein x",), summary="s", options=(("-h, --help", "Show this message and exit."),)
    )
    without = HelpPage(usage=("rein x",), summary="s")
    assert render(with_help) == render(without)
    assert render(without).count("--help") == 1


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-h"], True),
        (["x", "--help"], True),
        (["--", "-h"], False),
        (["a", "--", "--help"], False),
        (["--helpful"], False),
        ([], False),
    ],
)
def test_help_is_asked_before_a_double_dash_only(args: list[str], expected: bool) -> None:
    assert wants_help(args) is expected


def no_terminal(fd: int) -> os.terminal_size:
    raise OSError("not a terminal")


@pytest.mark.parametrize(("columns", "expected"), [("200", 78), ("60", 58), ("20", 50), ("x", 78)])
def test_the_width_follows_columns_within_click_bounds(
    columns: str, expected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(os, "get_terminal_size", no_terminal)  # "x": no terminal either, so 80 columns
    assert width() == expected
