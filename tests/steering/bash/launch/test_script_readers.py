"""The contract the Perl, Ruby and PHP readers share: the same behaviours, each language's own examples
of them (test_perl.py, test_ruby.py, test_php.py hold the examples and what only one language does)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.steering.bash.launch import Launch, launches
from tests.steering.bash.launch import test_perl, test_php, test_ruby
from tests.steering.bash.launch._script_contract import ScriptContract

CONTRACTS = tuple(ScriptContract.of(module) for module in (test_perl, test_ruby, test_php))
BY_LANGUAGE = {contract.language: contract for contract in CONTRACTS}


def cases(table: Callable[[ScriptContract], Sequence[Any]]) -> list[Any]:
    """Each language's examples of one behaviour, as (language, *example)."""
    return [
        pytest.param(
            contract.language,
            *(case if isinstance(case, tuple) else (case,)),
            id=f"{contract.language}-{index}",
        )
        for contract in CONTRACTS
        for index, case in enumerate(table(contract))
    ]


def each(pick: Callable[[ScriptContract], Any]) -> list[Any]:
    """One example a language, as (language, example)."""
    return [pytest.param(contract.language, pick(contract), id=contract.language) for contract in CONTRACTS]


def read(language: str, code: str) -> tuple[Launch, ...]:
    return launches(language, code)


def only(language: str, code: str) -> Launch:
    found = read(language, code)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(("language", "code", "api", "shell"), cases(lambda c: c.shell))
def test_a_string_runs_through_a_shell(language: str, code: str, api: str, shell: str) -> None:
    assert only(language, code) == Launch(api=api, shell=shell, line=1)


@pytest.mark.parametrize(("language", "code", "api", "argv"), cases(lambda c: c.argv))
def test_a_list_is_an_argv(language: str, code: str, api: str, argv: tuple[str, ...]) -> None:
    assert only(language, code) == Launch(api=api, argv=argv, line=1)


@pytest.mark.parametrize(("language", "code", "shell"), cases(lambda c: c.folds))
def test_strings_fold_as_the_language_reads_them(language: str, code: str, shell: str) -> None:
    found = only(language, code)
    assert (found.api.lower(), found.shell, found.unknown) == ("system", shell, "")


@pytest.mark.parametrize(("language", "code", "shell"), cases(lambda c: c.holes))
def test_a_value_built_at_run_time_is_a_hole(language: str, code: str, shell: str) -> None:
    found = [launch for launch in read(language, code) if launch.shell is not None]
    assert len(found) == 1, found
    assert found[0].shell == shell
    assert found[0].unknown


@pytest.mark.parametrize(("language", "code", "api"), cases(lambda c: c.unknown))
def test_a_launch_nothing_is_known_about_is_unknown(language: str, code: str, api: str) -> None:
    found = only(language, code)
    assert found.api == api
    assert found.unknown
    assert found.shell is None


@pytest.mark.parametrize(("language", "code"), each(lambda c: c.argv_hole))
def test_an_argv_element_built_at_run_time_is_none(language: str, code: tuple[str, Any]) -> None:
    found = only(language, code[0])
    assert found.argv == code[1]
    assert not found.unknown


@pytest.mark.parametrize(("language", "code"), each(lambda c: c.argv_spread))
def test_an_argv_spread_from_a_run_time_list_is_unknown(language: str, code: tuple[str, Any]) -> None:
    found = only(language, code[0])
    assert found.argv == code[1]
    assert found.unknown  # how many arguments is only known at run time


@pytest.mark.parametrize(("language", "code"), each(lambda c: c.argv_program))
def test_an_argv_whose_program_is_built_at_run_time_is_unknown(language: str, code: tuple[str, Any]) -> None:
    found = only(language, code[0])
    assert found.argv == code[1]
    assert found.unknown


@pytest.mark.parametrize(("language", "code"), cases(lambda c: c.nothing))
def test_code_that_calls_no_process_api_launches_nothing(language: str, code: str) -> None:
    assert read(language, code) == ()


