"""Build `cheatsheets.jsonl`: the tldr-pages examples with their placeholders filled in.

Usage: python cheatsheets_gen.py <tldr checkout> <commit> [output.jsonl]

Reads `pages/common/`, `pages/linux/` and a list of developer pages of `pages/osx/` from a tldr-pages
checkout, fills every `{{...}}` placeholder of every example with a concrete value (the tables below,
described in CHEATSHEETS.md), drops keystroke examples (`<q>`, `<Ctrl b><d>`) and exact duplicate
commands, and writes one JSON object a line, sorted by page path, then example order. The output
depends only on the checkout, so running it twice gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PLATFORMS = ("common", "linux", "osx")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# `pages/osx/` is mostly daemons, GUI helpers and aliases; keep the pages of tools a developer on a Mac
# runs from a terminal: Xcode and package managers, the BSD flavours of coreutils, and system tools.
OSX_PAGES = _words("""
    apachectl arch as base64 bc caffeinate cal carthage cat codesign cut darwin-rebuild date dd
    defaults df ditto dmesg dot_clean dtrace dtruss du fuser glibtool glibtoolize gmake head hdiutil
    installer ipconfig java_home launchctl leaks lipo llvm-lipo locate log look lpstat lsappinfo mas
    mate md5 mdfind mdls mdutil mktemp netstat networkquality nettop open orb osascript pbcopy pbpaste
    ping pkgutil plutil pod port ps qlmanage rev route sed security shuf softwareupdate spctl split
    stat sw_vers sysctl system_profiler tail tart top trash uname uptime uuidgen valet w wc whatis
    xattr xcode-select xcodebuild xcodes xcodes-runtimes xcrun xctool xed xsltproc
    """)

# ---------------------------------------------------------------------------------------------------
# Substitution tables. A value that is a tuple gives one value per position in a repeated argument
# (`{{file1 file2 ...}}`, `{{username1}}`, `{{username2}}`): the first for 1, the second for 2, ...

Value = str | tuple[str, ...]

# Placeholders matched whole (after the `...` and `a|b` handling below).
WORDS: dict[str, Value] = {
    # people, hosts and the network
    "username": ("alice", "bob"),
    "user": ("alice", "bob"),
    "user_name": ("alice", "bob"),
    "linux_username": "alice",
    "owner": "octocat",
    "author": "alice",
    "email": "alice@example.com",
    "password": "s3cret-pass",
    "new_password": "n3w-s3cret",
    "passphrase": "correct-horse-battery",
    "token": "ghp_exampletoken123",
    "access_token": "ghp_exampletoken123",
    "api_key": "sk-example-123",
    "secret": "s3cret",
    "host": ("db.example.com", "web.example.com"),
    "hostname": ("server01", "server02"),
    "remote_host": "server.example.com",
    "server": "server.example.com",
    "domain": ("example.com", "example.org"),
    "domain_name": "example.com",
    "subdomain": "api",
    "url": ("https://example.com", "https://example.org"),
    "uri": "https://example.com",
    "repository_url": "https://github.com/octocat/hello-world.git",
    "repo_url": "https://github.com/octocat/hello-world.git",
    "git_url": "https://github.com/octocat/hello-world.git",
    "remote_repository_location": "https://github.com/octocat/hello-world.git",
    "ip_address": ("192.168.1.10", "192.168.1.11"),
    "ip": "192.168.1.10",
    "address": "192.168.1.10",
    "mac_address": "00:1a:2b:3c:4d:5e",
    "mac": "00:1a:2b:3c:4d:5e",
    "bdaddr": "00:1A:7D:DA:71:13",
    "port": ("8080", "8081"),
    "local_port": "8080",
    "remote_port": "80",
    "port_number": "8080",
    "interface": "eth0",
    "interface_name": "eth0",
    "network_interface": "eth0",
    "wireless_interface": "wlan0",
    "wifi_interface": "wlan0",
    "ssid": "HomeNetwork",
    "essid": "HomeNetwork",
    "access_point_ssid": "HomeNetwork",
    "region": "us-east-1",
    "zone": "us-central1-a",
    "ip:port": "127.0.0.1:8080",
    "host:port": "localhost:8080",
    "ethX": "eth0",
    "wlanX": "wlan0",
    "/dev/sdX": ("/dev/sdb", "/dev/sdc"),
    "/dev/sdY": "/dev/sdc",
    "/dev/sdXY": "/dev/sdb1",
    "/dev/sdXN": "/dev/sdb1",
    "/dev/ttyXYZ": "/dev/ttyUSB0",
    "/dev/sgX": "/dev/sg0",
    "/dev/nstX": "/dev/nst0",
    "/dev/vg_name/lv_name": "/dev/vg0/lv_data",
    # git and other version control
    "branch_name": ("feature-login", "bugfix-header"),
    "branch": ("feature-login", "main"),
    "new_branch_name": "feature-signup",
    "target_branch": "main",
    "source_branch": "feature-login",
    "feature_branch": "feature-login",
    "remote_name": "origin",
    "remote": "origin",
    "remote_url": "https://github.com/octocat/hello-world.git",
    "commit": ("a1b2c3d", "e4f5a6b"),
    "commit_hash": ("a1b2c3d", "e4f5a6b"),
    "ancestor_commit": "a1b2c3d",
    "revision": ("a1b2c3d", "e4f5a6b"),
    "good_revision": "v1.2.0",
    "bad_revision": "HEAD",
    "revset": ("@-", "main"),
    "revsets": "@-",
    "from_revset": "main",
    "to_revset": "@",
    "before_revset": "main",
    "tag": ("v1.2.0", "latest"),
    "tag_name": "v1.2.0",
    "message": "Fix typo in README",
    "commit_message": "Fix typo in README",
    "comment": "Update dependencies",
    "repository": ("hello-world", "dotfiles"),
    "repository_name": "hello-world",
    "repo_name": "hello-world",
    "repo": "hello-world",
    "organization": "acme",
    "organization_name": "acme",
    "pr_number": "42",
    "mr_number": "42",
    "issue_number": "17",
    "issue_id": "17",
    # packages and code
    "package": ("htop", "curl"),
    "package_name": ("htop", "curl"),
    "pkg_name": ("htop", "curl"),
    "packages": "htop",
    "dependency": "lodash",
    "crate": "serde",
    "crate_name": "serde",
    "gem_name": ("rails", "rake"),
    "formula": "wget",
    "cask": "firefox",
    "module": "json",
    "module_name": "json",
    "library": "libssl",
    "library_name": "libssl",
    "plugin": "docker",
    "plugin_name": "docker",
    "version": ("1.2.3", "1.3.0"),
    "node_version": ("20", "18"),
    "go_version": "1.22.3",
    "kernel_version": "6.8.0-31-generic",
    "toolchain": "stable",
    "function_name": "main",
    "func_name": "main",
    "function": "main",
    "class_name": "UserService",
    "classname": "UserService",
    "variable": ("MY_VAR", "OTHER_VAR"),
    "variable_name": ("MY_VAR", "OTHER_VAR"),
    "var": "MY_VAR",
    "key": ("color", "editor"),
    "value": ("42", "true"),
    "new_value": "42",
    "key_name": "deploy-key",
    "property": "version",
    "property_name": "version",
    "setting": "editor",
    "setting_name": "editor",
    "option": "verbose",
    "option_name": "verbose",
    "field": "name",
    "field_name": "name",
    "column": "2",
    "column_number": ("2", "3"),
    "line_number": "42",
    "language": "python",
    "language_code": "en",
    "locale": "en_US.UTF-8",
    "encoding": "UTF-8",
    "from_encoding": "ISO-8859-1",
    "to_encoding": "UTF-8",
    "platform": "linux/amd64",
    "architecture": "x86_64",
    "arch": "x86_64",
    "target_triple": "x86_64-unknown-linux-gnu",
    "test_name": "test_login",
    "script_name": "build",
    "task": "build",
    "task_name": "build",
    "target": ("build", "test"),
    "target_name": "build",
    "make": "make",
    # processes, services and the system
    "command": ("ls -l", "pwd"),
    "command_name": "ls",
    "my_command": "ls -l",
    "program": "htop",
    "program_name": "htop",
    "executable": "python3",
    "executable_name": "python3",
    "subcommand": "status",
    "arguments": "--verbose",
    "argument": "--verbose",
    "args": "--verbose",
    "command_arguments": "--verbose",
    "options": "--verbose",
    "pid": ("1234", "5678"),
    "process_id": "1234",
    "java_pid": "1234",
    "process_name": "nginx",
    "service": "nginx",
    "service_name": "nginx",
    "unit": ("nginx.service", "sshd.service"),
    "unit_file": "nginx.service",
    "signal": "TERM",
    "job_id": ("42", "43"),
    "job_number": "1",
    "job_name": "nightly-build",
    "session_name": "work",
    "session_id": "3",
    "shell": "bash",
    "shell_name": "bash",
    "editor": "vim",
    "device": "/dev/sdb",
    "device_name": "/dev/sdb",
    "partition": "/dev/sdb1",
    "filesystem": "ext4",
    "mountpoint": "/mnt/data",
    "volume_group": "vg0",
    "vg_name": "vg0",
    "logical_volume": "lv_data",
    "group": ("developers", "docker"),
    "group_name": ("developers", "docker"),
    "group_id": "1001",
    "user_id": "1001",
    "userid": "1001",
    "uid": "1001",
    "gid": "1001",
    "id": ("1", "2"),
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "priority": "10",
    "level": "3",
    "kernel": "vmlinuz",
    # containers and the cloud
    "container": ("web", "db"),
    "container_name": ("web", "db"),
    "container_id": ("3f2a9c1b7d4e", "8b1c2d3e4f5a"),
    "image": ("nginx", "redis"),
    "image_name": ("nginx", "redis"),
    "image_id": "3f2a9c1b7d4e",
    "image:tag": ("nginx:1.25", "redis:7"),
    "pod_name": "web-7d9f8c6b5-x2kqp",
    "pod": "web-7d9f8c6b5-x2kqp",
    "deployment_name": "web",
    "deployment": "web",
    "namespace": "default",
    "node_name": ("node-1", "node-2"),
    "node": "node-1",
    "cluster_name": "dev-cluster",
    "context_name": "dev-cluster",
    "registry": "registry.example.com",
    "registry_url": "registry.example.com",
    "volume_name": "app-data",
    "volume": "app-data",
    "network_name": "app-net",
    "network": "app-net",
    "vm_name": "dev-vm",
    "instance_id": ("i-0123456789abcdef0", "i-0fedcba9876543210"),
    "instance_name": "web-1",
    "bucket_name": ("my-bucket", "backup-bucket"),
    "bucket": "my-bucket",
    "resource_group": "my-resource-group",
    "project_name": "webapp",
    "project": "webapp",
    "project_id": "my-project-123",
    "app_name": "webapp",
    "application_name": "webapp",
    "application": "webapp",
    "app": "webapp",
    "app_id": "com.example.app",
    "profile_name": "default",
    "profile": "default",
    "environment_name": "staging",
    "environment": "staging",
    "stack_name": "web-stack",
    "account_name": "mystorageaccount",
    "storage_account_name": "mystorageaccount",
    "subscription_id": "00000000-0000-0000-0000-000000000000",
    "aws_account_id": "123456789012",
    "account_id": "123456789012",
    "database_name": ("app_db", "test_db"),
    "database": "app_db",
    "db_name": "app_db",
    "dbname": "app_db",
    "table_name": "users",
    "table": "users",
    "collection_name": "users",
    "queue_name": "jobs",
    "topic": "events",
    "topic_name": "events",
    "snapshot_name": "before-upgrade",
    "snapshot": "before-upgrade",
    "secret_name": "db-password",
    "role_name": "deploy-role",
    "role": "admin",
    "template_name": "default",
    "template": "default",
    "workspace_name": "dev",
    "pipeline_name": "ci",
    "chart_name": "nginx",
    "release": "my-release",
    "model": "llama3",
    "model_name": "llama3",
    # text, patterns and numbers
    "name": ("demo", "example"),
    "new_name": "renamed",
    "old_name": "demo",
    "title": "Weekly report",
    "description": "A short description",
    "text": "Hello world",
    "input_text": "Hello world",
    "some_text": "Hello world",
    "string": ("hello", "world"),
    "search_string": "TODO",
    "search_pattern": "TODO",
    "search_term": "docker",
    "search_terms": "docker compose",
    "search_query": "docker compose",
    "keyword": ("docker", "compose"),
    "query": "docker compose",
    "pattern": ("TODO", "FIXME"),
    "regex": "^error",
    "regular_expression": "^error",
    "replacement": "WARN",
    "word": "hello",
    "prefix": "app",
    "suffix": "bak",
    "delimiter": ",",
    "separator": ",",
    "label": "bug",
    "label_name": "bug",
    "prompt": "Write a haiku about the sea",
    "subject": "Weekly report",
    "expression": "2 + 2",
    "format": "json",
    "type": "file",
    "color": "red",
    "n": ("5", "10"),
    "number": ("10", "20"),
    "count": "3",
    "num": "3",
    "seconds": "30",
    "minutes": "5",
    "hours": "2",
    "days": "7",
    "timeout": "30",
    "timeout_in_seconds": "30",
    "interval": "5",
    "duration": "10",
    "delay": "2",
    "size": "100M",
    "width": "800",
    "height": "600",
    "width_in_chars": "60",
    "height_in_chars": "10",
    "percentage": "50",
    "year": "2024",
    "month": "5",
    "date": "2024-05-01",
    "start_date": "2024-05-01",
    "end_date": "2024-05-31",
    "YYYY-MM-DD": "2024-05-01",
    "time": "12:00",
    "timestamp": "1714564800",
    "offset": "0",
    "length": "10",
    "limit": "10",
    "hash": "d41d8cd98f00b204e9800998ecf8427e",
    "path": "src",
    "filename": ("notes.txt", "todo.txt"),
    "file_name": ("notes.txt", "todo.txt"),
    "file": ("notes.txt", "todo.txt"),
    "directory": "src",
    "file.ext": "notes.txt",
    "*.ext": "*.log",
    "nixpkgs#pkg": "nixpkgs#hello",
    "phone_number": "+15551234567",
    "input": "data/input.txt",
    "output": "build/output",
    "config": "config/settings.yaml",
    "script": "scripts/deploy.sh",
    "logfile": "logs/app.log",
    "mount_point": "/mnt/usb",
    "output_executable": "bin/app",
    "alias": "ll",
    "instance": "web-1",
    "instance_type": "t3.micro",
    "subnet": "10.0.0.0/24",
    "printer": "office-printer",
    "new_printer": "office-printer",
    "playbook": "site.yml",
    "status": "running",
    "provider": "aws",
    "location": "eastus",
    "channel": "stable",
    "memory": "512m",
    "base": "main",
    "upstream": "origin/main",
    "timezone": "Europe/Berlin",
    "city": "Berlin",
    "user_agent": "Mozilla/5.0",
    "baud_rate": "115200",
    "x_offset": "10",
    "y_offset": "10",
    "pos_x": "10",
    "pos_y": "10",
    "/dev/device": "/dev/sdb",
    "i2cbus": "1",
    "resource_type.resource_name[instance_index]": "aws_instance.web[0]",
}

# Package names follow the page's ecosystem: `npm install {{package}}` gets an npm package.
ECOSYSTEMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"^(npm|npx|yarn|pnpm|pnpx|bun|bunx|ncu|nvm|node|deno|volta|corepack)\b", ("lodash", "express")),
    (
        r"^(pip|pip3|pipx|uv|uvx|poetry|pdm|conda|mamba|micromamba|pipenv|hatch|rye|python|python3)\b",
        ("requests", "flask"),
    ),
    (r"^(cargo|rustup)\b", ("ripgrep", "serde")),
    (r"^(gem|bundle|bundler|rbenv|rvm)\b", ("rails", "rake")),
    (r"^(go|gox)\b", ("github.com/spf13/cobra", "golang.org/x/tools")),
    (r"^(composer)\b", ("monolog/monolog", "symfony/console")),
    (r"^(brew|port|mas)\b", ("wget", "jq")),
    (r"^(dotnet|nuget)\b", ("Newtonsoft.Json", "Serilog")),
    (r"^(cpan|cpanm)\b", ("JSON::XS", "Moose")),
    (r"^(opam)\b", ("dune", "lwt")),
)
# A few words whose meaning depends on the tool: (page name pattern, placeholder, value).
PAGE_WORDS: tuple[tuple[str, str, str], ...] = (
    (
        r"sql|^psql|duckdb|clickhouse|^bq$|cockroach|^pgcli|^mycli|trino|presto|^hive|^spark|^dolt|^dsq",
        "query",
        "SELECT * FROM users LIMIT 10",
    ),
    (r"\.py$", "target", "dc01.corp.local"),
    (r"^systemctl", "target", "multi-user.target"),
    (r"^g?crane", "target", "registry.example.com/app:1.0"),
    (r"^g?crane", "source", "docker.io/library/nginx:1.25"),
    (r"^(rustup|cargo)", "target", "x86_64-unknown-linux-gnu"),
    (r"^(nx|bazel)", "target", "//app:server"),
)
PACKAGE_WORDS = frozenset({"package", "package_name", "pkg_name", "packages", "module_name", "dependency"})

# Snake-case names not in WORDS: by their last word, e.g. `storage_account_key` -> "key".
SUFFIXES: dict[str, Value] = {
    "id": "1234",
    "number": "42",
    "address": ("192.168.1.20", "192.168.1.21"),
    "addr": ("192.168.1.20", "192.168.1.21"),
    "ip": ("10.0.0.5", "10.0.0.6"),
    "uri": "https://example.com",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "server": "server.example.com",
    "owner": "octocat",
    "registry": "registry.example.com",
    "commit": "a1b2c3d",
    "regex": "^feature/",
    "options": "--verbose",
    "format": "json",
    "level": "3",
    "length": "16",
    "timestamp": "1714564800",
    "color": "red",
    "account": "mystorageaccount",
    "queue": "jobs",
    "table": "users",
    "url": "https://example.com",
    "key": "abc123",
    "host": "server.example.com",
    "hostname": "server01",
    "port": "8080",
    "group": "developers",
    "pattern": "TODO",
    "version": "1.2.3",
    "value": "42",
    "string": "hello",
    "text": "Hello world",
    "command": "ls -l",
    "arguments": "--verbose",
    "term": "docker",
    "terms": "docker",
    "arn": "arn:aws:iam::123456789012:role/demo",
    "title": "Weekly report",
    "branch": "feature-login",
    "label": "demo",
    "interface": "eth0",
    "message": "Fix typo in README",
    "password": "s3cret-pass",
    "token": "ghp_exampletoken123",
    "secret": "s3cret",
    "identifier": "demo-1",
    "code": "200",
    "hash": "d41d8cd98f00b204e9800998ecf8427e",
    "time": "12:00",
    "date": "2024-05-01",
    "description": "A short description",
    "prefix": "app",
    "user": "alice",
    "username": "alice",
    "email": "alice@example.com",
    "seconds": "30",
    "revision": "a1b2c3d",
    "revset": "@-",
    "tag": "v1.2.0",
    "count": "3",
    "size": "100",
    "query": "docker",
    "chars": "40",
    "path": "src",
    "location": "us-east-1",
}

# Texts that read as prose: quoted when they land outside quotes, so that they stay one argument.
PROSE = frozenset(
    {
        "message",
        "commit_message",
        "comment",
        "title",
        "description",
        "text",
        "input_text",
        "some_text",
        "subject",
        "prompt",
        "search_terms",
        "search_query",
        "query",
        "expression",
    }
)

# `path/to/<stem>[.ext]`: the folder comes from the extension, the file name from the stem.
EXT_DIRS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "src",
        _words(
            "py js ts tsx jsx mjs c h cc cpp hpp go rs java kt scala rb php cs hs ml lua sh "
            "bash zsh pl swift nim zig v d m s asm f90 cu coffee rkt raku sol lj ll bc o so "
            "dll a wasm ino y l"
        ),
    ),
    ("config", _words("conf cfg ini toml yaml yml env service desktop plist properties")),
    (
        "data",
        _words("csv tsv json jsonl xml parquet db sqlite sql fa fasta fq geojson gpkg dat ndjson avro arrow"),
    ),
    (
        "images",
        _words(
            "png jpg jpeg gif bmp svg webp tif tiff ico ppm pnm pam pbm pgm heic raw xpm xwd sgi tga pcx sif"
        ),
    ),
    ("docs", _words("pdf md txt tex html htm rtf adoc rst ps doc docx odt epub roff man")),
    ("media", _words("mp3 wav flac ogg opus m4a m4b mid mp4 mkv avi mov webm")),
    (
        "downloads",
        _words("zip tar gz tgz xz bz2 zst 7z rar deb rpm iso img qcow2 dmg pkg whl jar apk aab torrent"),
    ),
    ("certs", _words("pem key crt cer pub asc gpg sig p12 der csr")),
    ("logs", _words("log pcap pcapng journal cap")),
)

# A realistic name for the stem `file` by extension.
FILE_NAMES: dict[str, tuple[str, ...]] = {
    "txt": ("notes", "todo"),
    "py": ("app", "utils"),
    "js": ("index", "utils"),
    "ts": ("index", "utils"),
    "c": ("main", "util"),
    "cpp": ("main", "util"),
    "go": ("main", "server"),
    "rs": ("main", "lib"),
    "java": ("Main", "App"),
    "rb": ("app", "helper"),
    "sh": ("build", "deploy"),
    "pdf": ("report", "invoice"),
    "md": ("README", "CHANGELOG"),
    "html": ("index", "about"),
    "csv": ("users", "orders"),
    "json": ("config", "package"),
    "xml": ("pom", "layout"),
    "yaml": ("config", "values"),
    "yml": ("config", "values"),
    "png": ("logo", "screenshot"),
    "jpg": ("photo", "banner"),
    "svg": ("icon", "diagram"),
    "zip": ("backup", "release"),
    "log": ("app", "error"),
}

# Stems that stand for a file with no extension given.
STEMS: dict[str, tuple[str, ...]] = {
    "file": ("notes/todo.txt", "notes/ideas.txt", "notes/plan.txt"),
    "directory": ("projects/webapp", "projects/api"),
    "dir": ("projects/webapp", "projects/api"),
    "folder": ("projects/webapp", "projects/api"),
    "file_or_directory": ("build/cache", "docs/old-notes.txt"),
    "output": ("build/output",),
    "input": ("data/input.txt",),
    "output_file": ("build/output.txt",),
    "input_file": ("data/input.txt", "data/extra.txt"),
    "image": ("images/photo.png", "images/banner.png"),
    "source": ("src/app.py",),
    "source_file": ("src/main.c", "src/util.c"),
    "destination": ("backup/app.py",),
    "script": ("scripts/deploy.sh",),
    "archive": ("downloads/archive.tar.gz",),
    "config": ("config/settings.yaml",),
    "config_file": ("config/settings.yaml",),
    "configuration_file": ("config/settings.yaml",),
    "binary": ("bin/app",),
    "executable": ("bin/app",),
    "output_executable": ("bin/app",),
    "program": ("bin/app",),
    "wordlist": ("wordlists/common.txt",),
    "package": ("dist/mypkg-1.0.0.tar.gz",),
    "key": ("keys/id_ed25519",),
    "private_key": ("keys/id_ed25519",),
    "key_file": ("keys/id_ed25519",),
    "certificate": ("certs/server.crt",),
    "mount_point": ("/mnt/usb",),
    "mountpoint": ("/mnt/usb",),
    "new_root": ("/mnt/rootfs",),
    "partition": ("/dev/sdb1",),
    "device": ("/dev/sdb",),
    "data": ("data/records",),
    "project": ("projects/webapp",),
    "repository": ("projects/webapp",),
    "repo": ("projects/webapp",),
    "database": ("data/app.db",),
    "backup": ("backup/site",),
    "local_file": ("notes/todo.txt",),
    "remote_file": ("uploads/report.pdf",),
    "new_file": ("notes/new.txt",),
    "old_file": ("notes/old.txt",),
    "log_file": ("logs/app.log",),
    "logfile": ("logs/app.log",),
    "manifest": ("k8s/deployment.yaml",),
    "Dockerfile": ("docker/Dockerfile",),
    "venv": (".venv",),
    "env": (".venv",),
    "requirements": ("requirements.txt",),
    "usernames": ("wordlists/usernames.txt",),
    "passwords": ("wordlists/passwords.txt",),
}

DIR_WORDS = ("directory", "dir", "folder", "mount", "root", "location", "path", "tree", "store")


@dataclass(frozen=True)
class Page:
    platform: str
    name: str
    text: str

    @property
    def path(self) -> str:
        return f"pages/{self.platform}/{self.name}.md"


@dataclass(frozen=True)
class Example:
    description: str
    command: str


def pick(value: Value, index: int) -> str:
    """The value for position `index` (1-based) of a repeated argument."""
    if isinstance(value, str):
        return value
    return value[(index - 1) % len(value)]


class Filler:
    """Fills the placeholders of one page's examples."""

    def __init__(self, page: Page) -> None:
        self.page = page
        digest = hashlib.sha256(page.path.encode()).digest()
        self.long_options = digest[0] % 2 == 1
        self.packages: tuple[str, ...] | None = None
        for pattern, packages in ECOSYSTEMS:
            if re.match(pattern, page.name):
                self.packages = packages
                break
        self.unfilled: list[str] = []

    # -- the command as a whole --------------------------------------------------------------------

    def command(self, raw: str) -> str:
        # A bare `{{...}}` ("and so on") goes away together with its separator.
        raw = re.sub(r' "\{\{\.\.\.\}\}"| \{\{\.\.\.\}\}|,\{\{\.\.\.\}\}', "", raw)
        out: list[str] = []
        for literal, content in split_placeholders(raw):
            out.append(literal)
            if content is not None:
                filled = self.fill(content, 1)
                if content in PROSE and " " in filled and quote_state("".join(out)) is None:
                    filled = f'"{filled}"'
                out.append(filled)
        return "".join(out)

    # -- one placeholder ---------------------------------------------------------------------------

    def fill(self, content: str, index: int) -> str:
        # `[-f|--force]`, `[ls|list]`: one spelling of an option or subcommand.
        if re.fullmatch(r"\[[^\[\]]*\|[^\[\]]*\]", content):
            choices = content[1:-1].split("|")
            return choices[-1] if self.long_options else choices[0]
        # `file1 file2 ...`, `a,b,...`, `dev|prod|...`: one or two of the items.
        repeated = re.fullmatch(r"(?P<body>.*\S)(?P<sep>\s*[,;|]\s*|\s+)\.\.\.", content)
        if repeated:
            return self.fill_list(repeated["body"], repeated["sep"])
        # `path/to/file.tar[.gz|.bz2]`: the first extension.
        content = re.sub(r"\[(\.?[\w.]+)(?:\|\.?[\w.]+)+\]", r"\1", content) if "/" in content else content
        # `name|id`, `on|off`: the first alternative.
        if "|" in content and re.fullmatch(r"[\w./:@#%+<>=,~-]+( [\w./:@#%+<>=,~-]+)*(\|[^|]+)+", content):
            return self.fill(content.split("|", 1)[0], index)
        return self.fill_one(content, index)

    def fill_list(self, body: str, sep: str) -> str:
        if "|" in sep:
            return self.fill(body.split("|", 1)[0].strip(), 1)
        splitter = sep.strip() or None
        items = [item.strip() for item in body.split(splitter) if item.strip()]
        # `oldcolor1 newcolor1 oldcolor2 newcolor2`: pairs; `file1 file2`: singles.
        items = items[:2]
        joined = (sep.strip() + (" " if sep.endswith(" ") else "")) if splitter else " "
        return joined.join(self.fill(item, position) for position, item in enumerate(items, 1))

    def fill_one(self, content: str, index: int) -> str:
        if re.fullmatch(r"\.[A-Z][\w.]*", content):  # a Go template written without tldr's escapes
            return "{{" + content + "}}"
        if content in WORDS:
            if content in PACKAGE_WORDS and self.packages:
                return pick(self.packages, index)
            for page_pattern, page_word, page_value in PAGE_WORDS:
                if page_word == content and re.search(page_pattern, self.page.name):
                    return page_value
            return pick(WORDS[content], index)
        if re.search(r"(?<![\w\\])path/to\b", content):
            return re.sub(
                r"(?P<lead>~/|(?<![^\s=:'\"(,])/|(?<![\w\\]))path/to(?P<rest>/[\w.%#-]*)?(?P<after>\{)?",
                lambda m: self.path(m["lead"], m["rest"], m["after"], index),
                content,
            )
        word = re.fullmatch(r"(?P<base>[a-z][a-z_]*?[a-z])_?(?P<num>[0-9])(?P<tail>_[a-z_]+)?", content)
        if word and (word["base"] + (word["tail"] or "")) in WORDS:
            return self.fill_one(word["base"] + (word["tail"] or ""), int(word["num"]))
        if re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)+", content):
            return self.snake(content, index)
        if re.fullmatch(r"/dev/[a-z]+X[A-Z]*", content):
            return content.replace("X", "b", 1).rstrip("YNZ") + ("1" if content[-1] in "YN" else "")
        return content

    def snake(self, content: str, index: int) -> str:
        words = content.split("_")
        last = words[-1]
        head = "-".join(words[:-1])
        if last in {"file", "filename"}:
            return self.path("", "/" + "_".join(words[:-1]) + "_file", None, index)
        if last in {"directory", "dir", "folder"}:
            return self.path("", "/" + content, None, index)
        if last == "address" and words[0] in {"mac", "hardware", "bluetooth", "ap"}:
            return "00:1a:2b:3c:4d:5e"
        if last == "address" and words[0] == "email":
            return "alice@example.com"
        if last == "id" and words[0] in {"container", "image", "commit", "layer"}:
            return "3f2a9c1b7d4e"
        if words[0] == "number" or last in {"count", "amount", "bytes", "megabytes", "gb", "mb"}:
            return "4"
        if last in {"name", "names"} and words[-2] in WORDS:
            return self.fill_one(words[-2], index)
        if last in {"addr", "address", "sender", "recipient"} and words[0] in {
            "from",
            "to",
            "sender",
            "recipient",
        }:
            return ("alice@example.com", "bob@example.com")[(index - 1) % 2]
        if last in {"name", "names"}:
            return f"my-{head}" if index == 1 else f"my-{head}-{index}"
        if last in SUFFIXES:
            value = SUFFIXES[last]
            if isinstance(value, tuple) or not value.isdigit():
                return pick(value, index)
            return str(int(value) + index - 1)
        self.unfilled.append(content)
        return content

    def path(self, lead: str, rest: str | None, after: str | None, index: int) -> str:
        prefix = {"~/": "~/", "/": "/home/alice/"}.get(lead, lead)
        if not rest or rest == "/":
            return prefix + "src" + (rest or "")
        name = rest[1:]
        if after:  # `path/to/file{1..10}`: brace expansion on the bare name.
            return f"{prefix}notes/{name}{after}"
        match = re.fullmatch(r"(?P<stem>[\w%#-]*?)_?(?P<num>[0-9]?)(?P<ext>\.[\w.%#-]+)?", name)
        if not match:
            return prefix + "work/" + name
        stem, ext = match["stem"], match["ext"]
        if match["num"]:
            index = int(match["num"])
        if not stem:
            stem = "file"
        if ext is None:
            if stem in STEMS:
                value = pick(STEMS[stem], index)
            elif any(part in DIR_WORDS for part in stem.split("_")):
                words = [w for w in stem.split("_") if w not in DIR_WORDS] or ["webapp"]
                value = "projects/" + "-".join(words)
            else:
                value = "work/" + stem.replace("_", "-")
            if value.startswith("/"):
                prefix = ""
            elif index > 1 and stem not in STEMS:
                value += f"-{index}"
            return prefix + value
        extension = ext[1:].lower()
        last = extension.rsplit(".", 1)[-1]
        folder = next((d for d, exts in EXT_DIRS if last in exts or extension in exts), "work")
        if stem == "file":
            names = FILE_NAMES.get(extension, ("example", "example2"))
            base = pick(names, index)
        else:
            base = re.sub(r"_file$", "", stem) or "file"
            if index > 1:
                base += str(index)
        return f"{prefix}{folder}/{base}{ext}"


