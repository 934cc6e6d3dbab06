"""`rein serve` picks its model as `rein` does (issue 35, point 2): `--provider`, else `[rein]` in
the settings, an API key, the local model; the scripted echo only as the last resort, saying so. Real
`rein serve` processes; the runs go through the embedded local model (slow)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

from rein.ai.providers.local_files import local_available
from tests.cli.helpers import rein_env
from tests.server.helpers import running_server, serve_command
from tests.server.web.helpers import BROWSER, Web, csrf_of

pytestmark = pytest.mark.slow
needs_local = pytest.mark.skipif(not local_available(), reason="the local model is not installed")

LOCAL_NOTICE = "rein serve: no API key is set, so the embedded local model answers"
WITHOUT_LOCAL = (  # `rein serve` where the local model is not installed: llama.cpp cannot be found
    "import runpy, sys; sys.modules['xllamacpp'] = None; sys.argv[0] = 'rein';"
    " runpy.run_module('rein.cli', run_name='__main__')"
)


def started(tmp: Path) -> tuple[str, str]:
    """The first line `rein serve` printed on stdout, and its stderr so far."""
    (out,) = tmp.glob("serve-*.out")
    (err,) = tmp.glob("serve-*.err")
    return out.read_text().splitlines()[0], err.read_text()


@contextmanager
def web_page(tmp: Path, args: Sequence[str] = (), env: dict[str, str | None] | None = None) -> Iterator[Web]:
    with (
        running_server(tmp, provider=None, args=("--approve", "auto", *args), env=env) as url,
        httpx2.Client(base_url=url, timeout=120) as client,
    ):
        page = client.get("/", headers=BROWSER)
        assert page.status_code == 200
        yield Web(url=url, client=client, csrf=csrf_of(page.text), tmp=tmp)


def reply_of(web: Web, prompt: str) -> str:
    """Run `prompt` from the web page; the reply's text, once the run is idle again."""
    sid = web.new_session()
    with web.events(sid) as reader:
        web.post(f"/sessions/{sid}/prompt", {"text": prompt}, status=202)
        reader.wait_for(lambda e: e == {"type": "run", "state": "idle"}, timeout=120)
        assert reader.of("error") == [], reader.events
        return "".join(str(e["text"]) for e in reader.of("delta") if e.get("source") == "text")


@pytest.mark.local
@needs_local
def test_with_no_provider_and_no_key_the_local_model_serves_and_says_why(tmp_path: Path) -> None:
    with web_page(tmp_path) as web:
        line, err = started(tmp_path)
        assert "(provider: local, model: smollm2, store: " in line, line
        assert LOCAL_NOTICE in err and "set ANTHROPIC_API_KEY or OPENAI_API_KEY" in err, err
        assert web.get("/info")["model"] == "smollm2"
        reply = reply_of(web, "Write a Python function that adds two numbers.")
    assert reply.strip() and "You said" not in reply, reply


@pytest.mark.local
@needs_local
def test_provider_local_without_a_model_runs_the_bundled_model(tmp_path: Path) -> None:
    with web_page(tmp_path, args=("--provider", "local")) as web:
        line, err = started(tmp_path)
        assert "(provider: local, model: smollm2, store: " in line and err == "", (line, err)
        reply = reply_of(web, "Say hello in one short sentence.")
        assert reply.strip() and "no such GGUF file" not in reply, reply
        # The protocol's runs (`rein --server`, pi's client) get the same model.
        context = {"systemPrompt": "Be brief.", "tools": []}
        web.client.post("/api/session/init", json={"sessionId": "s1", "staticContext": context})
        body = {"sessionId": "s1", "runId": "r1", "ephemeralMessages": [{"role": "user", "content": "hi"}]}
        assert web.client.post("/api/stream", json=body).status_code == 200
        run = web.client.get("/api/session/s1/runs/r1").json()
    assert run["status"] == "completed" and run["message"]["content"][0]["text"].strip(), run


def test_a_key_in_the_environment_chooses_its_provider_without_a_notice(tmp_path: Path) -> None:
    with running_server(tmp_path, provider=None, env={"OPENAI_API_KEY": "sk-test"}):
        line, err = started(tmp_path)
    assert "(provider: openai, model: gpt-4.1, store: " in line and err == "", (line, err)


def test_the_settings_of_the_served_directory_choose_provider_and_model(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".rein").mkdir(parents=True)
    (project / ".rein" / "settings.toml").write_text('[rein]\nprovider = "faux"\nmodel = "faux-7"\n')
    with running_server(tmp_path, provider=None, args=("--cwd", str(project))) as url:
        line, err = started(tmp_path)
        assert "(provider: faux, model: faux-7, store: " in line and err == "", (line, err)
        info = httpx2.get(f"{url}/web/api/info").json()
    assert info["cwd"] == str(project.resolve()), info


def test_without_a_key_or_the_local_model_the_echo_serves_with_a_notice(tmp_path: Path) -> None:
    command = [sys.executable, "-c", WITHOUT_LOCAL, "serve", "--port", "0", "--drain-seconds", "0"]
    with subprocess.Popen(
        [*command, "--db", str(tmp_path / "s.db")],
        cwd=tmp_path,
        env=rein_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        line, notice = process.stdout.readline(), process.stderr.readline()
        process.terminate()  # maybe before its signal handlers are in: how it ends is not the point
        process.wait(timeout=30)
    assert "(provider: faux, model: faux, store: " in line, line
    assert notice.startswith("rein serve: no API key is set and the local model is not installed, so runs")
    assert "set ANTHROPIC_API_KEY or OPENAI_API_KEY, or install the local model: `make demo`" in notice


def test_a_cwd_that_is_not_a_directory_exits_2_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        serve_command("--port", "0", "--cwd", str(tmp_path / "missing")),
        cwd=tmp_path,
        env=rein_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr == f"rein serve: --cwd {tmp_path / 'missing'}: not a directory\n"
