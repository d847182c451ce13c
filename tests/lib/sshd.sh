# Private OpenSSH sshd on 127.0.0.1 for tests: source after common.sh.
#   sshd_start DIR FORCECOMMAND   start sshd; sets SSHD_PORT, SSHD_KEY (client key),
#                                 SSHD_KNOWN_HOSTS, SSHD_HOSTKEY, SSHD_PID
#   sshd_stop                     stop it (cleanup also does)
#   switch_sim_start DIR DIALECT PORTS   switchsim state in DIR/state.json behind sshd;
#                                 writes DIR/agent.json with one switch "sw1"; sets SIM, SIM_STATE
#   sim ARGS...                   run build/switchsim on that state (hand edits, --dump, --tick)
# Keys are ed25519 (libssh2 1.10 cannot sign with RSA against OpenSSH 9.2).

require_sshd() {
        [ -x /usr/sbin/sshd ] || skip "openssh-server is not installed"
        command -v ssh-keygen >/dev/null || skip "ssh-keygen is not installed"
        [ "$(id -u)" -eq 0 ] || skip "a private sshd with ForceCommand needs root here"
}

sshd_start() {
        local dir=$1 force=$2
        require_sshd
        mkdir -p "$dir" /run/sshd
        ssh-keygen -q -t ed25519 -N '' -f "$dir/host_ed25519" -C nettune-test-host
        ssh-keygen -q -t ed25519 -N '' -f "$dir/id_ed25519" -C nettune-test-client
        cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
        SSHD_PORT=$(free_port)
        cat > "$dir/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $SSHD_PORT
HostKey $dir/host_ed25519
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
AllowUsers $(id -un)
PermitUserEnvironment no
X11Forwarding no
AllowTcpForwarding no
MaxSessions 64
MaxStartups 64
LogLevel ${SSHD_LOGLEVEL:-ERROR}
ForceCommand $force
EOF
        bg /usr/sbin/sshd -D -e -f "$dir/sshd_config"
        SSHD_PID=$BG_PID
        wait_for 10 bash -c ": < /dev/tcp/127.0.0.1/$SSHD_PORT" || fail "sshd did not start on port $SSHD_PORT"
        SSHD_KEY=$dir/id_ed25519
        SSHD_HOSTKEY=$dir/host_ed25519
        SSHD_KNOWN_HOSTS=$dir/known_hosts
        echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$dir/host_ed25519.pub")" > "$SSHD_KNOWN_HOSTS"
}

sshd_stop() {
        [ -n "${SSHD_PID:-}" ] || return 0
        kill "$SSHD_PID" 2>/dev/null || true
        wait "$SSHD_PID" 2>/dev/null || true
        SSHD_PID=
}

# Replace the sshd host key (a "changed switch"): restart sshd with a new key, same port.
sshd_change_hostkey() {
        local dir=$1
        kill "$SSHD_PID" 2>/dev/null || true
        wait "$SSHD_PID" 2>/dev/null || true
        rm -f "$dir/host_ed25519" "$dir/host_ed25519.pub"
        ssh-keygen -q -t ed25519 -N '' -f "$dir/host_ed25519" -C nettune-test-host2
        bg /usr/sbin/sshd -D -e -f "$dir/sshd_config"
        SSHD_PID=$BG_PID
        wait_for 10 bash -c ": < /dev/tcp/127.0.0.1/$SSHD_PORT" || fail "sshd did not restart"
}

switch_sim_start() {
        local dir=$1 dialect=$2 ports=$3
        SIM=$BUILD/switchsim
        [ -x "$SIM" ] || fail "$SIM is not built (make test-bins)"
        SIM_STATE=$dir/state.json
        SIM_DIALECT=$dialect
        mkdir -p "$dir"
        "$SIM" --dialect "$dialect" --state "$SIM_STATE" --init --ports "$ports"
        sshd_start "$dir" "$SIM --dialect $dialect --state $SIM_STATE"
        local plist
        plist=$(echo "$ports" | sed 's/[^,][^,]*/"&"/g')
        cat > "$dir/agent.json" <<EOF
{ "state_dir": "$dir/var",
  "switches": [ { "name": "sw1", "dialect": "$dialect", "host": "127.0.0.1", "port": $SSHD_PORT,
                  "user": "$(id -un)", "key": "$SSHD_KEY", "known_hosts": "$SSHD_KNOWN_HOSTS",
                  "ports": [$plist], "connect_timeout_ms": 3000, "command_timeout_ms": 3000 } ] }
EOF
}

sim() { "$SIM" --dialect "$SIM_DIALECT" --state "$SIM_STATE" "$@"; }
