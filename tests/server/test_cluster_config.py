"""The nginx config of docs/server.md's "Deployment" section, as `tests.server.cluster` fills it in: quick
checks that an edit of the page still gives a config nginx accepts, with the settings the cluster tests
rely on (the cluster itself runs in test_cluster.py and test_chaos.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.server.cluster import docs_block, main_config, nginx_binary, site_config


def test_the_docs_block_becomes_a_config_for_any_number_of_nodes() -> None:
    block = docs_block()
    config = site_config(block, ["127.0.0.1:7001", "127.0.0.1:7002"], 7000)
    servers = [line.strip() for line in config.splitlines() if line.strip().startswith("server 127.")]
    assert servers == [
        "server 127.0.0.1:7001 max_fails=2 fail_timeout=5s;",
        "server 127.0.0.1:7002 max_fails=2 fail_timeout=5s;",
    ]
    assert "listen 127.0.0.1:7000;" in config and "listen 80;" not in config
    assert "10.0.0." not in config
    for setting in ("proxy_buffering off;", "proxy_http_version 1.1;", "proxy_set_header Host $http_host;"):
        assert config.count(setting) == 1, setting
    # POSTs are resent to another node only where the protocol makes them idempotent
    idempotent = config.split("location ~", 1)[1]
    assert config.count("non_idempotent") == 1 and "non_idempotent" in idempotent
    assert "/api/stream" not in idempotent and "web/api" not in idempotent


def test_nginx_accepts_the_filled_in_config(tmp_path: Path) -> None:
    site = tmp_path / "rein.conf"
    site.write_text(site_config(docs_block(), ["127.0.0.1:7001"], 7000))
    main = tmp_path / "nginx.conf"
    main.write_text(main_config(tmp_path, site))
    log = tmp_path / "error.log"
    argv = [nginx_binary(), "-t", "-p", str(tmp_path), "-c", str(main), "-e", str(log)]
    checked = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert checked.returncode == 0, checked.stderr
