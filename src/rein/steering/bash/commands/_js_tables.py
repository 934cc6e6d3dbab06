"""Option tables of the JavaScript package managers that run commands: `npm` (`npm exec`), `npx`,
`pnpm` (`exec`, `dlx`), `yarn` (`dlx`), `bun` (`bun x`), `bunx`, `deno`, and npm's command aliases.

Sources: npm 11.19's own config definitions (@npmcli/config lib/definitions, read from the installed
npm) and bin/npx-cli.js; pnpm/pnpm (pnpm11/cli/parse-cli-args, pnpm11/pnpm/src/{cmd/index,shorthands}.ts,
config/reader/src/types.ts, exec/commands/src/{exec,dlx}.ts) and pnpm/nopt; yarnpkg/yarn
(src/cli/index.js) and yarnpkg/berry (plugin-dlx); oven-sh/bun (src/cli/Arguments.zig,
src/deps/zig-clap/clap/streaming.zig, and bun.sh's bunx page); docs.deno.com.
"""

from __future__ import annotations

from rein.steering.bash.commands._options import Options
from rein.steering.bash.commands._table_kit import RUNNER, longs, words

_NPM_CONFIG = """
    _auth= access= allow-directory= allow-file= allow-git= allow-remote= allow-scripts= also= audit-level=
    auth-type= before= browser= ca= cache-max= cache-min= cache= cafile= call= cert= cidr= cpu= depth=
    diff-dst-prefix= diff-src-prefix= diff-unified= diff= editor= enjoy-by= expect-result-count= expires=
    fetch-retries= fetch-retry-factor= fetch-retry-maxtimeout= fetch-retry-mintimeout= fetch-timeout= git=
    globalconfig= heading= https-proxy= include= init-author-email= init-author-name= init-author-url=
    init-license= init-module= init-type= init-version= init.author.email= init.author.name=
    init.author.url= init.license= init.module= init.version= install-strategy= key= libc= local-address=
    location= lockfile-version= loglevel= logs-dir= logs-max= maxsockets= message=
    min-release-age-exclude= min-release-age= name= node-gyp= node-options= noproxy= omit= only=
    orgs-permission= orgs= os= otp= pack-destination= package= packages-and-scopes-permission= packages=
    password= prefix= preid= provenance-file= proxy= reg= registry= replace-registry-host= save-prefix=
    sbom-format= sbom-type= scope= scopes= script-shell= searchexclude= searchlimit= searchopts=
    searchstaleness= shell= tag-version-prefix= tag= token-description= umask= user-agent= userconfig=
    viewer= which= workspace= all allow-same-version allow-scripts-pending allow-scripts-pin audit
    bin-links bypass-2fa color commit-hooks dangerously-allow-all-scripts dd ddd desc description dev
    diff-ignore-all-space diff-name-only diff-no-prefix diff-text dry-run engine-strict expect-results
    force foreground-scripts format-package-lock fund git-tag-version global global-style help if-present
    ignore-scripts include-attestations include-staged include-workspace-root init-private install-links
    iwr json legacy-bundling legacy-peer-deps link local long no offline omit-lockfile-registry-resolved
    optional package-lock package-lock-only packages-all parseable porcelain prefer-dedupe prefer-offline
    prefer-online production progress provenance quiet read-only readonly rebuild-bundle save save-bundle
    save-dev save-exact save-optional save-peer save-prod shrinkwrap sign-git-commit sign-git-tag silent
    strict-allow-scripts strict-peer-deps strict-ssl timing unicode update-notifier usage verbose version
    versions workspaces workspaces-update ws yes
"""
"""Every npm configuration key as a long option (a type without Boolean takes a value; `browser` is
Boolean or a string, so it takes a following word) and the long shorthands (`--reg` is `--registry`)."""

_PNPM_UNIVERSAL = """
    changed-files-ignore-pattern= dir= filter-prod= filter= loglevel= pm-on-fail= prefix= reporter=
    test-pattern= workspace-packages= aggregate-output color fail-if-no-match help ignore-workspace
    include-workspace-root parseable quiet recursive silent stream use-stderr verbose version
    workspace-root yes
"""
"""pnpm's universal options (GLOBAL_OPTIONS with --recursive/--help/--version and the long shorthands);
`--color` takes a following always/auto/never only, so it counts as a flag."""

