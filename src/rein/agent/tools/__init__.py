"""rein's built-in tools: read, write, edit, bash, ls, grep, find."""

from rein.agent._tool import Tool
from rein.agent.tools.bash import Bash
from rein.agent.tools.files import Edit, Read, Write
from rein.agent.tools.prompt import system_prompt
from rein.agent.tools.search import Find, Grep, Ls


def builtin_tools() -> list[Tool]:
    return [Read(), Write(), Edit(), Bash(), Ls(), Grep(), Find()]


__all__ = ["Bash", "Edit", "Find", "Grep", "Ls", "Read", "Write", "builtin_tools", "system_prompt"]
