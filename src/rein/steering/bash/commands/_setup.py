"""Shell setup a known tool prints for the shell to run: `eval "$(ssh-agent -s)"`, `eval "$(pyenv init
-)"`, `source <(kubectl completion bash)`. The output is only known at run time, but these tools print
variable assignments, functions and completions, never a command rein would block; anything else
passed to `eval` or `source` that way stays unknown."""

from __future__ import annotations

import re

from rein.steering.bash.model import Expansion, Word

_SETUP = re.compile(
    r"(?:\S*/)?(?:"
    r"ssh-agent(?: -[sck])*"
    r"|(?:pyenv|rbenv|nodenv|goenv|jenv|plenv|phpenv|scalaenv) (?:init|virtualenv-init)"
    r"(?: -| --path| -?-?[a-z]+)*"
    r"|direnv hook (?:bash|zsh|fish|tcsh)"
    r"|brew shellenv(?: [a-z]+)?"
    r"|(?:starship|zoxide|atuin|mcfly|oh-my-posh|mise|rtx|fnm|thefuck|navi|broot|carapace|pixi|micromamba)"
    r" (?:init|activate|env|--alias|shell-hook)(?: [\w=./~-]+)*"
    r"|poetry env activate|pdm venv activate(?: [\w.-]+)?"
    r"|cs (?:java|setup) --(?:env|disable)(?: [\w=.-]+)*"
    r"|conda shell\.(?:bash|zsh|fish|posix) hook"
    r"|(?:opam env|luarocks path)(?: --[\w=-]+)*"
    r"|dircolors(?: -[bc])?(?: [\w./~-]+)?"
    r"|keychain --eval(?: [\w.@-]+)*"
    r"|(?:kubectl|helm|gh|npm|pnpm|pip3?|rustup|docker|minikube|kind|poetry|deno|bun|flux|argocd|eksctl|"
    r"glab|hugo|kustomize|velero|istioctl|kubeadm|oc|cilium|rclone|restic|just|task|ng|crane|gcrane|"
    r"terraform|vault|consul|nomad|packer|aws|gcloud|az|doctl|fly|flyctl|wrangler|supabase|stripe|"
    r"tailscale|podman|nerdctl|buildah|skopeo|k9s|k3d|kubectx|stern|gh-dash|cargo|rye|uv|pipx|nx|turbo|"
    r"ollama) completions?"
    r"(?: script| -s| --shell| --shell=)?(?: ?(?:bash|zsh|fish|--bash|--zsh|bash/zsh))?"
    r"|uv generate-shell-completion (?:bash|zsh|fish)"
    r"|register-python-argcomplete3? [\w.-]+"
    r")"
)


def shell_setup(word: Word) -> bool:
    """Whether `word` is nothing but one substitution of a tool that prints shell setup."""
    if len(word.parts) != 1 or not isinstance(part := word.parts[0], Expansion):
        return False
    raw = part.raw
    if part.kind in ("command", "process") and raw.startswith(("$(", "<(")) and raw.endswith(")"):
        text = raw[2:-1]
    elif part.kind == "command" and raw.startswith("`") and raw.endswith("`"):
        text = raw[1:-1]
    else:
        return False
    return _SETUP.fullmatch(text.strip()) is not None
