"""The structure of an awk program's token stream (from `_awk_lex`): matching brackets, each token's
nesting and the action it is in (BEGIN, main, END, a function), the scalar assignments, and when a
variable may be resolved to the literal the program assigns it. Also where the operands of `|` end.
It computes no values (`_awk` does)."""

from __future__ import annotations

from dataclasses import dataclass

from rein.steering.bash.launch.awk._lex import KEYWORDS, Token

ASSIGN = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "^=", "**="})
LOWER = frozenset({"<", "<=", ">", ">=", "==", "!=", "~", "!~", "&&", "||", "?", ":", ">>", "|", "|&", ","})
"""Operators that bind less tightly than concatenation: an expression holding one is no string we know."""
_OPERAND_END = ASSIGN | LOWER | {";", "{", "}", "(", "["}
"""Where the command to the left of `| getline` starts (scanning back)."""
_STATEMENT_END = frozenset({";", "}", ")", "]"})
_SPECIAL_VARIABLES = frozenset({
    "NR", "NF", "FNR", "FILENAME", "FS", "OFS", "RS", "ORS", "SUBSEP", "CONVFMT", "OFMT", "RSTART",
    "RLENGTH", "RT", "ERRNO", "ARGC", "ARGV", "ENVIRON", "PROCINFO", "SYMTAB", "FUNCTAB", "FIELDWIDTHS",
    "FPAT", "IGNORECASE", "LINT", "BINMODE", "TEXTDOMAIN",
})  # fmt: skip
"""Variables awk itself sets or reads: never resolved to a literal the program gave them."""
_PHASES = {"BEGIN": "BEGIN", "END": "END", "BEGINFILE": "main", "ENDFILE": "main"}


@dataclass(frozen=True, slots=True)
class _Site:
    """An assignment to a scalar variable."""

    index: int
    value: str | None
    """The literal assigned (juxtaposed string literals), None for anything else."""
    action: int
    phase: str
    unconditional: bool


