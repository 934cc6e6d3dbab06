"""The stylesheet of what `rein.html` renders (Markdown, highlighted code, tool cards, diffs), shared by
`rein export`'s inline CSS and the web page's `/static/content.css`. It reads the page's colour
variables (`--fg`, `--dim`, `--line`, `--panel`, `--error`, `--active`) and adds its own."""

from __future__ import annotations

CONTENT_CSS = """
:root { --hl-kw: #cf222e; --hl-str: #0a3069; --hl-com: #6e7781; --hl-num: #0550ae; --hl-fn: #8250df;
  --hl-name: #953800; --add-bg: #dafbe1; --add-fg: #116329; --del-bg: #ffebe9; --del-fg: #82071e;
  --hunk: #0550ae; --code-bg: #f6f8fa; }
@media (prefers-color-scheme: dark) {
  :root { --hl-kw: #ff7b72; --hl-str: #a5d6ff; --hl-com: #8b949e; --hl-num: #79c0ff; --hl-fn: #d2a8ff;
    --hl-name: #ffa657; --add-bg: #12261e; --add-fg: #7ee787; --del-bg: #2d1214; --del-fg: #ffa198;
    --hunk: #79c0ff; --code-bg: #161b22; }
}
.md { overflow-wrap: anywhere; }
.md > :first-child { margin-top: 0; }
.md > :last-child { margin-bottom: 0; }
.md p, .md ul, .md ol, .md table, .md blockquote { margin: .4rem 0; }
.md h1, .md h2, .md h3, .md h4, .md h5, .md h6 { margin: .7rem 0 .3rem; line-height: 1.25; }
.md h1 { font-size: 1.25rem; } .md h2 { font-size: 1.12rem; } .md h3 { font-size: 1rem; }
.md h4, .md h5, .md h6 { font-size: .95rem; }
.md ul, .md ol { padding-left: 1.4rem; }
.md blockquote { border-left: 3px solid var(--line); padding-left: .7rem; color: var(--dim); }
.md code { background: var(--code-bg); border-radius: 4px; padding: .05rem .3rem; }
.md pre code, pre.code code, pre.diff { background: none; padding: 0; }
.md table { border-collapse: collapse; display: block; overflow-x: auto; max-width: 100%; }
.md th, .md td { border: 1px solid var(--line); padding: .2rem .5rem; text-align: left; }
.md pre, pre.code, pre.diff, pre.args, pre.result {
  background: var(--code-bg); border: 1px solid var(--line); border-radius: 6px; padding: .45rem .6rem;
  white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100%; }
.hl .k, .hl .kd, .hl .kn, .hl .kr, .hl .kc, .hl .kt, .hl .ow, .hl .nt { color: var(--hl-kw); }
.hl .s, .hl .s1, .hl .s2, .hl .sb, .hl .sc, .hl .sd, .hl .se, .hl .sh, .hl .si, .hl .sx, .hl .sr,
.hl .ss, .hl .dl, .hl .na { color: var(--hl-str); }
.hl .c, .hl .c1, .hl .cm, .hl .cp, .hl .cs, .hl .ch, .hl .cpf { color: var(--hl-com); font-style: italic; }
.hl .m, .hl .mi, .hl .mf, .hl .mh, .hl .mo, .hl .il, .hl .mb { color: var(--hl-num); }
.hl .nf, .hl .fm, .hl .nc, .hl .nd, .hl .ne { color: var(--hl-fn); }
.hl .nb, .hl .bp, .hl .nv, .hl .vi, .hl .vg, .hl .no { color: var(--hl-name); }
.hl .gi { color: var(--add-fg); } .hl .gd { color: var(--del-fg); } .hl .err { color: var(--error); }
pre.diff span { display: block; }
pre.diff .d-add { background: var(--add-bg); color: var(--add-fg); }
pre.diff .d-del { background: var(--del-bg); color: var(--del-fg); }
pre.diff .d-hunk { color: var(--hunk); }
.tool { border: 1px solid var(--line); border-radius: 6px; padding: .35rem .6rem; margin: .4rem 0;
  background: var(--panel); }
.tool.steering { border-color: var(--steering, #bc4c00); }
.tool.error, .tool.blocked { color: var(--fg); }
.tool.error { border-left: 3px solid var(--error); }
.tool-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: .1rem .4rem; }
.tool-head code { font-size: 13px; }
.tool-head .kind { font-size: 12px; }
.tool > pre, .tool > details { margin: .35rem 0 .1rem; }
.tool details.output > summary, .tool details > summary { color: var(--dim); font-size: 13px; }
.badge.ok { color: var(--active); } .badge.pending { color: var(--dim); }
"""
