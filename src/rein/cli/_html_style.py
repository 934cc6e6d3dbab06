"""The stylesheet of `rein export`'s page: inline, so the page needs nothing from the network."""

from __future__ import annotations

CSS = """
:root { --fg: #1d1f21; --dim: #6a737d; --line: #d0d7de; --bg: #ffffff; --panel: #f6f8fa;
  --user: #eef4ff; --assistant: #ffffff; --tool: #f6f8fa; --error: #cf222e; --active: #1a7f37;
  --ttsr: #8250df; --steering: #bc4c00; --timebox: #0969da; --summary: #fff8c5; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --dim: #8b949e; --line: #30363d; --bg: #0d1117; --panel: #161b22;
    --user: #132339; --assistant: #0d1117; --tool: #161b22; --error: #f85149; --active: #3fb950;
    --ttsr: #bc8cff; --steering: #f0883e; --timebox: #58a6ff; --summary: #2e2a12; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 1.5rem; background: var(--bg); color: var(--fg);
  font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
h1 { font-size: 1.3rem; margin: 0 0 .5rem; }
header { border-bottom: 1px solid var(--line); margin-bottom: 1rem; padding-bottom: 1rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: 0; }
dl.facts dt { color: var(--dim); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
ul.warnings { color: var(--error); }
.legend span { margin-right: .8rem; }
pre, code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: .3rem 0; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.entry { border-left: 3px solid var(--line); padding: .4rem .7rem; margin: .4rem 0; }
.entry.active { border-left-color: var(--active); }
.entry.leaf { box-shadow: inset 0 -2px 0 var(--active); }
.meta { color: var(--dim); font-size: 12px; }
.meta a { color: var(--dim); }
.kind { font-weight: 600; color: var(--fg); text-transform: uppercase; letter-spacing: .03em; }
.user { background: var(--user); }
.assistant { background: var(--assistant); }
.tool-result, details.tool { background: var(--tool); }
.error, .blocked > summary { color: var(--error); }
.badge { display: inline-block; border: 1px solid currentColor; border-radius: .6rem; padding: 0 .45rem;
  font-size: 11px; margin-left: .3rem; }
.badge.active-mark, .badge.leaf-mark { color: var(--active); }
.badge.label { color: var(--fg); background: var(--summary); }
.ttsr { border-left-color: var(--ttsr); } .badge.ttsr { color: var(--ttsr); }
.steering { border-left-color: var(--steering); } .badge.steering { color: var(--steering); }
.timebox { border-left-color: var(--timebox); } .badge.timebox { color: var(--timebox); }
.compaction, .branch-summary { background: var(--summary); }
.meta-entry { font-size: 13px; color: var(--dim); padding-top: .1rem; padding-bottom: .1rem; }
details { margin: .3rem 0; }
details > summary { cursor: pointer; }
details.tool { border: 1px solid var(--line); border-radius: 4px; padding: .2rem .5rem; }
details.thinking > summary { color: var(--dim); font-style: italic; }
.output { border-top: 1px dashed var(--line); margin-top: .3rem; }
.fork { margin: .6rem 0 .6rem .4rem; }
details.branch { border: 1px solid var(--line); border-radius: 4px; padding: .2rem .6rem; margin: .4rem 0; }
details.branch.active { border-color: var(--active); }
details.branch > summary { font-weight: 600; }
"""