class Program:
    def __init__(self, tokens: tuple[Token, ...]) -> None:
        self.tokens = tokens
        self.match: dict[int, int] = {}
        self.opener: dict[int, int] = {}
        self.nest: list[int] = []
        self.braces: list[int] = []
        self.unbalanced = 0
        self.actions: list[tuple[int, str]] = []
        self._structure()
        self.sites: dict[str, list[_Site]] = {}
        self._find_sites()
        self.symtab = any(token.kind == "name" and token.text == "SYMTAB" for token in tokens)

    def is_token(self, index: int, *texts: str) -> bool:
        """Whether the token at `index` is one of these operators or names."""
        if not 0 <= index < len(self.tokens):
            return False
        token = self.tokens[index]
        return token.kind in ("op", "name") and token.text in texts

    def _structure(self) -> None:
        """Brackets' matches, each token's bracket nesting and the action (BEGIN, main, END,
        function) it belongs to."""
        stack: list[int] = []
        action, phase, pending, braces = -1, "", "main", 0
        for index, token in enumerate(self.tokens):
            text = token.text if token.kind == "op" else ""
            if token.kind == "name" and not braces:
                pending = _PHASES.get(
                    token.text, "function" if token.text in ("function", "func") else pending
                )
            if text == "{" and not braces:
                action, phase, pending = action + 1, pending, "main"
            self.actions.append((action, phase) if braces or text == "{" else (-1, ""))
            self.nest.append(len(stack) - braces)
            self.braces.append(braces)
            if text in ("(", "[", "{"):
                stack.append(index)
                braces += text == "{"
            elif text in (")", "]", "}"):
                opener = {")": "(", "]": "[", "}": "{"}[text]
                if not stack or self.tokens[stack[-1]].text != opener:
                    self.unbalanced = self.unbalanced or token.line
                    continue
                self.match[stack[-1]] = index
                self.opener[index] = stack.pop()
                braces -= text == "}"
        if stack:
            self.unbalanced = self.unbalanced or self.tokens[stack[0]].line

    def _find_sites(self) -> None:
        tokens = self.tokens
        for index, token in enumerate(tokens):
            if token.kind != "name" or token.text in KEYWORDS or self.is_token(index - 1, "$", "@"):
                continue
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            after = following.text if following is not None and following.kind == "op" else ""
            if after in ("(", "["):
                continue
            if after == "=":
                self._add(token.text, index, self._literal(index + 2))
            elif (
                after in ASSIGN
                or after in ("++", "--")
                or self.is_token(index - 1, "++", "--", "getline")
                or (
                    self.is_token(index - 2, "for")
                    and self.is_token(index - 1, "(")
                    and self.is_token(index + 1, "in")
                )
            ):
                self._add(token.text, index, None)
        for index, token in enumerate(tokens):  # sub() and gsub() assign their third argument
            if token.kind == "name" and token.text in ("sub", "gsub") and self.is_token(index + 1, "("):
                close = self.match.get(index + 1, len(tokens))
                commas = [
                    at for at in range(index + 2, close) if self.is_token(at, ",") and self.top(at, index + 1)
                ]
                if len(commas) == 2 and close - commas[1] == 2 and tokens[commas[1] + 1].kind == "name":
                    self._add(tokens[commas[1] + 1].text, commas[1] + 1, None)

    def top(self, index: int, opener: int) -> bool:
        return self.nest[index] == self.nest[opener] + 1

    def _literal(self, start: int) -> str | None:
        """The value of juxtaposed string literals from `start` to the end of the statement."""
        end = start
        while end < len(self.tokens) and self.tokens[end].kind == "str":
            end += 1
        ends = end == len(self.tokens) or self.tokens[end].kind == "nl" or self.is_token(end, ";", "}")
        return "".join(token.text for token in self.tokens[start:end]) if end > start and ends else None

    def _add(self, name: str, index: int, value: str | None) -> None:
        action, phase = self.actions[index]
        site = _Site(index, value, action, phase, self.unconditional(index))
        self.sites.setdefault(name, []).append(site)

    def unconditional(self, index: int) -> bool:
        """Whether the statement at `index` runs whenever its action does: directly in the action's
        braces, not the body of an `if`, `else`, loop or `do`."""
        if self.nest[index] or self.braces[index] != 1:
            return False
        before = index - 1
        if self.is_token(before, "{"):
            return True
        if not (self.is_token(before, ";") or (before >= 0 and self.tokens[before].kind == "nl")):
            return False
        while before >= 0 and self.tokens[before].kind == "nl":
            before -= 1
        if self.is_token(before, "else", "do"):
            return False
        if self.is_token(before, ")"):
            return not self.is_token(self.opener.get(before, -1) - 1, "if", "while", "for")
        return True

    def resolve(self, name: str, use: int) -> str | None:
        """The literal a variable holds at `use`, when the program assigns it once, unconditionally,
        from literals, before the use: in a BEGIN action for a use in BEGIN, or earlier in the same
        action. A BEGIN value used later could be replaced by an operand assignment (`awk '...' v=x`),
        and `-v` values hold until the program's own assignment runs."""
        sites = self.sites.get(name, [])
        if self.symtab or name in _SPECIAL_VARIABLES or len(sites) != 1:
            return None
        site, (action, phase) = sites[0], self.actions[use]
        if site.value is None or not site.unconditional or phase in ("", "function"):
            return None
        if site.phase == "BEGIN" and phase == "BEGIN":
            return site.value if (action, use) > (site.action, site.index) else None
        return site.value if action == site.action and use > site.index else None

    def operand_before(self, pipe: int) -> int:
        """Where the command of `cmd | getline` starts: concatenation binds tighter than `|`."""
        at = pipe - 1
        while at >= 0:
            token = self.tokens[at]
            if token.kind == "op" and token.text in (")", "]"):
                if at not in self.opener:
                    break
                at = self.opener[at] - 1
                continue
            if token.kind == "nl" or (token.kind == "op" and token.text in _OPERAND_END):
                break
            if token.kind == "name" and token.text in KEYWORDS:
                break
            at -= 1
        return at + 1

    def statement_end(self, start: int) -> int:
        """Where the command of `print | cmd` ends: the end of the statement (newlines right after
        the `|` are skipped: awk would reject them, and the command is more likely read than not)."""
        at = start
        while at < len(self.tokens) and self.tokens[at].kind == "nl":
            at += 1
        while at < len(self.tokens):
            token = self.tokens[at]
            if token.kind == "op" and token.text in ("(", "[") and at in self.match:
                at = self.match[at] + 1
                continue
            if token.kind == "nl" or (token.kind == "op" and token.text in _STATEMENT_END):
                break
            if token.kind == "name" and token.text == "else":
                break
            at += 1
        return at

    def printer(self, pipe: int) -> str:
        """`print` or `printf`: the statement the output pipe at `pipe` belongs to."""
        at = pipe - 1
        while at >= 0 and self.tokens[at].kind != "nl" and not self.is_token(at, ";", "{", "}"):
            if self.tokens[at].kind == "name" and self.tokens[at].text in ("print", "printf"):
                return self.tokens[at].text
            at -= 1
        return "print"
