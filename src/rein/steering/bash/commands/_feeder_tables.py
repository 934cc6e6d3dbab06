"""Option tables of the runners that feed a command its arguments or run it on events: `xargs`, GNU
`parallel`, `find`'s primaries, `make`, `watchexec`."""

from __future__ import annotations

from itertools import product

from rein.steering.bash.commands._options import Options
from rein.steering.bash.commands._table_kit import longs, words

FEEDERS: dict[str, Options] = {
    # GNU findutils xargs 4.9 (xargs/xargs.c): getopt_long "+0a:E:e::i::I:l::L:n:oprs:txP:d:".
    "xargs": Options(
        short_value="EILPadns",
        short_optional="eil",
        long=longs("""
            arg-file= delimiter= max-args= max-chars= max-procs= process-slot-var= eof? max-lines?
            replace? exit help interactive no-run-if-empty null open-tty show-limits verbose version
        """),
        permute=False,
    ),
    # GNU parallel 20260422 (src/parallel, options_completion_hash): Perl Getopt::Long with "bundling" and
    # "require_order" (the first operand ends the options), so long options abbreviate. An optional
    # string (`-e`, `-i`, `--eof`, `--replace`) takes the next word unless it starts with `-`; the
    # optional number of `-l`/`--max-lines` only an attached one. Long names match case-insensitively
    # in Getopt::Long; only the spelled case is known here.
    "parallel": Options(
        short_value="BCDEHIJLNPSUWadeijns",
        short_optional="l",
        long=longs("""
            arg-file-sep= arg-file= arg-sep= argfile= argfilesep= argsep= bar basefile=
            basenameextensionreplace= basenamereplace= bf= bg bibtex bin= block-size= block-timeout=
            block= blocksize= blocktimeout= bner= bnr= bt= cat cf citation cleanup col-sep= color
            color-fail color-failed colorfail colorfailed colour colour-fail colour-failed colourfail
            colourfailed colsep= combine-exec= combine-executable= combineexec= combineexecutable=
            compress compress-program= compressprogram= controlmaster csv ctag ctag-string= ctagstring=
            ctrl-c ctrlc debug= decompress-program= decompressprogram= delay= delimiter= dirnamereplace=
            dnr= dr dry-run dryrun embed env= eof= er= eta exit extensionreplace= fast fg fifo files
            files0 filter-host filter-hosts filter= filterhosts gnu group group-by= groupby=
            halt-on-error= halt= haltonerror= hashbang header= help hgrp hostgroup hostgroups hostgrp id=
            interactive jl= joblog= jobs= keep-order keeporder latest-line latestline lb limit=
            line-buffer line-buffered linebuffer linebuffered link linkinputsource= ll load= match=
            max-args= max-chars= max-line-length-allowed max-lines? max-procs= max-replace-args= maxargs=
            maxchars= maxlinelengthallowed maxlines? maxprocs= maxreplaceargs= memfree= memsuspend=
            milestone= min-version= minversion= ms= nice= nn no-ctrl-c no-ctrlc no-k no-keep-order
            no-notice no-run-if-empty noctrlc nok nokeeporder nonall nonotice norunifempty noswap null
            number-of-cores number-of-cpus number-of-sockets number-of-threads numberofcores numberofcpus
            numberofsockets numberofthreads onall open-tty output-as-files output-as-files0 outputasfiles
            outputasfiles0 parens= pipe pipe-part pipepart plain plus process-slot-var= processslotvar=
            profile= progress quote recend= record-env recordenv recstart= regex regexp remove-rec-sep
            removerecsep replace= res= result= results= resume resume-failed resumefailed retries=
            retry-failed retryfailed return= round round-robin roundrobin rpl= rrs rsync-opts= rsyncopts=
            semaphore semaphore-name= semaphore-timeout= semaphorename= semaphoretimeout= seqreplace=
            session shard= shebang shell-completion= shell-quote shell_quote shellcompletion= shellquote
            show-limits showlimits shuf silent skip-first-line skipfirstline slf= slotreplace= spreadstdin
            sql-and-worker= sql-master= sql-worker= sql= sqlandworker= sqlmaster= sqlworker= ssh-delay=
            ssh= sshdelay= sshlogin= sshloginfile= st= tag tag-string= tagstring= tee tempdir= template=
            term-seq= termseq= tf= timeout= tmpdir= tmpl= tmux tmux-pane tmuxpane tollef total-jobs=
            total= totaljobs= transfer transfer-file= transfer-files= transferfile= transferfiles= trc=
            trim= tty ungroup unsafe use-compress-program= use-cores-instead-of-threads
            use-cpus-instead-of-cores use-decompress-program= use-sockets-instead-of-threads
            usecompressprogram= usecoresinsteadofthreads usecpusinsteadofcores usedecompressprogram=
            usesocketsinsteadofthreads verbose version wait wd= will-cite willcite work-dir= workdir=
            xapply xapplyinputsource= xargs
        """),
        permute=False,
    ),
    # GNU make 4.4 (src/main.c switches[] and long_option_aliases[]): getopt_long, options anywhere.
    # `-j`/`-l` (and their long forms) take the next word too when it is a number; only an attached
    # value is known here. `-O`/`--output-sync`, `--debug`, `--shuffle` take an attached value only.
    "make": Options(
        short_value="CEIWfo",
        short_optional="Ojl",
        long=longs("""
            assume-new= assume-old= directory= eval= file= include-dir= jobserver-auth= jobserver-fds=
            jobserver-style= makefile= new-file= old-file= sync-mutex= temp-stdin= what-if= debug? jobs?
            load-average? max-load? output-sync? shuffle? warn? always-make check-symlink-times dry-run
            environment-overrides help ignore-errors just-print keep-going no-builtin-rules
            no-builtin-variables no-keep-going no-print-directory no-silent print-data-base
            print-directory print-targets question quiet recon silent stop touch trace version
            warn-undefined-variables
        """),
    ),
    # watchexec 2.x (crates/cli/src/args*.rs): clap, no abbreviation; the first operand starts the
    # command (trailing_var_arg). `--poll`, `--log-file`, `-c`/`--clear` and `-N`/`--notify` take an
    # optional value; whether clap gives them the next word is not confirmed, so only an attached one
    # is read.
    "watchexec": Options(
        short_value="EFWdefijosw",
        short_optional="Nc",
        long=longs("""
            color= colour= completions= debounce= delay-run= emit-events-to= env= exts= filter-file=
            filter-prog= filter= fs-events= ignore-file= ignore= map-signal= on-busy-update=
            project-origin= shell= signal= socket= stop-signal= stop-timeout= timeout= watch-file=
            watch-non-recursive= watch= workdir= wrap-process= clear? force-poll? log-file? notify? poll?
            bell exit-on-error help ignore-nothing interactive manual no-default-ignore
            no-discover-ignore no-environment no-follow-symlinks no-global-ignore no-meta
            no-process-group no-project-ignore no-vcs-ignore only-emit-events postpone print-events quiet
            quote restart stdin-quit timings verbose version
        """),
        permute=False,
        abbreviate=False,
    ),
}

FIND_PRIMARIES: dict[str, int] = {
    # GNU findutils find 4.9 (find/parser.c parse_table): how many words each primary takes.
    **dict.fromkeys(
        words("""
        -amin -anewer -atime -cmin -cnewer -context -ctime -files0-from -fls -fprint -fprint0 -fstype
        -gid -group -ilname -iname -inum -ipath -iregex -iwholename -links -lname -maxdepth -mindepth
        -mmin -mtime -name -newer -path -perm -printf -regex -regextype -samefile -size -type -uid
        -used -user -wholename -xtype
        """),
        1,
    ),
    "-fprintf": 2,
    # -newerXY: X one of a B c m, Y one of a B c m t (t: the value is a date, not a file).
    **{f"-newer{x}{y}": 1 for x, y in product("aBcm", "aBcmt")},
}
"""`find` primaries that take words after them, so a word such as `-exec` there is no action."""
