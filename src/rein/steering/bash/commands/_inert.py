"""Inert commands: their arguments are data, and they run no command given to them.

A command is listed here only when none of its options makes it run a program named in its arguments
(`sort --compress-program` would, so `sort` is not here; `sed` and `awk` run commands through their
scripts, so they are runners). A command rein does not know is unknown, not inert: its argv suffixes and
string arguments are checked as if they ran.
"""

from __future__ import annotations

SHELL_BUILTINS = frozenset({
    ":", "true", "false", "cd", "pushd", "popd", "dirs", "pwd", "echo", "printf", "export", "declare",
    "typeset", "local", "readonly", "unset", "read", "mapfile", "readarray", "let", "getopts", "shift",
    "set", "shopt", "test", "[", "[[", "((", "return", "exit", "break", "continue", "wait", "jobs", "fg",
    "bg", "disown", "kill", "umask", "ulimit", "hash", "type", "help", "history", "times", "caller",
    "enable", "compgen", "complete", "compopt", "logout", "suspend", "alias", "unalias", "bind",
})  # fmt: skip
"""Builtins that run no command given to them (`eval`, `source`, `exec`, `command`, `builtin`,
`trap` and `coproc` run one: they are runners)."""

_COREUTILS = frozenset({
    "ls", "dir", "vdir", "cat", "tac", "nl", "od", "hexdump", "xxd", "base32", "base64", "basenc", "fmt",
    "fold", "pr", "head", "tail", "csplit", "wc", "sum", "cksum", "b2sum", "md5sum", "sha1sum",
    "sha224sum", "sha256sum", "sha384sum", "sha512sum", "shuf", "uniq", "comm", "ptx", "tsort",
    "cut", "paste", "join", "tr", "expand", "unexpand", "cp", "mv", "rm", "rmdir", "mkdir", "mkfifo",
    "mknod", "ln", "link", "unlink", "touch", "chmod", "chown", "chgrp", "install", "shred", "truncate",
    "dd", "df", "du", "stat", "sync", "readlink", "realpath", "basename", "dirname", "pathchk", "mktemp",
    "tee", "date", "sleep", "uname", "hostname", "hostid", "id", "whoami", "groups", "users", "who",
    "logname", "tty", "nproc", "arch", "uptime", "printenv", "yes", "seq", "factor", "numfmt", "expr",
    "dircolors", "stty", "mesg", "getconf", "locale", "iconv", "file", "which", "whereis",
    "locate", "column", "rev", "look", "strings", "cmp", "diff", "diff3", "sdiff", "patch", "tree",
    "less", "more", "most", "clear", "reset", "tput", "lsof", "ps", "pgrep", "pkill", "killall", "top",
    "htop", "free", "vmstat", "iostat", "lsblk", "mount", "umount", "findmnt", "blkid", "fdisk", "mkfs",
    "mkswap", "swapon", "swapoff", "lscpu", "lspci", "lsusb", "dmesg", "journalctl", "systemctl",
    "service", "useradd", "userdel", "usermod", "groupadd", "passwd", "chpasswd", "crontab", "getent",
})  # fmt: skip
"""coreutils and the usual system tools (`dd` and `mkfs` are listed as data: their danger is their own).
`split --filter` and `sort --compress-program` run a program, so they are runners."""

_TEXT = frozenset({
    "grep", "egrep", "fgrep", "jq", "yq", "xq", "gojq", "fx", "jless",
    "xmllint", "csvlook", "csvcut", "mlr", "miller", "highlight", "pygmentize", "wdiff",
    "colordiff", "difft", "icdiff", "dos2unix", "unix2dos", "envsubst", "gettext", "msgfmt",
    "sponge", "pv", "nano", "pico", "code", "subl", "zed", "cloc", "tokei", "scc", "tldr",
    "info", "apropos", "whatis", "cowsay", "figlet", "toilet", "lolcat", "glow", "sd", "fastmod", "comby",
    "ruplacer", "ast-grep", "xsv", "qsv", "jira", "zenity", "kdialog", "howdoi", "rvim", "rview", "rgvim",
    "rgview", "red",
})  # fmt: skip
"""Text tools: their patterns, replacements and messages are text, never commands (`sd 'git push -f'
'git push --force-with-lease' README.md`). `rg --pre`, `ugrep --filter` and `bat`/`ack`/`ag --pager`
run one, so those are runners; so is `sg`, which is ast-grep or shadow's `sg group -c cmd`."""

