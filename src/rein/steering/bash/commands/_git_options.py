"""git's own option tables: the builtin subcommands (an alias cannot shadow them), the options before
the subcommand, and the options of the subcommands rules read.

Source: git/git at 2.55 (builtin/*.c option arrays, parse-options.h, ref-filter.h, transport.h, git.c
handle_options), checked against `git <cmd> -h` of git 2.39. parse-options takes a unique prefix of a
long option, `--no-X` undoes X unless the option forbids it, and `--X` undoes an option named
`no-X`: so a table names the flag X once (`negate=True` supplies `--no-X`), and lists `no-X` itself
only for an option that takes a value.
"""

from __future__ import annotations

from rein.steering.bash.commands._options import Options
from rein.steering.bash.commands._table_kit import longs, words

GIT_BUILTINS = frozenset(
    words("""
    add am annotate apply archive bisect blame branch bundle cat-file check-ignore checkout cherry
    cherry-pick clean clone commit config describe diff difftool fetch filter-branch format-patch fsck
    gc grep help init log ls-files ls-remote ls-tree merge mergetool mv notes pull push rebase reflog
    remote reset restore rev-list rev-parse revert rm shortlog show show-ref sparse-checkout stash
    status submodule switch symbolic-ref tag update-ref worktree version
    """)
)
"""Subcommands git runs itself, so `alias.<name>` does not apply to them."""

GIT_COMMANDS = GIT_BUILTINS | frozenset(
    words("""
    backfill bugreport check-attr check-mailmap check-ref-format checkout-index column commit-graph
    commit-tree count-objects credential credential-cache credential-store daemon diagnose diff-files
    diff-index diff-pairs diff-tree fast-export fast-import fetch-pack fmt-merge-msg for-each-ref
    for-each-repo fsck-objects get-tar-commit-id hash-object hook http-backend http-fetch http-push
    imap-send index-pack init-db instaweb interpret-trailers last-modified mailinfo mailsplit
    maintenance merge-base merge-file merge-index merge-octopus merge-one-file merge-ours
    merge-recursive merge-recursive-ours merge-recursive-theirs merge-resolve merge-subtree
    merge-tree mktag mktree multi-pack-index name-rev pack-objects pack-redundant pack-refs patch-id
    pickaxe prune prune-packed quiltimport range-diff read-tree receive-pack refs remote-ext
    remote-fd remote-ftp remote-ftps remote-http remote-https repack replace replay repo request-pull
    rerere send-pack shell show-branch show-index stage stripspace subtree unpack-file
    unpack-objects update-index update-server-info upload-archive upload-pack var verify-commit
    verify-pack verify-tag whatchanged write-tree
    """)
)
"""Every program git ships (`git --list-cmds=main`, git 2.39 to 2.55): `git-<name>` in its exec path
is git itself, and a subcommand outside this set is an alias or a `git-<name>` program on PATH."""

GIT_GLOBAL = Options(
    # git.c handle_options: exact names, stops at the first operand (the subcommand). `--git-dir`,
    # `--work-tree`, `--namespace`, `--config-env`, `--attr-source` take `=value` or the next word;
    # `--exec-path` and `--list-cmds` only an attached one. `--super-prefix` is git 2.39's.
    short_value="Cc",
    long=longs("""
        attr-source= config-env= git-dir= namespace= shallow-file= super-prefix= work-tree= exec-path?
        list-cmds? bare glob-pathspecs help html-path icase-pathspecs info-path literal-pathspecs
        man-path no-advice no-lazy-fetch no-literal-pathspecs no-optional-locks no-pager
        no-replace-objects noglob-pathspecs paginate version
    """),
    abbreviate=False,
    permute=False,
)


def _git(short_value: str, names: str, short_optional: str = "") -> Options:
    """A subcommand read with parse-options."""
    return Options(short_value=short_value, short_optional=short_optional, long=longs(names), negate=True)


