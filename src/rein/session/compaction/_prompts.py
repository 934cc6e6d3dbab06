"""The summarizer's prompts: a system prompt per purpose (the fixed structure lives there, so every
request of a chunked summary asks for the same shape), and the request frames around the transcript.

Frames called with empty content measure what a request costs besides the content; the summarizer
plans its chunks with that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeAlias

Purpose: TypeAlias = Literal["compaction", "branch"]

_RULES = """\
Do not continue the conversation, answer questions in it, or call tools: output only the summary.
Keep file paths, function and test names, commands, and error messages exactly as written.
Keep every instruction, constraint and preference the user stated: they still apply.
Drop chatter, repeated output, and anything later superseded."""

COMPACTION_SYSTEM = f"""\
You write checkpoint summaries of coding sessions. You read a transcript between a user and an AI \
coding agent (or summaries of parts of one); another model reads your summary in place of the \
transcript and continues the work from it.

{_RULES}

Write the summary in exactly this structure:

## Goal
[What the user wants done; several items if the session covers several tasks.]

## Constraints & Preferences
- [Requirements and preferences the user stated, or "(none)"]

## Progress
### Done
- [x] [Completed changes and tasks]

### In Progress
- [ ] [Work under way]

### Blocked
- [What prevents progress, or "(none)"]

## Key Decisions
- **[Decision]**: [Why]

## Next Steps
1. [What to do next, in order]

## Critical Context
- [Data, references, errors and facts needed to continue, or "(none)"]

Keep each section concise."""

BRANCH_SYSTEM = f"""\
You summarize an abandoned branch of a coding session: the user went back to an earlier point and \
continues from there on another path. You read the abandoned branch's transcript (or summaries of \
parts of it); the model working on the new path reads your summary to learn what the abandoned branch \
tried and learned, so it does not repeat a failed attempt and can reuse what worked.

{_RULES}

Write the summary in exactly this structure:

## Goal
[What the abandoned branch was trying to do.]

## What Was Tried
- [Approaches, changes and commands, each with its outcome]

## What Was Learned
- [Facts found, causes of failures, what works and what does not]

## Left Undone
- [Work the branch started but did not finish, or "(none)"]

## Critical Context
- [Data, references and errors worth keeping, or "(none)"]

Keep each section concise."""


def system_prompt(purpose: Purpose) -> str:
    return BRANCH_SYSTEM if purpose == "branch" else COMPACTION_SYSTEM


def summary_prompt(
    conversation: str,
    *,
    purpose: Purpose,
    previous: str | None = None,
    instructions: str | None = None,
    part: bool = False,
) -> str:
    """One request over a transcript. `previous`: the last summary, to update with the transcript;
    `part`: the transcript is one stretch of a longer one, summarized alone and merged later."""
    what = "abandoned branch" if purpose == "branch" else "conversation"
    sections: list[str] = []
    if previous is not None:
        sections.append(f"<previous-summary>\n{previous}\n</previous-summary>")
    sections.append(f"<conversation>\n{conversation}\n</conversation>")
    if part:
        task = (
            f"The transcript above is one stretch of a longer {what}, summarized on its own and merged "
            "with the other stretches later. Summarize only what it contains, in the structure of your "
            "instructions."
        )
    elif previous is not None:
        task = (
            "The transcript above continues the work the previous summary describes. Write one updated "
            "summary in the structure of your instructions: keep everything from the previous summary "
            "that still holds, add the new progress, decisions and context, move finished work to Done, "
            "and bring the next steps up to date."
        )
    else:
        task = f"Summarize the {what} above in the structure of your instructions."
    sections.append(task + _focus(instructions))
    return "\n\n".join(sections)


def wrap_summary(summary: str) -> str:
    """One summary as a merge request lists it."""
    return f"<summary>\n{summary}\n</summary>"


def merge_prompt(summaries: Sequence[str], *, purpose: Purpose, instructions: str | None = None) -> str:
    """One request that merges summaries of consecutive stretches, oldest first."""
    what = "abandoned branch" if purpose == "branch" else "session"
    task = (
        f"The summaries above cover consecutive stretches of one {what}, oldest first; the first may "
        "summarize all the work before them. Merge them into one summary in the structure of your "
        "instructions: keep every fact that still holds, let later stretches update earlier ones (work "
        "finished later moves to Done, a replaced decision is dropped), and end with the next steps "
        "as the latest stretch leaves them."
    )
    return "\n\n".join([*(wrap_summary(summary) for summary in summaries), task + _focus(instructions)])


def _focus(instructions: str | None) -> str:
    return f"\n\nThe user asks the summary to focus on: {instructions}" if instructions else ""
