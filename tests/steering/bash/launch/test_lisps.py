"""The Lisps: Emacs Lisp, Scheme (Guile), Racket, Common Lisp, Clojure and babashka, Janet, Fennel.
A call is a form; an API named as a value (`#'shell-command`, `'call-process`) is unknown; a
`:refer [sh]` clause only names it."""

from __future__ import annotations

import pytest

from rein.steering.bash.launch import Launch
from rein.steering.bash.launch.lexical import read

PUSH = "git push -f"


def launches(language: str, code: str) -> tuple[Launch, ...]:
    return read(language, code, {})


def shown(launch: Launch) -> str:
    return (
        launch.shell if launch.shell is not None else " ".join("?" if a is None else a for a in launch.argv)
    )


@pytest.mark.parametrize(
    ("language", "code", "expected"),
    [
        ("elisp", '(shell-command "git push -f")', PUSH),
        ("elisp", '(message "%s" (shell-command-to-string "git push -f"))', PUSH),
        ("elisp", '(async-shell-command (concat "git push" " -f"))', PUSH),
        ("elisp", '(call-process "git" nil nil nil "push" "-f")', PUSH),
        ("elisp", '(process-lines "git" "push" "-f")', PUSH),
        ("elisp", '(start-process "p" "*p*" "git" "push" "-f")', PUSH),
        ("elisp", '(start-process-shell-command "p" nil "git push -f")', PUSH),
        ("elisp", '(make-process :name "p" :command (list "git" "push" "-f"))', PUSH),
        ("elisp", '(make-process :name "p" :command \'("git" "push" "-f"))', PUSH),
        ("elisp", '(compile "git push -f")', PUSH),
        ("elisp", '(eval (car (read-from-string "(shell-command \\"git push -f\\")")))', PUSH),
        ("elisp", '(delete-directory "~/" t)', "rm -rf $HOME/"),
        ("elisp", '(let ((s ?")) (shell-command "git push -f"))', PUSH),
        ("scheme", '(system "git push -f")', PUSH),
        ("scheme", '(system* "git" "push" "-f")', PUSH),
        ("scheme", '(use-modules (ice-9 popen)) (open-input-pipe "git push -f")', PUSH),
        ("scheme", '(execlp "git" "git" "push" "-f")', PUSH),
        ("scheme", '(eval-string "(system \\"git push -f\\")")', PUSH),
        ("racket", '(system "git push -f")', PUSH),
        ("racket", '(system* "/usr/bin/git" "push" "-f")', "/usr/bin/git push -f"),
        ("racket", '(process "git push -f")', PUSH),
        ("lisp", '(sb-ext:run-program "/usr/bin/git" (list "push" "-f") :search t)', "/usr/bin/git push -f"),
        ("lisp", '(sb-ext:run-program "git" \'("push" "-f") :search t)', PUSH),
        ("lisp", '(uiop:run-program "git push -f")', PUSH),
        ("lisp", '(uiop:run-program \'("git" "push" "-f"))', PUSH),
        ("lisp", '(ext:run-program "git" :arguments (list "push" "-f"))', PUSH),
        ("lisp", '(ext:shell "git push -f")', PUSH),
        ("clojure", '(require \'[clojure.java.shell :refer [sh]]) (sh "git" "push" "-f")', PUSH),
        ("clojure", '(clojure.java.shell/sh "git" "push" "-f" :dir ".")', PUSH),
        ("clojure", '(babashka.process/shell "git push -f")', PUSH),
        (
            "clojure",
            '(require \'[babashka.process :refer [shell]]) (shell {:out :string} "git push -f")',
            PUSH,
        ),
        ("clojure", '(p/process ["git" "push" "-f"])', PUSH),
        ("clojure", '(.exec (Runtime/getRuntime) "git push -f")', PUSH),
        ("clojure", '(load-string "(sh \\"git\\" \\"push\\" \\"-f\\")")', PUSH),
        ("janet", '(os/execute ["git" "push" "-f"] :p)', PUSH),
        ("janet", '(os/shell "git push -f")', PUSH),
        ("fennel", '(os.execute "git push -f")', PUSH),
        ("fennel", '(io.popen (.. "git push" " -f"))', PUSH),
    ],
)
def test_a_literal_command_is_read(language: str, code: str, expected: str) -> None:
    found = launches(language, code)
    assert [shown(launch) for launch in found] == [expected], found
    assert not any(launch.unknown for launch in found)


@pytest.mark.parametrize(
    ("language", "code"),
    [
        ("elisp", '(message "git push -f")'),
        ("elisp", '; (shell-command "git push -f")\n(message "hi")'),
        ("elisp", '(princ "(shell-command \\"git push -f\\")")'),
        ("elisp", '(setq shell-command-switch "-c")'),
        ("scheme", '(display "git push -f")'),
        ("scheme", '#| (system "git push -f") |# (display 1)'),
        ("racket", '(displayln "git push -f")'),
        ("lisp", '(format t "git push -f~%")'),
        ("clojure", '(println "git push -f")'),
        ("clojure", '(println \\" "git push -f")'),
        ("janet", '(print "git push -f")'),
        ("fennel", '(print "git push -f")'),
    ],
)
def test_code_that_only_prints_the_command_launches_nothing(language: str, code: str) -> None:
    assert launches(language, code) == ()


@pytest.mark.parametrize(
    ("language", "code", "unknown"),
    [
        ("elisp", "(shell-command cmd)", "built at run time"),
        ("elisp", '(funcall #\'shell-command "ls")', "referred to as a value"),
        ("elisp", '(apply \'call-process "git" nil nil nil args)', "referred to as a value"),
        ("elisp", '(funcall (intern "shell-command") "ls")', "names a process API"),
        ("elisp", '(call-process "git" nil nil nil "push" branch)', ""),
        ("elisp", '(ansi-term "/bin/bash")', "does not read"),
        ("scheme", "(system cmd)", "built at run time"),
        ("lisp", "(uiop:run-program cmd)", "built at run time"),
        ("clojure", "(sh cmd)", "run time"),
        ("clojure", "(apply sh args)", "referred to as a value"),
    ],
)
def test_what_rein_cannot_read_is_unknown(language: str, code: str, unknown: str) -> None:
    found = launches(language, code)
    if not unknown:  # a known command with an argument built at run time
        assert found and found[0].argv[-1] is None
        return
    flagged = [launch for launch in found if launch.unknown]
    assert flagged and unknown in flagged[0].unknown, found
