"""What GNU make defines itself: default variables (`$(MAKE)`, `$(CC)`, `$(RM)`, `COMPILE.c`...) and
the built-in implicit rules whose recipes run them (`%.o: %.c` runs `$(CC) $(CFLAGS) ... -c $<`).
A makefile that sets one of their variables (`CC = rm -rf /`) changes what `make foo.o` runs
without a rule of its own, so the reader checks those recipes then too."""

from __future__ import annotations

import re

DEFAULTS = {
    "SHELL": "/bin/sh", ".SHELLFLAGS": "-c", "MAKE": "make", "RM": "rm -f", "CC": "cc", "CXX": "g++",
    "CPP": "$(CC) -E", "AR": "ar", "ARFLAGS": "rv", "AS": "as", "LD": "ld", "LEX": "lex", "YACC": "yacc",
    "OUTPUT_OPTION": "-o $@",
    "COMPILE.c": "$(CC) $(CFLAGS) $(CPPFLAGS) $(TARGET_ARCH) -c",
    "LINK.c": "$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH)",
    "LINK.o": "$(CC) $(LDFLAGS) $(TARGET_ARCH)",
    "COMPILE.cc": "$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(TARGET_ARCH) -c",
    "COMPILE.cpp": "$(COMPILE.cc)",
    "LINK.cc": "$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(LDFLAGS) $(TARGET_ARCH)",
    "COMPILE.s": "$(AS) $(ASFLAGS) $(TARGET_MACH)",
    "PREPROCESS.S": "$(CC) -E $(CPPFLAGS)",
    "YACC.y": "$(YACC) $(YFLAGS)",
    "LEX.l": "$(LEX) $(LFLAGS) -t",
}  # fmt: skip
"""Variables make defines itself; the environment overrides them, but never SHELL."""
FLAGS = frozenset({
    "CFLAGS", "CPPFLAGS", "CXXFLAGS", "LDFLAGS", "LDLIBS", "LOADLIBES", "TARGET_ARCH", "TARGET_MACH",
    "ASFLAGS", "YFLAGS", "LFLAGS",
})  # fmt: skip
"""Variables make leaves unset that its built-in rules use: empty there, unless set."""
RULES: tuple[tuple[str, str, str], ...] = (
    ("%.o", "%.c", "$(COMPILE.c) $(OUTPUT_OPTION) $<"),
    ("%", "%.c", "$(LINK.c) $^ $(LOADLIBES) $(LDLIBS) -o $@"),
    ("%", "%.o", "$(LINK.o) $^ $(LOADLIBES) $(LDLIBS) -o $@"),
    ("%.o", "%.cc", "$(COMPILE.cc) $(OUTPUT_OPTION) $<"),
    ("%.o", "%.cpp", "$(COMPILE.cpp) $(OUTPUT_OPTION) $<"),
    ("%", "%.cc", "$(LINK.cc) $^ $(LOADLIBES) $(LDLIBS) -o $@"),
    ("%.o", "%.s", "$(COMPILE.s) -o $@ $<"),
    ("%.s", "%.S", "$(PREPROCESS.S) $< > $@"),
    ("%.c", "%.y", "$(YACC.y) $<"),
    ("%.c", "%.l", "$(LEX.l) $< > $@"),
    ("(%)", "%", "$(AR) $(ARFLAGS) $@ $<"),
)
"""Target pattern, prerequisite pattern, recipe of the built-in rules that run a default variable."""


def _reach(text: str) -> frozenset[str]:
    """The variables a default value or recipe refers to, through the defaults."""
    names = frozenset(re.findall(r"\$\(([A-Za-z_.]+)\)", text))
    return names.union(*(_reach(DEFAULTS[name]) for name in names if name in DEFAULTS))


REACH = tuple(_reach(recipe) for _, _, recipe in RULES)
"""For each rule, the variables whose values change what it runs."""