ESCAPES = ("\\{\\{", "\\}\\}")


def split_placeholders(raw: str) -> Iterator[tuple[str, str | None]]:
    """Yield (literal text, placeholder content or None) pairs, with tldr's `\\{\\{` escapes undone.

    `{{{` is a literal `{` before a placeholder and `}}}` a literal `}` after one, as in `${{{var}}}`.
    """
    literal: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        if raw.startswith(ESCAPES, i):
            literal.append(raw[i + 1] * 2)
            i += 4
        elif raw.startswith("{{{", i):
            literal.append("{")
            i += 1
        elif raw.startswith("{{", i):
            j = i + 2
            content: list[str] = []
            while j < n and not raw.startswith("}}", j):
                if raw.startswith(ESCAPES, j):
                    content.append(raw[j + 1] * 2)
                    j += 4
                else:
                    content.append(raw[j])
                    j += 1
            if j >= n:  # unterminated: keep it as text
                literal.append(raw[i:])
                break
            yield "".join(literal), "".join(content)
            literal = []
            i = j + 2
        else:
            literal.append(raw[i])
            i += 1
    yield "".join(literal), None


def quote_state(text: str) -> str | None:
    """The quote character open at the end of `text`, if any."""
    state: str | None = None
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\" and state != "'":
            escaped = True
        elif state is None and char in "'\"":
            state = char
        elif char == state:
            state = None
    return state


