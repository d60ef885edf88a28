#!/bin/sh
# slicescope-cli --host against a real OpenSSH server on 127.0.0.1 (sshd-fixture.sh): each case
# starts its own sshd, runs the CLI through it and checks what came back (docs/remote.md).
# Usage: remote-cli.sh CLI SOURCE_DIR WORK_DIR CASE
set -u
cli=$1 src=$2 work=$3 case=$4
fixture="$src/tests/remote/sshd-fixture.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

sh "$fixture" start "$work/sshd" >/dev/null || { echo "FAIL: sshd did not start"; exit 1; }
trap 'sh "$fixture" stop "$work/sshd"' EXIT
export SLICESCOPE_SSH="ssh -F $work/sshd/ssh_config"
# The remote CLI under a name of its own: the remote process table is searched for it.
ln -s "$cli" "$work/remote-slicescope-cli"
remote_cli="$work/remote-slicescope-cli"
host=slicescope-test
status=0

fail() {
    echo "FAIL: $*"
    status=1
}
# What must be equal between a local and a remote trace: each run's id, strategy, mode, problem,
# memory mode, repetitions and launch (modelled figures too when asked), and the sweeps' values.
runs_of() {
    grep -oE '"(id|strategy|mode|memory_mode|repeat|param|value|values|index|scale|complete)": ("[^"]*"|[0-9.]+|true|false|\[[^]]*\])|"(problem|launch)": \{[^}]*\}' "$1"
}
same_runs() {
    if ! runs_of "$1" >"$1.runs" || ! runs_of "$2" >"$2.runs" || ! cmp -s "$1.runs" "$2.runs"; then
        fail "the runs of $1 and $2 differ"
        diff "$1.runs" "$2.runs" | head -20
    else
        echo "same runs in $1 and $2: $(grep -c '"id"' "$1.runs") runs"
    fi
}
expect_exit() { # expected actual what
    [ "$1" = "$2" ] || fail "$3 exited with $2, expected $1"
}
expect_in() { # file regex
    grep -qE -- "$2" "$1" || { fail "$1 does not match '$2':"; cat "$1"; }
}
# The remote CLI's processes (the remote script names it too), as the remote process table
# shows them.
remote_processes() {
    pgrep -f "$remote_cli" || true
}
# Waits up to $1 tenths of a second for no remote process to be left.
no_remote_process_within() {
    n=0
    while [ -n "$(remote_processes)" ]; do
        n=$((n + 1))
        [ "$n" -gt "$1" ] && return 1
        sleep 0.1
    done
    return 0
}
# Starts a CPU sweep through ssh in the background: two quick points, then two long ones (tens of
# seconds each); waits until the first long one runs.
start_long_sweep() {
    "$cli" sweep --host "$host" --remote-cli "$remote_cli" --param work --values 1,2,3000,3001 \
        --shape 200x1000x10 --strategy cpu-serial --progress -q -o "$work/long.json" \
        >"$work/long.out" 2>"$work/long.err" &
    sweep=$!
    n=0
    until grep -q '^progress .*"value":"3000"' "$work/long.out" 2>/dev/null; do
        n=$((n + 1))
        if [ "$n" -gt 600 ]; then
            fail "the long point did not start in 60 s"
            cat "$work/long.err"
            return 1
        fi
        sleep 0.1
    done
    [ -n "$(remote_processes)" ] || fail "no remote process is running the sweep"
}