_GIT: dict[str, Options] = {
    "push": _git(
        "o",
        """
        exec= force-with-lease? push-option= receive-pack= recurse-submodules= repo= signed? all
        atomic branches delete dry-run follow-tags force force-if-includes ipv4 ipv6 mirror no-exec
        no-force-with-lease no-push-option no-receive-pack no-recurse-submodules no-repo no-signed
        porcelain progress prune quiet set-upstream tags thin verbose verify
        """,
    ),
    "reset": _git(
        "U",
        """
        inter-hunk-context= pathspec-from-file= recurse-submodules? unified= auto-advance hard
        intent-to-add keep merge mixed no-pathspec-from-file no-recurse-submodules patch
        pathspec-file-nul quiet refresh soft
        """,
    ),
    "clean": _git(
        "e",
        """
        exclude= dry-run force interactive quiet
        """,
    ),
    "checkout": _git(
        "BUb",
        """
        conflict= inter-hunk-context= orphan= pathspec-from-file= recurse-submodules? track? unified=
        auto-advance detach force guess ignore-other-worktrees ignore-skip-worktree-bits merge
        no-conflict no-orphan no-pathspec-from-file no-recurse-submodules no-track ours overlay
        overwrite-ignore patch pathspec-file-nul progress quiet theirs
        """,
        short_optional="t",
    ),
    "switch": _git(
        "Cc",
        """
        conflict= create= force-create= orphan= recurse-submodules? track? detach discard-changes
        force guess ignore-other-worktrees merge no-conflict no-create no-force-create no-orphan
        no-recurse-submodules no-track overwrite-ignore progress quiet
        """,
        short_optional="t",
    ),
    "restore": _git(
        "Us",
        """
        conflict= inter-hunk-context= pathspec-from-file= recurse-submodules? source= unified=
        ignore-skip-worktree-bits ignore-unmerged merge no-conflict no-pathspec-from-file
        no-recurse-submodules no-source ours overlay patch pathspec-file-nul progress quiet staged
        theirs worktree
        """,
    ),
    "branch": _git(
        "u",
        """
        abbrev? color? column? contains= delete-merged= forked= format= merged= no-contains=
        no-merged= points-at= set-upstream-to= sort= track? with= without= all copy create-reflog
        delete dry-run edit-description force ignore-case list move no-abbrev no-color no-column
        no-format no-points-at no-set-upstream-to no-sort no-track omit-empty quiet recurse-submodules
        remotes set-upstream show-current unset-upstream verbose
        """,
        short_optional="t",
    ),
    "stash": _git(
        "Um",
        """
        inter-hunk-context= label-base= label-ours= label-theirs= message= pathspec-from-file= to-ref=
        unified= all auto-advance include-untracked index keep-index no-label-base no-label-ours
        no-label-theirs no-message no-pathspec-from-file no-to-ref only-untracked patch
        pathspec-file-nul print quiet staged
        """,
    ),
    "rebase": _git(
        "CXsx",
        """
        empty= exec= gpg-sign? onto= rebase-merges? strategy-option= strategy= trailer= whitespace=
        abort allow-empty-message apply autosquash autostash committer-date-is-author-date continue
        edit-todo ff force-rebase fork-point ignore-date ignore-whitespace interactive keep-base
        keep-empty merge no-exec no-gpg-sign no-onto no-rebase-merges no-strategy no-strategy-option
        no-trailer no-whitespace preserve-merges quiet quit reapply-cherry-picks rerere-autoupdate
        reschedule-failed-exec reset-author-date root show-current-patch signoff skip stat update-refs
        verbose verify
        """,
        short_optional="Sr",
    ),
    "commit": _git(
        "CFUcmt",
        """
        author= cleanup= date= file= fixup= gpg-sign? inter-hunk-context= message= pathspec-from-file=
        reedit-message= reuse-message= squash= template= trailer= unified= untracked-files?
        ahead-behind all allow-empty allow-empty-message amend branch dry-run edit include interactive
        long no-author no-cleanup no-date no-file no-fixup no-gpg-sign no-message
        no-pathspec-from-file no-reedit-message no-reuse-message no-squash no-template no-trailer
        no-untracked-files null only patch pathspec-file-nul porcelain post-rewrite quiet reset-author
        short signoff status verbose verify
        """,
        short_optional="Su",
    ),
    "difftool": _git(
        "tx",
        """
        extcmd= tool= dir-diff gui index no-extcmd no-tool prompt symlinks tool-help trust-exit-code
        """,
    ),
    "clone": _git(
        "bcjou",
        """
        branch= bundle-uri= config= depth= filter= jobs= origin= recurse-submodules? recursive?
        ref-format= reference-if-able= reference= revision= separate-git-dir= server-option=
        shallow-exclude= shallow-since= template= upload-pack= also-filter-submodules bare checkout
        dissociate hardlinks ipv4 ipv6 local mirror naked no-branch no-bundle-uri no-config no-depth
        no-filter no-jobs no-origin no-recurse-submodules no-recursive no-ref-format no-reference
        no-reference-if-able no-revision no-separate-git-dir no-server-option no-shallow-exclude
        no-shallow-since no-template no-upload-pack progress quiet reject-shallow remote-submodules
        shallow-submodules shared single-branch sparse tags verbose
        """,
    ),
    "fetch": _git(
        "jo",
        """
        deepen= depth= filter= jobs= negotiation-include= negotiation-restrict= negotiation-tip=
        recurse-submodules-default= recurse-submodules? refmap= server-option= shallow-exclude=
        shallow-since= submodule-prefix= upload-pack= all append atomic auto-gc auto-maintenance
        dry-run force ipv4 ipv6 keep multiple negotiate-only no-deepen no-depth no-filter no-jobs
        no-negotiation-include no-negotiation-restrict no-negotiation-tip no-recurse-submodules
        no-recurse-submodules-default no-server-option no-shallow-exclude no-shallow-since
        no-submodule-prefix no-upload-pack porcelain prefetch progress prune prune-tags quiet refetch
        set-upstream show-forced-updates stdin tags unshallow update-head-ok update-shallow verbose
        write-commit-graph write-fetch-head
        """,
    ),
    "pull": _git(
        "Xos",
        """
        cleanup= deepen= depth= gpg-sign? jobs? log? negotiation-include= negotiation-restrict=
        negotiation-tip= rebase? recurse-submodules? refmap= server-option= shallow-exclude=
        shallow-since= signoff? strategy-option= strategy= upload-pack= all allow-unrelated-histories
        append autostash commit compact-summary dry-run edit ff ff-only force ipv4 ipv6 keep
        no-cleanup no-deepen no-depth no-gpg-sign no-jobs no-log no-negotiation-include
        no-negotiation-restrict no-negotiation-tip no-rebase no-recurse-submodules no-server-option
        no-shallow-exclude no-shallow-since no-signoff no-strategy no-strategy-option no-upload-pack
        progress prune quiet set-upstream show-forced-updates squash stat summary tags unshallow
        update-shallow verbose verify verify-signatures
        """,
        short_optional="Sjr",
    ),
    "ls-remote": _git(
        "o",
        """
        exec= server-option= sort= upload-pack= branches exit-code get-url heads no-exec
        no-server-option no-sort no-upload-pack quiet refs symref tags
        """,
    ),
    # filter-branch is a shell script: exact names, each filter takes the next word.
    "filter-branch": Options(
        long=longs("""
            commit-filter= d= env-filter= index-filter= msg-filter= original= parent-filter=
            state-branch= subdirectory-filter= tag-name-filter= tree-filter= force prune-empty
        """),
        abbreviate=False,
    ),
    # builtin/grep.c: `-O[<pager>]` and `--open-files-in-pager[=<pager>]` name a program to run.
    "grep": _git(
        "efABCm",
        """
        after-context= before-context= context= exclude-standard? max-count= max-depth= threads=
        color? column? open-files-in-pager? all-match and basic-regexp break cached count
        extended-regexp files-with-matches files-without-match fixed-strings full-name
        function-context heading ignore-case index invert-match line-number name-only no-index
        not null only-matching or perl-regexp quiet recurse-submodules show-function textconv
        untracked word-regexp
        """,
        short_optional="O",
    ),
    # log's revision and diff options are read by revision.c, not parse-options: exact names. Only
    # the ones whose value rules read are listed.
    "log": Options(
        short_value="GSn",
        long=longs("author= committer= format= grep= max-count= since= until= pretty?"),
        abbreviate=False,
    ),
}


def git_spec(subcommand: str) -> Options | None:
    """How git reads the options of `subcommand`; None when rein has no table for it."""
    return _GIT.get(subcommand)
