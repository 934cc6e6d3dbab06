"""More of `no-dev-server`'s tools, by family: servers and watchers of the less common stacks, daemons
that stay in the foreground only when told to, monitors that run until interrupted, and the
subcommands and options that make each of them exit.

Each entry follows the tool's documented CLI. A daemon that detaches by default (`nginx`, `sshd`,
`supervisord`, `twistd web`) serves only with its foreground option; one that stays in the foreground
by default (`redis-server`, `mongod`, `elasticsearch`) exits with its daemon option. A tool whose
foreground depends on a configuration file rein does not read (`haproxy -f cfg`) runs.
"""

from __future__ import annotations

from rein.steering._defaults._server_kit import (
    ALWAYS,
    EXITS,
    NEEDS,
    WATCH,
    Tool,
    flags,
    serves,
    unless,
    watch,
)

_PHP_FPM = watch("nodaemonize", "F", exits=flags("test", "t"))
_MYSQLD = unless(exits=flags("initialize initialize-insecure daemonize validate-config"))
_POSTGRES = unless(exits=flags("describe-config single check", "C"))
_JOBS = unless(exits=flags("count", "c"))

FAMILIES: dict[str, Tool] = {
    # Python WSGI/ASGI servers, modules run with `python -m`, data and ML servers
    "uwsgi": unless(exits=flags("daemonize daemonize2 reload stop version", "d"), bare=False),
    "mod_wsgi-express": serves("start-server"), "twistd": watch("nodaemon", "n", True), "pserve": NEEDS,
    "cheroot": NEEDS, "waitress": NEEDS, "hupper": NEEDS, "aiosmtpd": ALWAYS, "pyftpdlib": ALWAYS,
    "wsgiref.simple_server": ALWAYS, "xmlrpc.server": ALWAYS, "livereload": ALWAYS,
    "sphinx_autobuild": ALWAYS,
    "pdoc": unless(exits=flags("output-directory output-dir html pdf", "o"), bare=False),
    "mike": serves("serve"), "nikola": serves("serve auto"), "lektor": serves("server serve"),
    "myst": serves("start"), "locust": unless(exits=flags("run-time", "t")), "mitmproxy": ALWAYS,
    "mitmdump": unless(exits=flags("no-server", "n")), "mitmweb": ALWAYS, "watchfiles": NEEDS,
    "airflow": serves(
        "webserver scheduler standalone triggerer api-server dag-processor kerberos celery+worker"
        " celery+flower"
    ),
    "dagster": serves("dev"), "dagster-webserver": ALWAYS, "dagit": ALWAYS, "dagster-daemon": serves("run"),
    "prefect": serves("server+start worker+start agent+start"), "temporal": serves("server+start-dev"),
    "dask": serves("scheduler worker"), "dask-scheduler": ALWAYS, "dask-worker": NEEDS,
    "ray start": watch("block"), "ollama": serves("serve"), "vllm": serves("serve"),
    "vllm.entrypoints.openai.api_server": ALWAYS, "llama-server": ALWAYS, "text-generation-launcher": ALWAYS,
    "jupyterhub": unless("upgrade-db", exits=flags("generate-config")),
    # Go, Haskell, OCaml, Bazel, JVM, Elixir
    "gin": unless("env"), "fresh": ALWAYS, "realize": serves("start s"),
    "modd": unless(exits=flags("prep", "p", True)), "CompileDaemon": ALWAYS, "wgo": NEEDS,
    "gotestsum": watch(), "ginkgo": serves("watch"), "goconvey": ALWAYS, "revel": serves("run"),
    "ghcid": ALWAYS, "ghciwatch": ALWAYS, "yesod": serves("devel"),
    "stack": watch("file-watch file-watch-poll"), "dune": watch("watch passive-watch-mode", "w"),
    "ibazel": serves("run build test"), "mill": watch("watch", "w"), "scala-cli": watch("watch restart", "w"),
    "shadow-cljs": serves("watch server"), "elixir": watch("no-halt"),
    # JavaScript process managers, watchers and servers
    "pm2": serves("logs monit dash dashboard attach", flags("no-daemon"), flags("nostream")),
    "pm2-runtime": ALWAYS, "pm2-dev": ALWAYS, "pm2-docker": ALWAYS,
    "forever": unless(
        "start stop stopall restart restartall list config set clear logs columns cleanlogs", bare=False
    ),
    "supervisor": NEEDS, "vite-node": watch("watch", "w"), "watchify": NEEDS, "budo": NEEDS,
    "npm-watch": ALWAYS, "elm-watch": serves("hot"), "typedoc": watch(),
    "docsify": serves("serve s"), "retype": serves("start serve watch"), "honkit": serves("serve"),
    "gitbook": serves("serve"), "mintlify": serves("dev"), "mint": serves("dev"),
    "docfx": serves("serve", flags("serve")), "ladle": serves("serve dev"), "histoire": serves("dev preview"),
    "miniflare": ALWAYS, "sam": serves("local+start-api local+start-lambda", WATCH),
    "cdk": serves("watch", WATCH),
    "amplify": serves("mock"), "pulumi": serves("watch"), "okteto": serves("up"), "kubefwd": ALWAYS,
    "forge": watch("watch", "w"), "solana-test-validator": ALWAYS, "bitcoind": unless(exits=flags("daemon")),
    "chromedriver": ALWAYS, "geckodriver": ALWAYS, "appium": unless("driver plugin setup"),
    "emulator": unless(exits=flags("list-avds version help")), "Xvfb": unless(exits=flags("help version")),
    "maildev": ALWAYS, "smtp4dev": ALWAYS,
    "code-server": unless(exits=flags("install-extension uninstall-extension list-extensions")),
    "openvscode-server": unless(exits=flags("install-extension uninstall-extension list-extensions")),
    # Ruby, PHP, Rust
    "rerun": NEEDS, "shotgun": ALWAYS, "iodine": ALWAYS, "falcon": serves("serve host virtual"),
    "passenger": serves("start", exits=flags("daemonize", "d")), "bridgetown": serves("start s"),
    "good_job": serves("start"), "rr": serves("serve"), "php-fpm": _PHP_FPM,
    **{f"php-fpm{version}": _PHP_FPM for version in ("7.4", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5")},
    "miniserve": ALWAYS, "simple-http-server": ALWAYS, "static-web-server": ALWAYS, "devd": ALWAYS,
    "darkhttpd": NEEDS,
    # Daemons, databases, brokers, tunnels
    "traefik": unless("version healthcheck"), "haproxy": watch("", "d", exits=flags("", "cvDV")),
    "lighttpd": watch("", "D", exits=flags("", "tTpvV")), "dockerd": unless(exits=flags("validate")),
    "containerd": unless("config"), "sshd": watch("", "D", exits=flags("", "tT")),
    "supervisord": watch("nodaemon", "n"), "supervisorctl": serves("fg"),
    "supervisorctl tail": watch("", "f"),
    "dnsmasq": watch("no-daemon keep-in-foreground", "dk", exits=flags("test")),
    "crond": watch("foreground", "fn"), "cron": watch("foreground", "f"), "rsyslogd": watch("", "n"),
    "squid": watch("foreground", "N", exits=flags("", "kvz")), "openvpn": unless(
        exits=flags("daemon genkey show-ciphers show-digests show-tls version mktun rmtun"), bare=False
    ),
    "postgres": _POSTGRES, "postmaster": _POSTGRES, "mariadbd": _MYSQLD, "mysqld_safe": ALWAYS,
    "mariadbd-safe": ALWAYS, "mongos": unless(exits=flags("fork")), "keydb-server": ALWAYS,
    "elasticsearch": unless(exits=flags("daemonize", "d")),
    "opensearch": unless(exits=flags("daemonize", "d")),
    "meilisearch": ALWAYS, "typesense-server": ALWAYS, "qdrant": ALWAYS,
    "clickhouse-server": unless(exits=flags("daemon")), "clickhouse": serves("server"),
    "influxd": unless("version print-config upgrade inspect recovery downgrade"),
    "cockroach": serves("start start-single-node demo", exits=flags("background")),
    "mosquitto": unless(exits=flags("daemon", "d")), "rabbitmq-server": unless(exits=flags("detached")),
    "kafka-server-start.sh": unless(exits=flags("daemon"), bare=False),
    "kafka-server-start": unless(exits=flags("daemon"), bare=False),
    "zookeeper-server-start.sh": unless(exits=flags("daemon"), bare=False),
    "zkServer.sh": serves("start-foreground"),
    "prometheus": ALWAYS, "alertmanager": ALWAYS, "node_exporter": ALWAYS, "grafana-server": ALWAYS,
    "grafana": serves("server"), "loki": unless(exits=flags("verify-config print-config-stderr")),
    "jaeger-all-in-one": ALWAYS, "otelcol": unless("validate components"),
    "otelcol-contrib": unless("validate components"), "nomad": serves("agent"),
    "gitea": serves("web", bare=True),
    "cloudflared tunnel": unless("list create delete route info cleanup token ingress vnet"),
    "localtunnel": ALWAYS, "bore": serves("local server"),
    "tailscale serve": unless("status reset", exits=flags("bg")), "tailscale ping": EXITS,
    "tailscale funnel": unless("status reset", exits=flags("bg")),
    # Cloud logs that stream until interrupted
    "aws logs": watch("follow"), "gcloud app": serves("logs+tail"), "gcloud logging": serves("tail"),
    "az webapp": serves("log+tail"), "az containerapp": watch("follow"), "doctl apps": watch("follow"),
    "nomad alloc": watch("", "f"),
    # Monitors that run until interrupted
    "tcpdump": unless(exits=flags("count list-interfaces list-data-link-types version", "crDLV", True)),
    "tshark": unless(exits=flags("autostop", "crDGLa")),
    "free": watch("seconds", "s", exits=flags("count", "c")),
    "nvidia-smi": watch("loop loop-ms", "l"), "nvidia-smi dmon": _JOBS, "nvidia-smi pmon": _JOBS,
    "nvidia-smi mig": EXITS,
    "inotifywatch": unless(exits=flags("timeout", "t"), bare=False), "udevadm monitor": ALWAYS,
    "dbus-monitor": ALWAYS, "btmon": ALWAYS, "ip monitor": ALWAYS, "nmcli monitor": ALWAYS,
    "log stream": unless(exits=flags("timeout")), "ping6": unless(exits=flags("", "cw", True), bare=False),
    "arping": unless(exits=flags("", "cw", True), bare=False),
    "mtr": unless(exits=flags("report report-wide json xml csv raw split", "rwjxClp", True), bare=False),
    "watchman": watch("foreground"), "netcat": watch("listen", "l", True),
}  # fmt: skip
"""Servers, watchers, daemons and monitors beyond `_server_tables.TOOLS`, merged into it."""