case $case in
gpu_run)
    # The GPU path through ssh (label gpu): measured runs and a recording of recordme
    # (tests/record) on this machine's first GPU, here and through the server.
    if ! "$cli" devices --json | tr -d ' \n' | grep -q '"devices":\[{'; then
        echo "SKIPPED: no CUDA device here: $("$cli" devices 2>&1 | grep -m1 -i 'no ' || true)"
        exit 0
    fi
    "$cli" run --shape 100x4000x5 --strategy all --device 0 --repeat 3 -q -o local.json
    "$cli" run --host "$host" --remote-cli "$remote_cli" --shape 100x4000x5 --strategy all \
        --device 0 --repeat 3 -q -o remote.json >out.txt 2>err.txt
    expect_exit 0 $? "run --host --device 0"
    cat out.txt err.txt
    same_runs local.json remote.json
    expect_in remote.json '"mode": *"measured-gpu"'
    expect_in remote.json '"kind": *"kernel"'
    "$cli" record -q -o rec-local.json -- "${RECORDME:?RECORDME names tests/record/recordme}"
    "$cli" record --host "$host" --remote-cli "$remote_cli" -o "$work/rec.json" -- "$RECORDME" \
        >rec.out 2>rec.err
    expect_exit 0 $? "record --host recordme"
    cat rec.out rec.err
    expect_in rec.err "recorded 5 kernels.*wrote $work/rec.json"
    # The kernels only: how many CUDA API calls a program makes (polls, queries) varies run to run.
    kernels() { grep -o '"kind": *"kernel"[^{}]*' "$1" | grep -o '"name": *"[^"]*"' | sort | uniq -c; }
    [ -n "$(kernels rec-local.json)" ] || fail "no kernel found in the local recording"
    [ "$(kernels rec.json)" = "$(kernels rec-local.json)" ] ||
        fail "the remote recording's kernels differ from the local one's"
    ;;
run_cpu)
    "$cli" run --shape 60x70x3 --strategy cpu-serial,cpu-parallel --repeat 2 -q -o local.json
    "$cli" run --host "$host" --remote-cli "$remote_cli" --shape 60x70x3 --strategy cpu-serial,cpu-parallel \
        --repeat 2 --progress -o "$work/remote.json" >out.txt 2>err.txt
    expect_exit 0 $? "run --host"
    same_runs local.json remote.json
    expect_in out.txt '^progress \{.*"strategy":"cpu-parallel"'
    # The remote summary names the local file, not the remote temporary one.
    expect_in out.txt "wrote 2 runs to $work/remote.json"
    ! grep -q slicescope-remote out.txt err.txt || fail "the remote temporary path leaked into the output"
    ! grep -q /dev/fd/5 out.txt err.txt || fail "the remote pipe's name leaked into the output"
    ;;
model_all)
    "$cli" model --shape 100x4000x5 --strategy all --device h200 -q -o local.json
    "$cli" model --host "$host" --remote-cli "$remote_cli" --shape 100x4000x5 --strategy all --device h200 -q \
        -o remote.json
    expect_exit 0 $? "model --host"
    same_runs local.json remote.json
    # Modelled figures are deterministic: the wall times agree too.
    grep -o '"wall_ns": [0-9]*' local.json >local.wall
    grep -o '"wall_ns": [0-9]*' remote.json >remote.wall
    cmp -s local.wall remote.wall || fail "modelled wall times differ"
    ;;