JS: dict[str, Options] = {
    # npm's nopt: abbreviates (`--reg` is `--registry`), options may follow operands, and an option it
    # does not know takes the next word as its value. Shorthands with a value: -C prefix, -L location,
    # -c call, -m message, -w workspace.
    "npm": Options(short_value="CLcmw", long=longs(_NPM_CONFIG), permute=False),
    # npx (bin/npx-cli.js) reads its options before npm does, by exact name: `-p`/`--package`, `-c`/
    # `--call`, `--shell`, and the removed `-n`/`--npm`/`--node-arg` take a value, every npm Boolean and
    # `--no-install`/`-q`/`-v`/`-h` none, and any other option the next word unless it starts with `-`;
    # the first operand is the command. `npm exec` (handled with this table) reads `-n` as --no-yes.
    "npx": Options(
        short_value="CLcmnpw",
        long=longs(f"{_NPM_CONFIG} node-arg= npm= no-install"),
        permute=False,
        abbreviate=False,
    ),
    # pnpm's @pnpm/nopt: abbreviates; an option it does not know takes no value.
    "pnpm": Options(short_value="CF", long=longs(_PNPM_UNIVERSAL), permute=False),
    # `pnpm exec` is an escape word: everything after it is the command (a leading `--` dropped).
    "pnpm exec": RUNNER,
    # pnpm 11 `dlx`: the universal options and its own (`-c` is --shell-mode, no value), then the
    # package; pnpm 10 read them only before `dlx`.
    "pnpm dlx": Options(
        short_value="CF",
        long=longs(f"{_PNPM_UNIVERSAL} allow-build= cpu= libc= os= package= shell-mode"),
        permute=False,
    ),
    # yarn 1 (commander, no abbreviation): the first word that is no option and follows no option
    # that takes a value is the command; `--emoji`, `--prod`/`--production` and
    # `--scripts-prepend-node-path` take an optional one, which counts. Yarn 2+ reads `--cwd` there.
    "yarn": Options(
        long=longs("""
            cache-folder= cwd= emoji= global-folder= https-proxy= link-folder= modules-folder= mutex=
            network-concurrency= network-timeout= preferred-cache-folder= prod= production= proxy=
            scripts-prepend-node-path= check-files flat force frozen-lockfile har help ignore-engines
            ignore-optional ignore-platform ignore-scripts json link-duplicates no-bin-links no-lockfile
            no-progress non-interactive offline prefer-offline pure-lockfile silent skip-integrity-check
            strict-semver verbose version
        """),
        permute=False,
        abbreviate=False,
    ),
    # yarn 2+ `dlx` (clipanion, no abbreviation): `-p`/`--package`, `-q`/`--quiet`, then the command.
    "yarn dlx": Options(short_value="p", long=longs("package= quiet"), permute=False, abbreviate=False),
    # yarn 2+ `workspaces foreach` (clipanion): the selection options, then the yarn command it runs in
    # each workspace (Option.Proxy). `--since` tolerates no value, so only an attached one is read.
    "yarn workspaces foreach": Options(
        short_value="j",
        long=longs("""
            exclude= from= include= jobs= since? all dry-run interlaced no-private parallel recursive
            topological topological-dev verbose worktree
        """),
        permute=False,
        abbreviate=False,
    ),
    # bun's zig-clap: no abbreviation; `--config`/`-c` and `--inspect*` take an optional value, which is
    # the next word when it does not start with `-`. The options of `bun` before `run`/`x`/a script.
    "bun": Options(
        short_value="Fcdelpru",
        long=longs("""
            conditions= config= console-depth= cpu-prof-dir= cpu-prof-name= cwd= define=
            dns-result-order= drop= elide-lines= env-file= eval= extension-order= fetch-preconnect=
            filter= import= inspect-brk= inspect-wait= inspect= install= jsx-factory= jsx-fragment=
            jsx-import-source= jsx-runtime= loader= main-fields= max-http-header-size= origin= port=
            preload= print= require= shell= title= tsconfig-override= unhandled-rejections= user-agent=
            bun cpu-prof expose-gc help hot if-present ignore-dce-annotations jsx-side-effects no-addons
            no-clear-screen no-deprecation no-env-file no-install no-macros prefer-latest prefer-offline
            preserve-symlinks preserve-symlinks-main redis-preconnect revision silent smol sql-preconnect
            throw-deprecation use-bundled-ca use-openssl-ca use-system-ca version watch workspaces
            zero-fill-buffers
        """),
        permute=False,
        abbreviate=False,
    ),
    # bunx / `bun x`: `--bun`, `-p`/`--package`, `--no-install`, `--verbose`, `--silent`, then the package.
    "bunx": Options(
        short_value="p", long=longs("package= bun no-install silent verbose"), permute=False, abbreviate=False
    ),
    # deno (clap, no abbreviation): the options before its subcommand.
    "deno": Options(
        short_value="L", long=longs("log-level= help quiet unstable version"), permute=False, abbreviate=False
    ),
}