_FILES = frozenset({
    "unzip", "gzip", "gunzip", "zcat", "bzip2", "bunzip2", "bzcat", "xz", "unxz", "xzcat", "lzma",
    "zstd", "unzstd", "zstdcat", "lz4", "7z", "7za", "unrar", "cpio", "ar", "curl",
    "rclone", "s3cmd", "ping", "ping6", "traceroute", "tracepath", "mtr", "dig",
    "nslookup", "host", "whois", "ip", "ifconfig", "netstat", "ss", "route", "arp", "nmap", "tcpdump",
    "openssl", "ssh-keygen", "ssh-add", "ssh-copy-id", "ssh-keyscan", "gpg", "gpg2", "age", "sops",
    "certutil", "keytool", "uuidgen", "shasum", "fswatch", "inotifywait", "xdg-open",
    "open", "pbcopy", "pbpaste", "xclip", "xsel", "notify-send", "say", "espeak", "convert", "magick",
    "ffmpeg", "ffprobe", "exiftool", "pdftotext", "pandoc", "redis-cli",
    "mongosh", "createdb", "dropdb", "pg_dump", "pg_restore", "mysqldump", "last", "lastb", "lastlog",
    "fastboot",
})  # fmt: skip

_DEV = frozenset({
    "glab", "tig", "lazygit", "git-lfs", "pre-commit", "pytest", "py.test", "nox",
    "coverage", "mypy", "pyright", "pylint", "flake8", "ruff", "black", "isort", "autopep8", "yapf",
    "bandit", "pip", "pip3", "twine", "maturin", "virtualenv", "cookiecutter",
    "jupyter", "ipython", "sphinx-build", "mkdocs", "pdoc", "cargo", "rustc", "rustfmt",
    "clippy-driver", "gofmt", "golangci-lint", "gopls", "dlv", "gcc", "g++", "cc", "c++", "clang",
    "clang++", "clang-format", "clang-tidy", "ld", "as", "nm", "objdump", "readelf", "strip", "ldd",
    "cmake", "ninja", "meson", "autoconf", "automake", "autoreconf", "pkg-config", "javac", "java",
    "jar", "gradle", "kotlinc", "scalac", "sbt", "dotnet", "swift", "swiftc", "xcodebuild", "zig",
    "ghc", "cabal", "stack", "mix", "elixir", "erl", "rebar3", "dart", "flutter", "tsc", "eslint",
    "prettier", "biome", "oxlint", "stylelint", "jest", "vitest", "mocha", "playwright", "cypress",
    "webpack", "rollup", "esbuild", "parcel", "vite", "next", "nuxt", "nuxi", "astro", "turbo",
    "node-gyp", "tailwindcss", "sass", "postcss", "svelte-kit", "ng", "expo", "eas", "wrangler",
    "vercel", "netlify", "serve", "http-server", "live-server", "webpack-dev-server",
    "react-scripts", "gatsby", "storybook", "uvicorn", "gunicorn", "hypercorn", "daphne", "granian",
    "waitress-serve", "flask", "django-admin", "fastapi", "streamlit", "rails", "rake", "rspec", "gem",
    "rubocop", "composer", "phpunit", "artisan", "hugo", "jekyll", "zola", "eleventy",
    "terraform", "tofu", "pulumi", "ansible-playbook", "helm", "kustomize", "aws",
    "docker-buildx", "hadolint", "shellcheck", "shfmt", "actionlint",
    "yamllint", "markdownlint", "codespell", "typos", "vale", "semgrep", "trivy", "gitleaks", "sqlfluff",
    "alembic", "prisma", "drizzle-kit", "sequelize", "knex", "protoc", "buf", "grpcurl", "httpie", "http",
    "xh", "ab", "wrk", "hey", "k6", "locust",
})  # fmt: skip
"""Development tools whose arguments are data. `strace` and the like are not here: they run what they
are given (they are unknown, so their suffixes and strings are checked); `go -exec`, `tox exec`,
`lerna exec`, `gh alias set --shell`, `vim -c '!cmd'`, `tmux new` and the like are runners."""

_SYSTEM_PACKAGES = frozenset({
    "apt-cache", "apt-mark", "apt-key", "apt-file", "dpkg-query", "dpkg-deb", "dnf", "yum", "microdnf",
    "apk", "pacman", "yay", "paru", "zypper", "emerge", "xbps-install", "xbps-query", "port", "pkg",
    "snap", "choco", "winget", "scoop",
})  # fmt: skip
"""OS package managers: their operands are package names (`apt-get install -y nodejs npm` installs
`npm`, it does not run it). `apt-get`/`apt` (`-o DPkg::Pre-Invoke::=cmd`), `dpkg` (`--pre-invoke`) and
`brew` (`bundle exec`, `sh -c`) can run a command, so they are runners."""

INERT = SHELL_BUILTINS | _COREUTILS | _TEXT | _FILES | _DEV | _SYSTEM_PACKAGES
"""The inert command names."""