ciphers)
    # A trace comes back over AES-GCM first where the CPU has AES instructions and ssh's
    # configuration names no ciphers of its own; a configuration that names some is left alone,
    # and a command with no trace asks for nothing.
    printf '#!/bin/sh\necho "$*" >>"%s/ssh-argv"\nexec ssh "$@"\n' "$work" >"$work/logging-ssh"
    chmod +x "$work/logging-ssh"
    grep -q '^Host' "$work/sshd/ssh_config" || fail "the fixture's ssh_config has no Host lines"
    { echo "Ciphers aes256-ctr,chacha20-poly1305@openssh.com"; cat "$work/sshd/ssh_config"; } >"$work/chosen_config"
    aes=no
    grep -E '^(flags|Features)' /proc/cpuinfo | head -1 | grep -qw aes && aes=yes
    SLICESCOPE_SSH="$work/logging-ssh -F $work/sshd/ssh_config" "$cli" model --host "$host" \
        --remote-cli "$remote_cli" --shape 100x4000x5 --strategy slice-middle --device h200 -q -o unconfigured.json
    expect_exit 0 $? "model --host (ssh's default ciphers)"
    if [ "$aes" = yes ]; then
        expect_in "$work/ssh-argv" "Ciphers=aes128-gcm@openssh.com,.*chacha20-poly1305@openssh.com"
    elif grep -q Ciphers= "$work/ssh-argv"; then
        fail "ciphers asked for on a CPU without AES instructions"
    fi
    rm -f "$work/ssh-argv"
    SLICESCOPE_SSH="$work/logging-ssh -F $work/chosen_config" "$cli" model --host "$host" \
        --remote-cli "$remote_cli" --shape 100x4000x5 --strategy slice-middle --device h200 -q -o chosen.json
    expect_exit 0 $? "model --host (ciphers chosen in the configuration)"
    ! grep -q Ciphers= "$work/ssh-argv" || fail "ciphers asked for over the configuration's: $(cat "$work/ssh-argv")"
    rm -f "$work/ssh-argv"
    # devices brings no trace back, but the connection it opens is shared with the commands that
    # follow, which keep its ciphers: it asks too. Without sharing it asks for nothing.
    SLICESCOPE_SSH="$work/logging-ssh -F $work/sshd/ssh_config" "$cli" devices --json --host "$host" \
        --remote-cli "$remote_cli" >/dev/null
    expect_exit 0 $? "devices --host"
    if [ "$aes" = yes ]; then
        expect_in "$work/ssh-argv" "Ciphers=aes128-gcm@openssh.com,"
    fi
    rm -f "$work/ssh-argv"
    SLICESCOPE_SSH_SHARED=0 SLICESCOPE_SSH="$work/logging-ssh -F $work/sshd/ssh_config" "$cli" devices \
        --json --host "$host" --remote-cli "$remote_cli" >/dev/null
    expect_exit 0 $? "devices --host, SLICESCOPE_SSH_SHARED=0"
    ! grep -qE -- "Ciphers=| -G |ControlMaster" "$work/ssh-argv" ||
        fail "devices, which brings no trace and shares no connection, asked: $(cat "$work/ssh-argv")"
    same_runs unconfigured.json chosen.json
    ;;
shared_connection)
    # One connection a host: the first command leaves it open (ssh's ControlMaster, in a
    # directory only this user can enter) and the next goes through it; SLICESCOPE_SSH_SHARED=0
    # turns sharing off, and a socket directory others could enter is not used.
    runtime=$(mktemp -d /tmp/ssr.XXXXXX)
    export XDG_RUNTIME_DIR="$runtime"
    sockets="$runtime/slicescope-ssh"
    # The kept connection's socket (one here: one host, named one way) and its master.
    socket() { find "$sockets" -type s 2>/dev/null | head -1; }
    master() {
        [ -n "$(socket)" ] || { echo "no socket in $sockets"; return 1; }
        ssh -F "$work/sshd/ssh_config" -o ControlPath="$(socket)" -O check "$host" 2>&1
    }
    "$cli" devices --json --host "$host" --remote-cli "$remote_cli" >/dev/null
    expect_exit 0 $? "devices --host"
    [ "$(stat -c %a "$sockets" 2>&1)" = 700 ] || fail "the socket directory is not 0700: $(ls -ld "$sockets" 2>&1)"
    first=$(master)
    echo "after the first command: $first"
    echo "$first" | grep -q 'Master running' || fail "no shared connection after the first command: $first"
    "$cli" model --host "$host" --remote-cli "$remote_cli" --shape 100x4000x5 --strategy all \
        --device h200 -q -o shared.json
    expect_exit 0 $? "model --host through the shared connection"
    "$cli" model --shape 100x4000x5 --strategy all --device h200 -q -o local.json
    same_runs local.json shared.json
    second=$(master)
    [ "$second" = "$first" ] || fail "the second command opened a connection of its own: $first, then $second"
    # Another alias of the same server keeps its own settings: its unknown host key is refused,
    # not bypassed through the connection the first alias keeps.
    "$cli" devices --host slicescope-unknown --remote-cli "$remote_cli" >/dev/null 2>unknown.err
    expect_exit 1 $? "devices --host slicescope-unknown beside a kept connection"
    expect_in unknown.err "host key of slicescope-unknown is not known"
    ssh -F "$work/sshd/ssh_config" -o ControlPath="$(socket)" -O exit "$host" 2>/dev/null
    SLICESCOPE_SSH_SHARED=0 "$cli" devices --json --host "$host" --remote-cli "$remote_cli" >/dev/null
    expect_exit 0 $? "devices --host, SLICESCOPE_SSH_SHARED=0"
    ! master | grep -q 'Master running' || fail "a connection was kept with SLICESCOPE_SSH_SHARED=0"
    rm -rf "$sockets"
    mkdir -m 755 "$sockets" && chmod 755 "$sockets"
    "$cli" devices --json --host "$host" --remote-cli "$remote_cli" >/dev/null
    expect_exit 0 $? "devices --host, a socket directory others can enter"
    ! master | grep -q 'Master running' || fail "a connection was kept in a directory others can enter"
    [ "$(stat -c %a "$sockets")" = 755 ] || fail "the open socket directory was changed"
    rm -rf "$sockets"
    # Where ssh cannot make the socket after all, the command connects again without sharing
    # (this ssh says what OpenSSH says of a socket path too long, whenever it is asked to share).
    printf '#!/bin/sh\ncase "$*" in *ControlMaster=auto*)\n  echo "unix_listener: path \\"/x\\" too long for Unix domain socket" >&2; exit 255;;\nesac\nexec ssh "$@"\n' >"$work/no-socket-ssh"
    chmod +x "$work/no-socket-ssh"
    SLICESCOPE_SSH="$work/no-socket-ssh -F $work/sshd/ssh_config" "$cli" model --host "$host" \
        --remote-cli "$remote_cli" --shape 100x4000x5 --strategy all --device h200 -q \
        -o unshared.json 2>unshared.err
    expect_exit 0 $? "model --host where ssh cannot share"
    cat unshared.err
    expect_in unshared.err "could not share its connection to $host: connecting without sharing"
    same_runs local.json unshared.json
    rm -rf "$runtime"
    ;;