def examples(text: str) -> Iterator[Example]:
    """The (description, command) pairs of a tldr page."""
    description: str | None = None
    for line in text.splitlines():
        if line.startswith("- "):
            description = line[2:].strip().removesuffix(":")
        elif line.startswith("`") and line.endswith("`") and len(line) > 1 and description is not None:
            yield Example(description, line[1:-1])
            description = None


def pages(root: Path) -> Iterator[Page]:
    for platform in PLATFORMS:
        for path in sorted((root / "pages" / platform).glob("*.md")):
            if platform == "osx" and path.stem not in OSX_PAGES:
                continue
            yield Page(platform, path.stem, path.read_text(encoding="utf-8"))


# Pages of interactive programs list keystrokes (`<q>`, `<Ctrl b><d>`, vim's `:wq<Enter>`) as examples.
# They are not shell commands, so they are left out. In a shell example, ` <Enter> ` is a line break
# (`cat << EOF <Enter> text <Enter> EOF`).
KEY_START = re.compile(r"<(?:(?:Ctrl|Alt|Shift|Cmd|Super|Meta|Option|Fn) [^<>]*|[A-Z][A-Za-z0-9]*|[^\s<>])>")
KEY_INSIDE = re.compile(r"<(?:Enter|Esc|Tab|Space|(?:Ctrl|Alt) [^<>]*)>")


