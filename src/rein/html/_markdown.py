"""Model text as HTML: CommonMark (tables and strikethrough too) through markdown-it-py with raw HTML
off, links kept only for http(s) and mailto, images shown as links (nothing is fetched), fenced code
highlighted by pygments; and code or a diff as highlighted HTML on their own.

    markdown("# Plan\\n- run `pytest`")          # '<h1>Plan</h1>\\n<ul>...'
    code("ls -la", "bash")                      # '<pre class="code"><code class="hl">...'
    diff("a\\nb\\n", "a\\nc\\n")                  # '<pre class="diff">...' (a unified diff, coloured)

Every piece of input is escaped by the renderer or by pygments: no tag or attribute of the input
reaches the output.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Mapping, Sequence
from html import escape

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

SAFE_SCHEMES = ("http://", "https://", "mailto:")
"""The only links kept; any other (javascript:, data:, file:, relative) stays as text."""
MAX_HIGHLIGHT = 200_000
"""Longer code is shown plain: highlighting is for reading, not for megabytes of output."""
CONTEXT_LINES = 3
CACHED = 2048
"""Rendered texts kept: a page refetches its window of entries after every message of a run."""

_FORMATTER = HtmlFormatter(nowrap=True)


def _safe_link(url: str) -> bool:
    return url.strip().lower().startswith(SAFE_SCHEMES)


def _lexer(language: str = "", filename: str = "") -> Lexer | None:
    try:
        if language:
            return get_lexer_by_name(language.lower())
        if filename:
            return get_lexer_for_filename(filename)
    except ClassNotFound:
        return None
    return None


@functools.lru_cache(maxsize=CACHED)
def code(text: str, language: str = "", *, filename: str = "") -> str:
    """`text` as a code block, highlighted when the language (or the file name) is known."""
    lexer = _lexer(language, filename) if len(text) <= MAX_HIGHLIGHT else None
    inner = escape(text, quote=False) if lexer is None else highlight(text, lexer, _FORMATTER)
    shown = f" language-{escape(language)}" if language else ""
    return f'<pre class="code"><code class="hl{shown}">{inner.rstrip(chr(10))}</code></pre>'


def _fence(content: str, language: str, _attrs: str) -> str:
    return code(content, language) if _lexer(language) is not None else ""


def _link_open(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
    tokens[idx].attrSet("target", "_blank")
    return renderer.renderToken(tokens, idx, options, env)


def _image(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """An image as a link to it, its alt text the label: the page loads nothing a model named."""
    token = tokens[idx]
    alt = renderer.renderInlineAsText(token.children or [], options, env) or "image"
    src = str(token.attrGet("src") or "")
    return (
        f'<a href="{escape(src)}" rel="noopener noreferrer nofollow" target="_blank">'
        f"[image: {escape(alt)}]</a>"
    )


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "highlight": _fence}).enable(["table", "strikethrough"])
    parser.validateLink = _safe_link  # type: ignore[method-assign]
    parser.add_render_rule("link_open", _link_open)
    parser.add_render_rule("image", _image)
    return parser


_MD = _parser()


@functools.lru_cache(maxsize=CACHED)
def markdown(text: str) -> str:
    """`text` rendered as Markdown, safe to put into a page as it is."""
    rendered: str = _MD.render(text)
    return rendered


def diff(old: str, new: str) -> str:
    """The unified diff from `old` to `new`, each line marked (`add`, `del`, `hunk`)."""
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=CONTEXT_LINES)
    marks: Mapping[str, str] = {"+": "add", "-": "del", "@": "hunk"}
    out = []
    for line in list(lines)[2:]:  # the ---/+++ header: the card names the file
        kind = marks.get(line[:1], "same")
        out.append(f'<span class="d-{kind}">{escape(line, quote=False) or " "}</span>')
    return f'<pre class="diff">{"".join(out)}</pre>'  # each line a block: no newline between