@pytest.mark.parametrize(("language", "code", "found"), cases(lambda c: c.evals))
def test_eval_of_a_literal_is_read_as_the_language(
    language: str, code: str, found: list[tuple[str, str]]
) -> None:
    shells = [(launch.api, launch.shell) for launch in read(language, code) if launch.shell is not None]
    assert shells == found


@pytest.mark.parametrize(("language", "code"), each(lambda c: c.nested_eval))
def test_eval_reads_are_bounded(language: str, code: str) -> None:
    found = read(language, code)
    assert [launch.api for launch in found] == ["eval"]
    assert "deeply" in found[0].unknown


@pytest.mark.parametrize(("language", "code"), each(lambda c: c.lines))
def test_lines_are_where_the_call_is(language: str, code: str) -> None:
    found = read(language, code)
    assert [(launch.shell, launch.line) for launch in found] == [("ls", 3), ("pwd", 4), ("id", 5)]


@pytest.mark.parametrize(("language", "code"), cases(lambda c: c.broken))
def test_a_program_that_does_not_parse_is_unknown_when_it_mentions_a_process_api(
    language: str, code: str
) -> None:
    assert any("does not parse" in launch.unknown for launch in read(language, code))


@pytest.mark.parametrize(("language", "code"), each(lambda c: c.broken_quiet))
def test_a_program_that_does_not_parse_but_mentions_no_process_api_launches_nothing(
    language: str, code: str
) -> None:
    assert read(language, code) == ()


@pytest.mark.parametrize(("language", "code"), cases(lambda c: c.broken_partial))
def test_a_program_that_does_not_parse_still_reports_what_it_can(language: str, code: str) -> None:
    assert Launch(api="system", shell="git push -f", line=1) in read(language, code)


@pytest.mark.parametrize(("language", "code"), cases(lambda c: c.growing))
def test_values_that_grow_without_bound_are_built_at_run_time(language: str, code: str) -> None:
    found = only(language, code)
    assert found.unknown
    assert "failed" not in found.unknown


@pytest.mark.parametrize("language", list(BY_LANGUAGE))
@settings(max_examples=300, deadline=None)
@given(code=st.text())
def test_reading_never_raises(language: str, code: str) -> None:
    for launch in read(language, code):
        assert not launch.unknown.startswith(f"reading the {language} program failed"), launch


@pytest.mark.parametrize("language", list(BY_LANGUAGE))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_reading_text_made_of_the_language_never_raises(language: str, data: st.DataObject) -> None:
    pieces = data.draw(st.lists(st.sampled_from(BY_LANGUAGE[language].pieces), max_size=25))
    for launch in read(language, "".join(pieces)):
        assert not launch.unknown.startswith(f"reading the {language} program failed"), launch


@pytest.mark.parametrize(("language", "code", "lines"), cases(lambda c: c.loops))
def test_a_call_in_a_loop_over_a_known_list_launches_once_per_value(
    language: str, code: str, lines: list[str]
) -> None:
    found = read(language, code)
    assert [launch.shell for launch in found] == lines, found
    assert not any(launch.unknown for launch in found)


@pytest.mark.parametrize(("language", "code"), cases(lambda c: c.changing_loops))
def test_a_loop_whose_variable_may_change_is_read_as_built_at_run_time(language: str, code: str) -> None:
    assert any(launch.unknown for launch in read(language, code))


@pytest.mark.parametrize(("language", "code", "api", "argv"), cases(lambda c: c.removals))
def test_removals_of_computed_paths(language: str, code: str, api: str, argv: tuple[str, ...]) -> None:
    assert only(language, code) == Launch(api=api, argv=argv, line=1)


@pytest.mark.parametrize(("language", "case"), each(lambda c: c.env_removal))
def test_the_environment_rein_knows_fills_a_removal(
    language: str, case: tuple[str, dict[str, str], Launch]
) -> None:
    code, env, launch = case
    assert launches(language, code, env) == (launch,)
    assert read(language, code) == ()  # a path built at run time is data


@pytest.mark.parametrize(("language", "case"), each(lambda c: c.env_shell))
def test_the_environment_rein_knows_fills_a_shell_line(
    language: str, case: tuple[str, dict[str, str]]
) -> None:
    code, env = case
    assert launches(language, code, env)[0].shell == "ls"
    assert only(language, code).unknown
