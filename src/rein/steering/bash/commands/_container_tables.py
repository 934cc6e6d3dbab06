"""Option tables of the container and remote runners: `docker`, `podman` and `nerdctl` (the engine,
`run`/`create`/`exec`, the same under `container`, and `compose` with its `run`/`exec`), `kubectl exec`,
`heroku run`.

The engines are Go cobra/pflag tools: no abbreviation, short options cluster (`-it`), and `run`,
`create` and `exec` stop at their first operand (SetInterspersed(false)), as does the engine before its
subcommand. Sources: docker/cli (cli/command/container/{run,create,exec,opts}.go, cli/flags/options.go;
checked against `docker run --help` of Docker 28.2), docker/compose (cmd/compose/{compose,run,exec}.go),
containers/podman (cmd/podman/root.go, common/create.go, common/netflags.go, containers/{run,create,
exec}.go), containerd/nerdctl (cmd/nerdctl/main.go, container/*, compose/*), kubectl 1.32 `exec --help`
and `kubectl options` (plus `--as-user-extra` and `--kuberc` from kubernetes.io), heroku/cli
(src/commands/run/{index,detached,inside}.ts).
"""

from __future__ import annotations

from rein.steering.bash.commands._options import Options
from rein.steering.bash.commands._table_kit import longs


def _cobra(short_value: str, names: str) -> Options:
    """A cobra command that stops at its first operand."""
    return Options(short_value=short_value, long=longs(names), permute=False, abbreviate=False)


_DOCKER_CREATE = """
    add-host= annotation= attach= blkio-weight-device= blkio-weight= cap-add= cap-drop= cgroup-parent=
    cgroupns= cidfile= cpu-count= cpu-percent= cpu-period= cpu-quota= cpu-rt-period= cpu-rt-runtime=
    cpu-shares= cpus= cpuset-cpus= cpuset-mems= device-cgroup-rule= device-read-bps= device-read-iops=
    device-write-bps= device-write-iops= device= dns-opt= dns-option= dns-search= dns= domainname=
    entrypoint= env-file= env= expose= gpus= group-add= health-cmd= health-interval= health-retries=
    health-start-interval= health-start-period= health-timeout= hostname= io-maxbandwidth= io-maxiops=
    ip6= ip= ipc= isolation= kernel-memory= label-file= label= link-local-ip= link= log-driver= log-opt=
    mac-address= memory-reservation= memory-swap= memory-swappiness= memory= mount= name= net-alias= net=
    network-alias= network= oom-score-adj= pid= pids-limit= platform= publish= pull= restart= runtime=
    security-opt= shm-size= stop-signal= stop-timeout= storage-opt= sysctl= tmpfs= ulimit= user= userns=
    uts= volume-driver= volume= volumes-from= workdir= disable-content-trust help init interactive
    no-healthcheck oom-kill-disable privileged publish-all quiet read-only rm tty use-api-socket
"""
_PODMAN_CREATE = """
    add-host= annotation= arch= attach= authfile= blkio-weight-device= blkio-weight= cap-add= cap-drop=
    cert-dir= cgroup-conf= cgroup-parent= cgroupns= cgroups= chrootdirs= cidfile= conmon-pidfile=
    cpu-period= cpu-quota= cpu-rt-period= cpu-rt-runtime= cpu-shares= cpus= cpuset-cpus= cpuset-mems=
    creds= decryption-key= device-cgroup-rule= device-read-bps= device-read-iops= device-write-bps=
    device-write-iops= device= dns-opt= dns-option= dns-search= dns= entrypoint= env-file= env-merge= env=
    expose= gidmap= gpus= group-add= group-entry= health-cmd= health-interval= health-log-destination=
    health-max-log-count= health-max-log-size= health-on-failure= health-retries= health-start-period=
    health-startup-cmd= health-startup-interval= health-startup-retries= health-startup-success=
    health-startup-timeout= health-timeout= healthcheck-command= healthcheck-interval=
    healthcheck-retries= healthcheck-start-period= healthcheck-timeout= hostname= hosts-file= hostuser=
    image-volume= init-path= ip6= ip= ipc= kernel-memory= label-file= label= log-driver= log-opt=
    mac-address= memory-reservation= memory-swap= memory-swappiness= memory= mount= name= net=
    network-alias= network= oom-score-adj= os= passwd-entry= personality= pid= pidfile= pids-limit=
    platform= pod-id-file= pod= publish= pull= rdt-class= requires= restart= retry-delay= retry= sdnotify=
    seccomp-policy= secret= security-opt= shm-size-systemd= shm-size= signature-policy= stop-signal=
    stop-timeout= subgidname= subuidname= sysctl= systemd= timeout= tmpfs= tz= uidmap= ulimit= umask=
    unsetenv= user= userns= uts= variant= volume= volumes-from= workdir= disable-content-trust env-host
    help http-proxy init interactive no-healthcheck no-hostname no-hosts oom-kill-disable privileged
    publish-all quiet read-only read-only-tmpfs replace rm rootfs tty unsetenv-all
"""
_NERDCTL_RUN = """
    add-host= annotation= attach= blkio-weight-device= blkio-weight= cap-add= cap-drop= cgroup-conf=
    cgroup-parent= cgroupns= cidfile= cosign-certificate-identity-regexp= cosign-certificate-identity=
    cosign-certificate-oidc-issuer-regexp= cosign-certificate-oidc-issuer= cosign-key= cpu-period=
    cpu-quota= cpu-rt-period= cpu-rt-runtime= cpu-shares= cpus= cpuset-cpus= cpuset-mems= detach-keys=
    device-read-bps= device-read-iops= device-write-bps= device-write-iops= device= dns-opt= dns-option=
    dns-search= dns= domainname= entrypoint= env-file= env= expose= gpus= group-add= health-cmd=
    health-interval= health-retries= health-start-period= health-timeout= hostname= init-binary= ip6= ip=
    ipc= ipfs-address= isolation= kernel-memory= label-file= label= log-driver= log-opt= mac-address=
    memory-reservation= memory-swap= memory-swappiness= memory= mount= name= net= network= oom-score-adj=
    pid= pidfile= pids-limit= platform= publish= pull= rdt-class= restart= runtime= security-opt=
    shm-size= stop-signal= stop-timeout= sysctl= systemd= tmpfs= ulimit= umask= user= userns= uts= verify=
    volume= volumes-from= workdir= detach help init interactive no-healthcheck oom-kill-disable privileged
    publish-all quiet read-only rm rootfs sig-proxy tty
"""