written_at_end_line)
    # The trace is written (synced and renamed into place) once its end line has come, not when
    # the connection ends: here a process the remote CLI leaves behind holds the session's stderr
    # open for 6 s after the CLI is done, so the connection outlives the trace by that much.
    printf '#!/bin/sh\n[ "$1" = --version ] && exec "%s" "$@"\n"%s" "$@"\nr=$?\n(exec >/dev/null </dev/null 5>&-; sleep 6) &\nexit $r\n' "$cli" "$cli" >"$work/lingering-cli"
    chmod +x "$work/lingering-cli"
    start=$(date +%s)
    "$cli" model --host "$host" --remote-cli "$work/lingering-cli" --shape 100x4000x5 --strategy all \
        --device h200 -q -o remote.json &
    pid=$!
    n=0
    until [ -s remote.json ] || [ "$n" -gt 100 ]; do
        n=$((n + 1))
        sleep 0.1
    done
    seen=$(($(date +%s) - start))
    kill -0 "$pid" 2>/dev/null || fail "the CLI ended before the connection did (did the helper linger?)"
    wait "$pid"
    expect_exit 0 $? "model --host with a lingering remote process"
    [ "$seen" -le 4 ] || fail "remote.json appeared only after $seen s: written when the connection ended"
    "$cli" model --shape 100x4000x5 --strategy all --device h200 -q -o local.json
    same_runs local.json remote.json
    ;;
sweep)
    "$cli" sweep --param rows --values 20,40,80 --shape 20x50x2 --strategy cpu-serial,slice-outer,slice-middle \
        --device h200 -q -o local.json >local.out
    "$cli" sweep --host "$host" --remote-cli "$remote_cli" --param rows --values 20,40,80 --shape 20x50x2 \
        --strategy cpu-serial,slice-outer,slice-middle --device h200 -q -o remote.json >remote.out
    expect_exit 0 $? "sweep --host"
    same_runs local.json remote.json
    grep -o '"crossovers": \[[^]]*\]' local.json >local.cross || true
    grep -o '"crossovers": \[[^]]*\]' remote.json >remote.cross || true
    cmp -s local.cross remote.cross || fail "the crossovers differ"
    ;;