def is_keystrokes(command: str) -> bool:
    return bool(KEY_START.match(command) or KEY_INSIDE.search(command))


def build(root: Path, commit: str) -> tuple[list[dict[str, str]], dict[str, int], dict[str, int]]:
    rows: list[dict[str, str]] = []
    seen: set[str] = set()
    counts = dict.fromkeys(PLATFORMS, 0)
    unfilled: dict[str, int] = {}
    for page in pages(root):
        filler = Filler(page)
        for example in examples(page.text):
            command = filler.command(example.command).strip().replace(" <Enter> ", "\n")
            if not command or is_keystrokes(command):
                unfilled["<keystrokes>"] = unfilled.get("<keystrokes>", 0) + 1
                continue
            if command in seen:
                unfilled["<duplicates>"] = unfilled.get("<duplicates>", 0) + 1
                continue
            seen.add(command)
            counts[page.platform] += 1
            rows.append(
                {
                    "command": command,
                    "source": f"github:tldr-pages/tldr@{commit}:{page.path}",
                    "description": example.description,
                }
            )
        for name in filler.unfilled:
            unfilled[name] = unfilled.get(name, 0) + 1
    return rows, counts, unfilled


def main(argv: list[str]) -> int:
    if len(argv) not in {3, 4} or not re.fullmatch(r"[0-9a-f]{40}", argv[2]):
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1])
    out = Path(argv[3]) if len(argv) == 4 else Path(__file__).with_name("cheatsheets.jsonl")
    rows, counts, unfilled = build(root, argv[2])
    with out.open("w", encoding="utf-8", newline="\n") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} commands -> {out}", file=sys.stderr)
    for platform, count in counts.items():
        print(f"  {platform}: {count}", file=sys.stderr)
    keystrokes = unfilled.pop("<keystrokes>", 0)
    duplicates = unfilled.pop("<duplicates>", 0)
    print(f"  dropped: {keystrokes} keystroke examples, {duplicates} duplicates", file=sys.stderr)
    print(f"  snake_case names left as they are: {sum(unfilled.values())}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