_DOCKER = """
    config= context= host= log-level= tlscacert= tlscert= tlskey= debug help tls tlsverify version
"""
_DOCKER_EXEC = "detach-keys= env-file= env= user= workdir= detach help interactive privileged tty"
_COMPOSE = """
    ansi= env-file= file= insecure-registry= parallel= profile= progress= project-directory=
    project-name= workdir= all-resources compatibility dry-run help no-ansi verbose version
"""
_COMPOSE_RUN = """
    cap-add= cap-drop= entrypoint= env-from-file= env= label= name= publish= pull= user= volume= workdir=
    build detach dry-run help interactive no-deps no-tty quiet quiet-build quiet-pull remove-orphans rm
    service-ports tty use-aliases
"""
_COMPOSE_EXEC = "env= index= user= workdir= detach dry-run help interactive no-tty privileged tty"

_PODMAN_PERSISTENT = """
    cdi-spec-dir= cgroup-manager= conmon= cpu-profile= default-mounts-file= events-backend= hooks-dir=
    imagestore= log-level= max-workers= memory-profile= namespace= network-backend= network-config-dir=
    pull-option= registries-conf= root= runroot= runtime-flag= runtime= storage-driver= storage-opt=
    tmpdir= volumepath= help syslog trace transient-store
"""
_PODMAN = """
    cni-config-dir= config= connection= context= host= identity= module= out= ssh= tls-ca= tls-cert=
    tls-details= tls-key= url= debug noout remote version
"""
_PODMAN_RUN = "detach-keys= preserve-fd= preserve-fds= detach passwd rmi sig-proxy"
_PODMAN_EXEC = """
    cidfile= detach-keys= env-file= env= preserve-fd= preserve-fds= user= wait= workdir= detach
    interactive no-session privileged tty
"""

_NERDCTL_PERSISTENT = """
    address= bridge-ip= cdi-spec-dirs= cgroup-manager= cni-netconfpath= cni-path= data-root=
    global-dns-opts= global-dns-search= global-dns= host-gateway-ip= host= hosts-dir= namespace=
    snapshotter= storage-driver= userns-remap= debug debug-full experimental help insecure-registry
    kube-hide-dupe selinux-enabled version
"""
_NERDCTL_EXEC = "env-file= env= user= workdir= detach interactive privileged tty"
_NERDCTL_COMPOSE = "env-file= file= ipfs-address= profile= project-directory= project-name="
_NERDCTL_COMPOSE_RUN = """
    entrypoint= env= label= name= publish= user= volume= workdir= build detach interactive no-build
    no-color no-deps no-log-prefix quiet-pull remove-orphans rm service-ports
"""
_NERDCTL_COMPOSE_EXEC = "env= index= user= workdir= detach interactive no-TTY privileged tty"

