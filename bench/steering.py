"""Steering benchmark: evaluation time per command, and the wall time of one `rein check` process.

    python -m bench.steering

Targets (issue 2): median evaluation under 100 us and p99 under 1 ms per command, over 200+ realistic
commands with the default rules plus 100 extra rules; a `rein check` process under 150 ms.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench._project import DISK_COMMANDS, make_project
from rein.gitio import host_context
from rein.steering import Context, MemoryEntries, Steering, ToolCall, build_policy, parse_layer

BASE = [
    "ls -la",
    "git status",
    "git diff --stat",
    "git log --oneline -20",
    "git add -A && git commit -m 'fix: handle empty input'",
    "git push origin feature/login",
    "git push --force-with-lease",
    "git checkout -b fix/typo",
    "git switch main && git pull --rebase",
    "git fetch --all --prune",
    "git stash && git pull && git stash pop",
    "git rebase -i HEAD~3",
    "git reset --soft HEAD~1",
    "git branch -d merged-branch",
    "pytest -q tests/unit",
    "python -m pytest -x --lf",
    "python3 -m pip install -r requirements.txt",
    "uv pip install -e '.[dev]'",
    "make test",
    "make -C build all",
    "npm test",
    "npm run build",
    "npm install --save-dev typescript",
    "pnpm install --frozen-lockfile",
    "npx tsc --noEmit",
    "cargo build --release",
    "cargo test -- --nocapture",
    "go test ./...",
    "go build -o bin/app ./cmd/app",
    "docker build -t app:latest .",
    "docker compose up -d db",
    "rg -n 'TODO' src/",
    "grep -rn 'def main' --include='*.py' .",
    "find . -name '*.pyc' -delete",
    "find src -type f -name '*.ts' | xargs wc -l",
    "cat package.json | jq '.scripts'",
    "sed -i 's/foo/bar/g' src/config.py",
    "awk '{print $1}' access.log | sort | uniq -c | sort -rn | head",
    "mkdir -p build/out && cp -r assets build/out/",
    "rm -rf ./build ./dist",
    "rm -rf node_modules && npm ci",
    "tar -czf release.tar.gz dist/",
    "curl -fsSL https://example.com/install.sh -o install.sh",
    "chmod +x scripts/deploy.sh",
    "./scripts/lint.sh --fix",
    "cd frontend && npm run lint",
    "cd backend && python manage.py migrate",
    "export NODE_ENV=production && npm run build",
    "FOO=bar BAZ=qux ./run.sh",
    'for f in *.md; do echo "$f"; done',
    "if [ -f .env ]; then source .env; fi",
    'while read -r line; do echo "$line"; done < input.txt',
    'echo "$(date +%Y-%m-%d)" > VERSION',
    "VERSION=$(git describe --tags) && echo $VERSION",
    "cat > src/hello.py <<'EOF'\nprint('hello')\nEOF",
    "python - <<'EOF'\nimport json\nprint(json.dumps({}))\nEOF",
    "sudo apt-get install -y jq",
    "timeout 60 pytest tests/integration",
    "nohup ./worker.sh > worker.log 2>&1 &",
    "ssh deploy@host 'systemctl restart app'",
    "bash -c 'cd /tmp && ls'",
    "env -C sub git status",
    "git -C ../lib log -1",
    "diff <(sort a.txt) <(sort b.txt)",
    "python -c 'import sys; print(sys.version)'",
    "node -e 'console.log(process.version)'",
    "git push --force",
    "git reset --hard origin/main",
    "rm -rf ~",
    "git clean -fdx",
    "git checkout -- .",
    "git branch -D old",
    "git stash drop",
    "npm run dev",
    "sudo bash -c 'rm -rf /'",
    'eval "$CMD"',
    "echo $(git reset --hard)",
]


def corpus() -> list[str]:
    commands = list(BASE)
    for index in range(len(BASE)):
        base = BASE[index]
        commands.append(f"cd pkg{index} && {base}")
        commands.append(f"{base} 2>&1 | tail -n 20")
    return commands


def extra_rules(count: int) -> str:
    tools = ["kubectl", "terraform", "helm", "aws", "gcloud", "az", "psql", "mysql", "redis-cli", "mongo"]
    blocks: list[str] = []
    for index in range(count):
        tool = tools[index % len(tools)]
        if index % 3 == 0:
            body = f'pattern = "\\\\b{tool}\\\\s+delete\\\\s+ns{index}\\\\b"'
        elif index % 3 == 1:
            body = f'command = "{tool}"\nsubcommand = "destroy{index}"'
        else:
            body = (
                f'command = "{tool}"\nflags = ["--force-{index}"]\n[rule.when]\nbranch = ["release/{index}"]'
            )
        blocks.append(f'[[rule]]\nname = "extra-{index}"\nreason = "extra rule {index}"\n{body}\n')
    return "\n".join(blocks)


def measure_evaluate(
    engine: Steering, commands: list[str], rounds: int, project: Path | None = None
) -> list[float]:
    """Microseconds per evaluation; with `project`, in that directory with its files read from disk
    (the host's cache warm, as in the hook daemon)."""
    context = Context(cwd="/home/dev/project", home="/home/dev", branch="feature", entries=MemoryEntries())
    if project is not None:
        context = host_context(str(project), str(project.parent), branch="feature")
    for command in commands:  # warm up: first parse builds the parser
        engine.evaluate(ToolCall(tool="bash", command=command), context)
    samples: list[float] = []
    for _ in range(rounds):
        for command in commands:
            call = ToolCall(tool="bash", command=command)
            start = time.perf_counter_ns()
            engine.evaluate(call, context)
            samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def measure_process(runs: int) -> list[float]:
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "HOME": scratch}
        argv = [sys.executable, "-m", "rein.cli", "check", "--", "git push --force && ls"]
        subprocess.run(argv, env=env, cwd=scratch, capture_output=True, check=False)
        times: list[float] = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(argv, env=env, cwd=scratch, capture_output=True, check=False)
            times.append((time.perf_counter() - start) * 1000)
    return times


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    commands = corpus()
    layer = parse_layer(extra_rules(100), str(Path("bench.toml")))
    with_extra = Steering(build_policy([layer]).policy)
    defaults_only = Steering(build_policy([]).policy)
    table = Table(title=f"steering: {len(commands)} commands", header_style="bold")
    for column in ("case", "median", "p99", "target"):
        table.add_column(column, justify="right" if column != "case" else "left")
    for label, engine in (("defaults", defaults_only), ("defaults + 100 rules", with_extra)):
        samples = measure_evaluate(engine, commands, rounds=20)
        table.add_row(
            f"evaluate, {label} ({len(engine.policy.rules)} rules)",
            f"{statistics.median(samples):.1f} us",
            f"{percentile(samples, 0.99):.1f} us",
            "median < 100 us, p99 < 1000 us",
        )
    with tempfile.TemporaryDirectory() as scratch:
        project = make_project(Path(scratch) / "project")
        reading = measure_evaluate(defaults_only, [*commands, *DISK_COMMANDS], rounds=20, project=project)
        disk_only = measure_evaluate(defaults_only, DISK_COMMANDS, rounds=40, project=project)
    table.add_row(
        "evaluate in a project, files read from disk (warm cache)",
        f"{statistics.median(reading):.1f} us",
        f"{percentile(reading, 0.99):.1f} us",
        "median < 100 us, p99 < 1000 us",
    )
    table.add_row(
        f"  only the {len(DISK_COMMANDS)} commands that read files",
        f"{statistics.median(disk_only):.1f} us",
        f"{percentile(disk_only, 0.99):.1f} us",
        "",
    )
    process = measure_process(runs=15)
    table.add_row(
        "`rein check` process",
        f"{statistics.median(process):.1f} ms",
        f"{percentile(process, 0.99):.1f} ms",
        "< 150 ms",
    )
    Console().print(table)


if __name__ == "__main__":
    main()