NPM_ALIASES: dict[str, str] = {
    # npm 11's command aliases (lib/utils/cmd-list.js), and `la`/`ll`, which list like `ls`.
    **dict.fromkeys(("run-script", "rum", "urn"), "run"),
    **dict.fromkeys(("t", "tst"), "test"),
    **dict.fromkeys(words("add i in ins inst insta instal isnt isnta isntal isntall"), "install"),
    **dict.fromkeys(("clean-install", "ic", "install-clean", "isntall-clean"), "ci"),
    **dict.fromkeys(("un", "r", "rm", "remove", "unlink"), "uninstall"),
    **dict.fromkeys(("u", "up", "upgrade", "udpate"), "update"),
    **dict.fromkeys(("list", "la", "ll"), "ls"),
    **dict.fromkeys(("info", "show", "v"), "view"),
    **dict.fromkeys(("find", "s", "se"), "search"),
    **dict.fromkeys(("create", "innit"), "init"),
    **dict.fromkeys(("cit", "clean-install-test", "sit"), "install-ci-test"),
    "x": "exec",
    "c": "config",
    "rb": "rebuild",
    "ln": "link",
    "it": "install-test",
    "ddp": "dedupe",
    "why": "explain",
    "author": "owner",
    "home": "docs",
    "issues": "bugs",
    "verison": "version",
    "hlep": "help",
    "dist-tags": "dist-tag",
    "ogr": "org",
    "add-user": "adduser",
}
"""npm's command aliases, so `npm rum dev` reads as `npm run dev`."""

PNPM_COMMANDS = frozenset({
    *words("""
        access add adduser approve-builds audit bin bugs c cache cat-file cat-index ci clean
        clean-install completion completion-server config create dedupe deploy deprecate dist-tag dlx
        docs doctor edit env exec fetch find-hash get help i ic ignored-builds import info init install
        install-clean install-test issues it la licenses link list ll ln login logout ls m multi outdated
        owner pack patch patch-commit patch-remove peers ping pkg prefix profile prune publish purge rb
        rebuild recursive remove repo restart rm root rt run run-script runtime s sbom se search
        self-update set set-script setup show star stars start store t team test token tst un undeprecate
        uni uninstall unlink unpublish unstar up update upgrade v version view whoami why with xmas
    """),
})  # fmt: skip
"""pnpm's own commands and aliases (pnpm/src/cmd/index.ts, and the npm commands it passes to npm or
reports as not implemented); any other word runs a script of that name, else that binary."""

BUN_COMMANDS = frozenset({
    *words("""
        a add audit auth build bun c cloud completions config create deploy discord exec getcompletes
        help i info init install link list login logout outdated patch patch-commit pm prune publish r
        remove repl rm run test uninstall unlink update upgrade use whoami why x
    """),
})  # fmt: skip
"""bun's own commands (src/cli.zig `which`, reserved names included); any other word is a script, a
file or a package binary (`bun vite`)."""