_KUBECTL = """
    as-group= as-uid= as-user-extra= as= cache-dir= certificate-authority= client-certificate=
    client-key= cluster= context= kubeconfig= kuberc= log-flush-frequency= namespace= password=
    profile-output= profile= request-timeout= server= tls-server-name= token= user= username= v=
    vmodule= disable-compression help insecure-skip-tls-verify match-server-version warnings-as-errors
"""


def _engine(name: str, **tables: Options) -> dict[str, Options]:
    """An engine's tables by the keys the handler builds: `docker`, `docker run`, `docker container
    run`, `docker compose run`, ..."""
    keys = {
        "top": (name,),
        "run": (f"{name} run", f"{name} container run"),
        "create": (f"{name} create", f"{name} container create"),
        "exec": (f"{name} exec", f"{name} container exec"),
        "compose": (f"{name} compose",),
        "compose_run": (f"{name} compose run",),
        "compose_exec": (f"{name} compose exec",),
    }
    return {key: options for part, options in tables.items() for key in keys[part]}


_DOCKER_COMPOSE = {
    "compose": _cobra("fp", _COMPOSE),
    "compose_run": _cobra("elpuvw", _COMPOSE_RUN),
    "compose_exec": _cobra("euw", _COMPOSE_EXEC),
}
"""Compose v2, the docker CLI plugin; `podman compose` hands its arguments to it (or to podman-compose,
whose options are not known here)."""

CONTAINERS: dict[str, Options] = {
    **_engine(
        "docker",
        top=_cobra("Hcl", _DOCKER),
        run=_cobra("acehlmpuvw", f"{_DOCKER_CREATE} detach detach-keys= sig-proxy"),
        create=_cobra("acehlmpuvw", _DOCKER_CREATE),
        exec=_cobra("euw", _DOCKER_EXEC),
        **_DOCKER_COMPOSE,
    ),
    # podman: the root's persistent options are read after the subcommand too.
    **_engine(
        "podman",
        top=_cobra("Hc", f"{_PODMAN} {_PODMAN_PERSISTENT}"),
        run=_cobra("acehlmpuvw", f"{_PODMAN_CREATE} {_PODMAN_RUN} {_PODMAN_PERSISTENT}"),
        create=_cobra("acehlmpuvw", f"{_PODMAN_CREATE} init-ctr= {_PODMAN_PERSISTENT}"),
        exec=_cobra("euw", f"{_PODMAN_EXEC} {_PODMAN_PERSISTENT}"),
        **_DOCKER_COMPOSE,
    ),
    # nerdctl: `-a`/`-H`/`-n` name the address and namespace before the subcommand only.
    **_engine(
        "nerdctl",
        top=_cobra("Han", _NERDCTL_PERSISTENT),
        run=_cobra("aehlmpuvw", f"{_NERDCTL_RUN} {_NERDCTL_PERSISTENT}"),
        create=_cobra("aehlmpuvw", f"{_NERDCTL_RUN} {_NERDCTL_PERSISTENT}"),
        exec=_cobra("euw", f"{_NERDCTL_EXEC} {_NERDCTL_PERSISTENT}"),
        compose=_cobra("fp", f"{_NERDCTL_COMPOSE} {_NERDCTL_PERSISTENT}"),
        compose_run=_cobra("eluvw", f"{_NERDCTL_COMPOSE_RUN} {_NERDCTL_COMPOSE} {_NERDCTL_PERSISTENT}"),
        compose_exec=_cobra("euw", f"{_NERDCTL_COMPOSE_EXEC} {_NERDCTL_COMPOSE} {_NERDCTL_PERSISTENT}"),
    ),
    # kubectl's global options (`kubectl options`), before or after its subcommand.
    "kubectl": _cobra("nsv", _KUBECTL),
    # `kubectl exec` with the global options. The real parser lets options follow the pod (cobra
    # interspersed); `kubectl exec POD -- CMD` is read at `--` by the handler.
    "kubectl exec": _cobra("cfnsv", f"container= filename= pod-running-timeout= quiet stdin tty {_KUBECTL}"),
    # `oc rsh [options] POD [COMMAND]` (openshift/oc pkg/cli/rsh/rsh.go) with kubectl's global options.
    "oc rsh": _cobra("cfnsv", f"container= filename= shell= timeout= no-tty quiet tty {_KUBECTL}"),
    # `podman unshare [--rootless-netns] [command]` (cmd/podman/system/unshare.go).
    "podman unshare": _cobra("", f"rootless-cni rootless-netns help {_PODMAN_PERSISTENT}"),
    # heroku CLI (oclif): `run`, `run:detached`, `run:inside` together.
    "heroku run": _cobra(
        "aers", "app= env= remote= size= type= exit-code help listen no-launcher no-notify no-tty tail"
    ),
}
