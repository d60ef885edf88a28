#!/bin/sh
# A throwaway OpenSSH server on 127.0.0.1 for the --host tests (docs/remote.md, "Tests"):
#   sshd-fixture.sh start DIR   makes DIR, a host key, a user key, sshd_config and ssh_config in it,
#                               starts Debian's sshd on a free port and prints the port
#   sshd-fixture.sh stop DIR    stops that sshd (by the PID in DIR/sshd.pid) and every session
#                               process it started
# The client side never reads the user's ~/.ssh: DIR/ssh_config is used with ssh -F (through
# SLICESCOPE_SSH="ssh -F DIR/ssh_config") and names these aliases:
#   slicescope-test     this server, its host key known (DIR/known_hosts), the user key
#   slicescope-unknown  this server, no host key known: "Host key verification failed"
#   slicescope-nokey    this server, a key it does not accept: "Permission denied"
# With SSHD_FIXTURE_QUIET_SHELL=1 (for slicescope-bench-remote; needs root and unshare), sshd runs
# in a mount namespace of its own in which the account's shell start-up files (~/.bashrc,
# ~/.profile, ~/.bash_profile) read as empty: sessions start as on a host whose login shell does
# nothing slow. The files themselves are not touched.
set -eu
action=$1 dir=$2
sshd=${SLICESCOPE_SSHD:-/usr/sbin/sshd} # the device script names a carried one

stop() {
    [ -f "$dir/sshd.pid" ] || return 0
    pid=$(cat "$dir/sshd.pid")
    # The session processes (sshd's children) first, then the listener: all by PID.
    for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do
        for grandchild in $(ps -o pid= --ppid "$child" 2>/dev/null); do
            kill -KILL "$grandchild" 2>/dev/null || true
        done
        kill -KILL "$child" 2>/dev/null || true
    done
    kill -TERM "$pid" 2>/dev/null || true
    rm -f "$dir/sshd.pid"
}

start_sshd() {
    if [ "${SSHD_FIXTURE_QUIET_SHELL:-0}" = 1 ]; then
        # shellcheck disable=SC2016 # expanded by the inner shell
        unshare -m sh -c 'for f in "$HOME/.bashrc" "$HOME/.profile" "$HOME/.bash_profile"; do
                [ ! -f "$f" ] || mount --bind /dev/null "$f" || exit 1
            done
            exec "$@"' quiet-shell "$sshd" -f "$dir/sshd_config" -E "$dir/sshd.log"
    else
        "$sshd" -f "$dir/sshd_config" -E "$dir/sshd.log"
    fi
}

if [ "$action" = stop ]; then
    stop
    exit 0
fi
[ "$action" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ -x "$sshd" ] || { echo "FAIL: $sshd is missing: apt-get install openssh-server" >&2; exit 1; }

rm -rf "$dir"
mkdir -p "$dir"
chmod 700 "$dir"
# Debian's sshd refuses to start without its privilege separation directory.
[ -d /run/sshd ] || mkdir -p /run/sshd 2>/dev/null || true
ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key" -C slicescope-test-host
ssh-keygen -q -t ed25519 -N '' -f "$dir/user_key" -C slicescope-test-user
ssh-keygen -q -t ed25519 -N '' -f "$dir/other_key" -C slicescope-test-other
cp "$dir/user_key.pub" "$dir/authorized_keys"

user=$(id -un)
port=
tries=0
while [ -z "$port" ]; do
    tries=$((tries + 1))
    [ "$tries" -le 50 ] || { echo "FAIL: no free port for sshd" >&2; cat "$dir/sshd.log" >&2; exit 1; }
    candidate=$((20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000))
    cat >"$dir/sshd_config" <<CONFIG
Port $candidate
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
StrictModes no
UsePAM no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers $user
X11Forwarding no
AllowTcpForwarding no
PrintMotd no
LogLevel ERROR
CONFIG
    # Without -D, sshd binds the port before it detaches: when it returns, it is listening.
    if start_sshd; then
        i=0
        while [ ! -s "$dir/sshd.pid" ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        port=$candidate
    fi
done

printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 "$dir/host_key.pub")" >"$dir/known_hosts"
# ssh takes the first value it finds for each keyword (IdentityFile adds up): the special
# aliases come first.
cat >"$dir/ssh_config" <<CONFIG
Host slicescope-unknown
    UserKnownHostsFile /dev/null

Host slicescope-nokey
    IdentityFile $dir/other_key

Host slicescope-test slicescope-unknown
    IdentityFile $dir/user_key

Host slicescope-test slicescope-unknown slicescope-nokey
    HostName 127.0.0.1
    Port $port
    User $user
    IdentitiesOnly yes
    UserKnownHostsFile $dir/known_hosts
    GlobalKnownHostsFile /dev/null
    StrictHostKeyChecking yes
    ConnectTimeout 10
    LogLevel ERROR
CONFIG
echo "$port"
