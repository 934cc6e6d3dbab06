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
    "fold", "pr", "head", "tail", "split", "csplit", "wc", "sum", "cksum", "b2sum", "md5sum", "sha1sum",
    "sha224sum", "sha256sum", "sha384sum", "sha512sum", "sort", "shuf", "uniq", "comm", "ptx", "tsort",
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
"""coreutils and the usual system tools (`sort` runs `--compress-program`, but only a name, not a
command line rein could check: it is listed as data, like `dd` and `mkfs`, whose danger is their own)."""

_TEXT = frozenset({
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "ugrep", "jq", "yq", "xq", "gojq", "fx", "jless",
    "xmllint", "csvlook", "csvcut", "mlr", "miller", "bat", "batcat", "highlight", "pygmentize", "wdiff",
    "colordiff", "delta", "difft", "icdiff", "dos2unix", "unix2dos", "envsubst", "gettext", "msgfmt",
    "sponge", "pv", "nano", "pico", "code", "subl", "zed", "cloc", "tokei", "scc", "tldr",
    "info", "apropos", "whatis", "cowsay", "figlet", "toilet", "lolcat", "glow",
})  # fmt: skip

_FILES = frozenset({
    "unzip", "gzip", "gunzip", "zcat", "bzip2", "bunzip2", "bzcat", "xz", "unxz", "xzcat", "lzma",
    "zstd", "unzstd", "zstdcat", "lz4", "7z", "7za", "unrar", "cpio", "ar", "curl", "aria2c",
    "ftp", "rclone", "s3cmd", "ping", "ping6", "traceroute", "tracepath", "mtr", "dig",
    "nslookup", "host", "whois", "ip", "ifconfig", "netstat", "ss", "route", "arp", "nmap", "tcpdump",
    "openssl", "ssh-keygen", "ssh-add", "ssh-copy-id", "ssh-keyscan", "gpg", "gpg2", "age", "sops",
    "certutil", "keytool", "uuidgen", "shasum", "fswatch", "inotifywait", "xdg-open",
    "open", "pbcopy", "pbpaste", "xclip", "xsel", "notify-send", "say", "espeak", "convert", "magick",
    "ffmpeg", "ffprobe", "exiftool", "pdftotext", "pandoc", "sqlite3", "psql", "mysql", "redis-cli",
    "mongosh", "createdb", "dropdb", "pg_dump", "pg_restore", "mysqldump",
})  # fmt: skip

_DEV = frozenset({
    "gh", "glab", "hub", "tig", "lazygit", "git-lfs", "pre-commit", "pytest", "py.test", "tox", "nox",
    "coverage", "mypy", "pyright", "pylint", "flake8", "ruff", "black", "isort", "autopep8", "yapf",
    "bandit", "pip", "pip3", "pipenv", "twine", "maturin", "pyenv", "virtualenv", "cookiecutter",
    "jupyter", "ipython", "sphinx-build", "mkdocs", "pdoc", "cargo", "rustc", "rustup", "rustfmt",
    "clippy-driver", "go", "gofmt", "golangci-lint", "gopls", "dlv", "gcc", "g++", "cc", "c++", "clang",
    "clang++", "clang-format", "clang-tidy", "ld", "as", "nm", "objdump", "readelf", "strip", "ldd",
    "cmake", "ninja", "meson", "autoconf", "automake", "autoreconf", "pkg-config", "javac", "java",
    "jar", "mvn", "gradle", "kotlinc", "scalac", "sbt", "dotnet", "swift", "swiftc", "xcodebuild", "zig",
    "ghc", "cabal", "stack", "mix", "elixir", "erl", "rebar3", "dart", "flutter", "tsc", "eslint",
    "prettier", "biome", "oxlint", "stylelint", "jest", "vitest", "mocha", "playwright", "cypress",
    "webpack", "rollup", "esbuild", "parcel", "vite", "next", "nuxt", "nuxi", "astro", "turbo", "nx",
    "lerna", "node-gyp", "tailwindcss", "sass", "postcss", "svelte-kit", "ng", "expo", "eas", "wrangler",
    "vercel", "netlify", "firebase", "serve", "http-server", "live-server", "webpack-dev-server",
    "react-scripts", "gatsby", "storybook", "uvicorn", "gunicorn", "hypercorn", "daphne", "granian",
    "waitress-serve", "flask", "django-admin", "fastapi", "streamlit", "rails", "rake", "rspec", "gem",
    "rubocop", "composer", "phpunit", "artisan", "hugo", "jekyll", "zola", "eleventy",
    "terraform", "tofu", "pulumi", "ansible-playbook", "helm", "kustomize", "aws",
    "docker-buildx", "hadolint", "shellcheck", "shfmt", "actionlint",
    "yamllint", "markdownlint", "codespell", "typos", "vale", "semgrep", "trivy", "gitleaks", "sqlfluff",
    "alembic", "prisma", "drizzle-kit", "sequelize", "knex", "protoc", "buf", "grpcurl", "httpie", "http",
    "xh", "ab", "wrk", "hey", "k6", "locust",
})  # fmt: skip
"""Development tools whose arguments are data. `strace`, `tmux`, `vim` and the like are not here:
they run what they are given (they are unknown, so their suffixes and strings are checked)."""

INERT = SHELL_BUILTINS | _COREUTILS | _TEXT | _FILES | _DEV
"""The inert command names."""