devices)
    "$cli" devices --json >local.json
    "$cli" devices --json --host "$host" --remote-cli "$remote_cli" >remote.json
    expect_exit 0 $? "devices --host"
    # The same machine on both ends: the same GPUs and presets.
    cmp -s local.json remote.json || { fail "devices --json differs"; diff local.json remote.json | head; }
    "$cli" devices --host "$host" --remote-cli "$remote_cli" >table.txt
    expect_in table.txt '^Presets'
    ;;
record)
    "$cli" record --host "$host" --remote-cli "$remote_cli" -o "$work/rec.json" --env 'GREETING=hello; $(touch '"$work"'/pwned)' \
        -- sh -c 'printf "%s|%s\n" "$GREETING" "$1"' prog 'it'\''s a "test"' >out.txt 2>err.txt
    expect_exit 0 $? "record --host"
    expect_in out.txt '^hello; \$\(touch .*/pwned\)\|it'\''s a "test"$'
    expect_in rec.json '"mode": *"recorded"'
    expect_in err.txt "recorded 0 kernels.*wrote $work/rec.json"
    mkdir -p "$work/a dir; \$(touch $work/pwned)"
    "$cli" record --host "$host" --remote-cli "$remote_cli" -q -o rec2.json --cwd "$work/a dir; \$(touch $work/pwned)" \
        -- sh -c 'pwd' >out2.txt 2>err2.txt
    expect_exit 0 $? "record --host --cwd with \$()"
    expect_in out2.txt "^$work/a dir; \\\$\(touch $work/pwned\)\$"
    [ ! -e "$work/pwned" ] || fail "a \$() in --env or --cwd ran"
    ;;
cancel)
    start_long_sweep || exit 1
    sleep 0.3
    kill -INT "$sweep"
    if no_remote_process_within 20; then
        echo "no remote process left 2 s after SIGINT"
    else
        fail "remote processes still run 2 s after SIGINT:"
        ps -o pid,args -p "$(remote_processes | tr '\n' ',')0" 
    fi
    wait "$sweep"
    rc=$?
    expect_exit 130 "$rc" "the cancelled sweep"
    # The points finished before the cancel came back, as a local sweep keeps them.
    [ "$(grep -c '"sweep": {' long.json 2>/dev/null)" = 2 ] || fail "the 2 finished points were not kept"
    expect_in long.err 'interrupted: 2 runs of the points finished were kept'
    ;;
cancel_term)
    start_long_sweep || exit 1
    kill -TERM "$sweep"
    no_remote_process_within 20 || fail "remote processes still run 2 s after SIGTERM"
    wait "$sweep"
    expect_exit 130 $? "the cancelled sweep"
    ;;
sshd_killed)
    start_long_sweep || exit 1
    sh "$fixture" stop "$work/sshd"
    wait "$sweep"
    rc=$?
    expect_exit 1 "$rc" "a sweep whose connection dropped"
    expect_in long.err 'connection to slicescope-test was lost mid-run'
    no_remote_process_within 20 || fail "remote processes still run 2 s after the connection dropped"
    [ ! -e long.json ] || fail "a half trace was written"
    # The finished points stayed on the remote side, where the error says (the same machine here).
    kept=$(sed -n 's/.*kept there in \(.*trace\.json\).*/\1/p' long.err)
    [ -n "$kept" ] && [ "$(grep -c '"sweep": {' "$kept" 2>/dev/null)" = 2 ] ||
        fail "the finished points are not in the remote file the error names ($kept)"
    [ -z "$kept" ] || rm -rf "$(dirname "$kept")"
    ;;
unknown_host_key)
    "$cli" run --host slicescope-unknown --remote-cli "$remote_cli" --shape 10x10x2 --strategy cpu-serial \
        -o t.json 2>err.txt
    expect_exit 1 $? "an unknown host key"
    expect_in err.txt 'host key of slicescope-unknown is not known.*\(ssh: Host key verification failed.\)'
    ;;
