// Regenerates tests/ttsr/data/js_dialect.json: each case with JavaScript's verdict, computed by node.
// Not run by the suite: run `node tests/ttsr/js_dialect_gen.mjs` after editing CASES, and commit the data.
// A condition is compiled as the JavaScript agents compile it: a leading `(?ims)` group becomes flags.
import { writeFileSync } from "node:fs";

const CASES = [
  // [note, pattern, flags, input]
  ["$ is the very end: not before a final newline", "\\}$", "", "function f() {}\n"],
  ["$ at the very end", "\\}$", "", "function f() {}"],
  ["no tiny functions: \\s* may eat the newline itself", "\\{\\s*\\}\\s*$", "", "f() {}\n"],
  ["$ with m is a line end", "\\}$", "m", "{}\nnext"],
  ["^ is the start only", "^import", "", "x\nimport os"],
  ["^ with m is a line start", "^import", "m", "x\nimport os"],
  ["\\d is ASCII: Arabic-Indic digits", "\\d{3}", "", "\u0661\u0662\u0663"],
  ["\\d is ASCII: ASCII digits", "\\d{3}", "", "id 123"],
  ["\\D includes Arabic-Indic digits", "x\\D", "", "x\u0661"],
  ["\\w is ASCII: accented letters", "^\\w+$", "", "caf\u00e9"],
  ["\\w is ASCII: plain word", "^\\w+$", "", "cafe"],
  ["\\W matches an accented letter", "caf\\W", "", "caf\u00e9"],
  ["\\b next to an accented letter", "\\bcaf", "", "\u00e9caf"],
  ["\\b after an accented letter ends a word", "caf\\b", "", "caf\u00e9"],
  ["\\B between ASCII and an accented letter", "caf\\B", "", "caf\u00e9"],
  ["\\s includes U+00A0", "a\\sb", "", "a\u00a0b"],
  ["\\s includes U+FEFF", "a\\sb", "", "a\ufeffb"],
  ["\\s excludes U+001C", "a\\sb", "", "a\u001cb"],
  ["\\s excludes U+0085", "a\\sb", "", "a\u0085b"],
  ["\\s includes U+3000", "a\\sb", "", "a\u3000b"],
  ["\\S in a class: [^\\S\\n] excludes newline", "a[^\\S\\n]b", "", "a\nb"],
  ["[^\\S\\n] keeps a tab", "a[^\\S\\n]b", "", "a\tb"],
  ["\\d in a class", "[\\d.]{4}", "", "1.25"],
  ["\\D in a class with a letter", "^[a\\D]+$", "", "abc"],
  ["\\W in a class rejects digits", "^[\\W]+$", "", "12"],
  ["named group", "(?<year>\\d{4})-(?<month>\\d\\d)", "", "on 2024-05"],
  ["named backreference", "(?<q>['\"]).*\\k<q>", "", "say \"hi\" now"],
  ["named backreference mismatch", "(?<q>['\"])x\\k<q>", "", "'x\""],
  ["numbered backreference", "(a)\\1", "", "aa"],
  ["s flag: . crosses a newline", "a.b", "s", "a\nb"],
  ["without s: . stops at a newline", "a.b", "", "a\nb"],
  ["without s: . stops at a carriage return", "a.b", "", "a\rb"],
  ["without s: . stops at U+2028", "a.b", "", "a\u2028b"],
  ["u flag: \\u{1F600}", "\\u{1F600}", "u", "smile \u{1F600}"],
  ["without u: \\u{3} is u three times", "\\u{3}", "", "uuu"],
  ["a surrogate pair escape", "\\uD83D\\uDE00", "", "smile \u{1F600}"],
  ["u flag: \\p{L}", "^\\p{L}+$", "u", "\u00e9t\u00e9"],
  ["without u: \\p is p", "\\p{L}", "", "p{L}"],
  ["i flag", "todo", "i", "TODO later"],
  ["i flag with a non-ASCII letter", "\u00e9t\u00e9", "i", "\u00c9T\u00c9"],
  ["inline flag group (?i)", "(?i)todo", "", "ToDo"],
  ["inline flag group (?ims)", "(?ims)^a.b$", "", "x\nA\nB\ny"],
  ["\\xHH", "\\x41", "", "A"],
  ["\\uXXXX", "\\u00e9", "", "caf\u00e9"],
  ["\\cJ is a newline", "a\\cJb", "", "a\nb"],
  ["\\0 is NUL", "a\\0b", "", "a\u0000b"],
  ["legacy octal \\101", "\\101", "", "A"],
  ["identity escape \\e is e", "\\e", "", "e"],
  ["identity escape \\a is a", "\\a", "", "a"],
  ["{ not a quantifier is literal", "a{,5}", "", "a{,5}"],
  ["{,5} is not a quantifier", "a{,5}", "", "aaa"],
  ["lone } and ] are literal", "x}]", "", "x}]"],
  ["[] matches nothing", "a[]", "", "a"],
  ["[^] matches anything", "a[^]b", "", "a\nb"],
  ["] first in a class closes it", "[]a]", "", "a]"],
  ["lazy quantifier", "a.*?b", "", "axxb"],
  ["lookahead", "foo(?=bar)", "", "foobar!"],
  ["negative lookbehind", "(?<!x)foo", "", "xfoo"],
  ["debugger as a word", "\\bdebugger\\b", "", "call debugger;"],
  ["debugger in a longer word", "\\bdebugger\\b", "", "debuggerMode = 1"],
  // The same classes on the `regex` module's path (lookaround sends a rule there):
  ["\\d before a lookbehind: Arabic-Indic digit", "(?<=\\d)px", "", "\u0661px"],
  ["\\d before a lookbehind: ASCII digit", "(?<=\\d)px", "", "1px"],
  ["\\w+ before a lookahead: accented letters", "^\\w+(?=;)", "", "caf\u00e9;"],
  ["(?<!\\w) after an accented letter", "(?<!\\w)caf", "", "\u00e9caf"],
  ["\\b then a lookahead on an accented letter", "caf\\b(?=\u00e9)", "", "caf\u00e9"],
  ["\\b with a lookahead after an accented letter", "\\bcaf(?!x)", "", "\u00e9caf"],
  ["\\s in a lookahead: U+00A0", "a(?=\\s)", "", "a\u00a0"],
  ["\\s in a lookahead: U+0085", "a(?=\\s)", "", "a\u0085"],
  ["a backreference to a \\w", "(\\w)\\1", "", "\u00e9\u00e9"],
  ["$ on the regex path: not before a final newline", "(?<=\\{)\\}$", "", "f() {}\n"],
  ["$ on the regex path: at the very end", "(?<=\\{)\\}$", "", "f() {}"],
];

function compile(pattern, flags) {
  const match = /^\(\?([a-z]+)\)/.exec(pattern);
  if (match && /^[ims]+$/.test(match[1])) {
    const inline = Array.from(new Set(match[1])).join("");
    return new RegExp(pattern.slice(match[0].length), Array.from(new Set(inline + flags)).join(""));
  }
  return new RegExp(pattern, flags);
}

const rows = CASES.map(([note, pattern, flags, input]) => ({
  note,
  pattern,
  flags,
  input,
  js: compile(pattern, flags).test(input),
}));
const out = new URL("./data/js_dialect.json", import.meta.url);
writeFileSync(out, JSON.stringify({ node: process.version, rows }, null, 1) + "\n");
console.log(`${rows.length} rows written to ${out.pathname}`);
