"""llama.cpp's own OpenAI-compatible server (xllamacpp's `Server`), run as a real subprocess peer for tests.

    python -m tests.ai.llama_server MODEL.gguf --alias smollm2 [--n-ctx 8192]

It binds a free port of 127.0.0.1 itself (port 0: no other process can take it between a pick and the
bind), prints `listening on http://127.0.0.1:PORT` on stdout once the model is loaded, and serves until
it is killed. llama.cpp's log (each request, each cancelled task) goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
import threading

import xllamacpp

LISTENING = "listening on "
"""The stdout line's prefix; the server's address follows it."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.ai.llama_server")
    parser.add_argument("model")
    parser.add_argument("--alias", default="")
    parser.add_argument("--n-ctx", type=int, default=8192)
    args = parser.parse_args(argv)
    params = xllamacpp.CommonParams()
    params.model.path = args.model
    if args.alias:
        params.model_alias = {args.alias}
    params.n_ctx = args.n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.port = 0
    server = xllamacpp.Server(params)
    print(f"{LISTENING}{server.listening_address}", flush=True)
    threading.Event().wait()  # serve until killed


if __name__ == "__main__":
    main(sys.argv[1:])