auth_failed)
    "$cli" devices --host slicescope-nokey --remote-cli "$remote_cli" 2>err.txt
    expect_exit 1 $? "a key the server refuses"
    expect_in err.txt 'authentication to slicescope-nokey failed.*Permission denied'
    ;;
missing_cli)
    "$cli" devices --host "$host" --remote-cli /nonexistent/slicescope-cli 2>err.txt
    expect_exit 1 $? "a missing remote CLI"
    expect_in err.txt "slicescope-cli was not found on slicescope-test \('/nonexistent/slicescope-cli'"
    # The default: slicescope-cli on the remote PATH, which has none here.
    "$cli" devices --host "$host" 2>err2.txt
    expect_exit 1 $? "no slicescope-cli on the remote PATH"
    expect_in err2.txt "slicescope-cli was not found on slicescope-test"
    ;;
version_mismatch)
    cat >fake-cli <<'FAKE'
#!/bin/sh
echo '{"program":"slicescope-cli","version":"9.9.9","trace_format":99}'
FAKE
    chmod +x fake-cli
    "$cli" run --host "$host" --remote-cli "$work/fake-cli" --shape 10x10x2 --strategy cpu-serial -o t.json 2>err.txt
    expect_exit 1 $? "a version mismatch"
    expect_in err.txt 'version mismatch: this slicescope-cli 0\.1\.0 writes trace format 1, but slicescope-cli 9\.9\.9 on slicescope-test .* writes trace format 99'
    printf '#!/bin/sh\necho slicescope-cli 0.0.1\n' >old-cli
    chmod +x old-cli
    "$cli" run --host "$host" --remote-cli "$work/old-cli" --shape 10x10x2 --strategy cpu-serial -o t.json 2>err2.txt
    expect_exit 1 $? "a CLI without --version --json"
    expect_in err2.txt "does not answer '--version --json'"
    [ ! -e t.json ] || fail "a trace was written after a failed handshake"
    ;;
injection)
    pwned="$work/pwned"
    # The host: never an ssh option.
    "$cli" run --host="-oProxyCommand=touch $pwned" --shape 10x10x2 --strategy cpu-serial -o t.json 2>err.txt
    expect_exit 2 $? "a host beginning with -"
    expect_in err.txt "may not begin with '-'"
    # Shape, strategy list, output path and values that a shell would run: refused or kept as text.
    "$cli" run --host "$host" --remote-cli "$remote_cli" --shape "10x10x2\$(touch $pwned)" --strategy cpu-serial \
        -o t.json 2>err1.txt
    expect_exit 2 $? "a shape with \$()"
    expect_in err1.txt 'shape'
    "$cli" run --host "$host" --remote-cli "$remote_cli" --shape '10x10x2' --strategy "cpu-serial;touch $pwned" \
        -o t.json 2>err2.txt
    expect_exit 2 $? "a strategy list with ;"
    "$cli" run --host "$host" --remote-cli "$remote_cli" --shape "10x10x2
touch $pwned" --strategy "cpu-serial\`touch $pwned\`" -o t.json 2>err3.txt
    expect_exit 2 $? "a shape with a newline"
    # (no '/' inside the name: the $() would name a folder; a relative touch would land in the
    # remote home or here)
    odd="$work/out \$(touch pwned-odd) 'q' \"d\"; \`touch pwned-odd\` x.json"
    "$cli" run --host "$host" --remote-cli "$remote_cli" --shape 10x10x2 --strategy cpu-serial -q -o "$odd" 2>err4.txt
    expect_exit 0 $? "an output path with spaces, quotes and \$()"
    [ -s "$odd" ] || fail "the output with an odd name was not written"
    [ ! -e "$pwned" ] && [ ! -e pwned-odd ] && [ ! -e "$HOME/pwned-odd" ] ||
        fail "an argument ran on the remote shell"
    echo "no injected command ran"
    ;;
*)
    echo "unknown case $case"
    exit 2
    ;;
esac
exit "$status"
