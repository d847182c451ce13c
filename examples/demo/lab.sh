# The demo lab: source it after lib.sh. Everything lives in network namespaces
# named "$DEMO_PREFIX-*" and under $DEMO_DIR; nothing touches the host's own links.
#
#   hub       Linux bridge br0 (198.18.0.1/24, MTU 9216), the probe-server, nettunectl
#   gpu1..4   one "GPU node" each: eth0 198.18.0.1N/24 on a veth into br0,
#             nettune-agent serve on :7440 (mTLS)
#   gpu5      a GPU node with a ConnectX port: eth0 198.18.0.15/24 for its API, and
#             ens1f0np0, the mlx5 behaviour model (build/nicmodel) behind the agent's
#             netlink seam, cabled to leaf1 swp5 (the doctor story)
#   fabric1   the agent that manages leaf1: eth0 198.18.0.21/24, nettune-agent serve,
#             a private sshd on 127.0.0.1:2222 whose ForceCommand is the simulated
#             leaf switch (build/switchsim, NVUE dialect)
# Every GPU node's agent configuration says which leaf1 port it is cabled to ("links").

HUB_IP=198.18.0.1
GPUS=(gpu1 gpu2 gpu3 gpu4)
NODES=(gpu1 gpu2 gpu3 gpu4 gpu5 fabric1)
NIC_IF=ens1f0np0
PROBE_PEER=$HUB_IP:18515
SSH_PORT=2222
LEAF_PORTS=swp1,swp2,swp3,swp4,swp5

ns_of() { echo "$DEMO_PREFIX-$1"; }
ip_of() {
        case $1 in
        gpu*) echo "198.18.0.1${1#gpu}" ;;
        fabric1) echo 198.18.0.21 ;;
        esac
}
mtu_of() { ip -n "$(ns_of "$1")" -o link show eth0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p'; }
in_ns() { local n=$1; shift; ip netns exec "$(ns_of "$n")" "$@"; }
ctl() { in_ns hub "$CTL" --yes --inventory "$DEMO_DIR/inventory.json" --db "$DEMO_DIR/nettune.db" "$@"; }
NICMODEL=$BUILD/nicmodel
sim() { "$SIM" --dialect nvue --state "$DEMO_DIR/leaf1/state.json" "$@"; }

# Two CAs, as docs/security.md recommends: the agents' CA signs a server certificate
# per node (SAN: its address and name; EKU serverAuth), the clients' CA the
# controller's client certificate (EKU clientAuth). Agents trust only the clients'
# CA, so no agent's key can drive another agent. EC P-256, valid for 2 days.
lab_pki() {
        local d=$DEMO_DIR/pki n ca
        mkdir -p "$d"
        (
                cd "$d"
                umask 077
                for ca in ca clients-ca; do
                        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
                                -subj "/CN=nettune demo $ca" -addext basicConstraints=critical,CA:TRUE \
                                -addext keyUsage=critical,keyCertSign,cRLSign -keyout $ca.key -out $ca.crt
                done
                for n in "${NODES[@]}" controller; do
                        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
                                -subj "/CN=$n" -keyout "$n.key" -out "$n.csr"
                        if [ "$n" = controller ]; then
                                ca=clients-ca
                                printf 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n'
                        else
                                ca=ca
                                printf 'subjectAltName=DNS:%s,IP:%s\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n' \
                                        "$n" "$(ip_of "$n")"
                        fi >"$n.ext"
                        openssl x509 -req -in "$n.csr" -CA $ca.crt -CAkey $ca.key -CAcreateserial -days 2 \
                                -extfile "$n.ext" -out "$n.crt"
                        rm -f "$n.csr" "$n.ext"
                done
        ) >"$DEMO_DIR/pki.log" 2>&1 || die "cannot make certificates (see $DEMO_DIR/pki.log)"
}

lab_hub() {
        local hub
        hub=$(ns_of hub)
        ip netns add "$hub"
        ip -n "$hub" link set lo up
        ip -n "$hub" link add br0 type bridge
        ip -n "$hub" link set br0 mtu 9216 up
        ip -n "$hub" addr add "$HUB_IP/24" dev br0
}

# lab_node NAME: namespace, veth eth0 <-> hub port NAME, agent configuration.
lab_node() {
        local n=$1 ns hub dir=$DEMO_DIR/$1
        ns=$(ns_of "$n") hub=$(ns_of hub)
        ip netns add "$ns"
        ip -n "$ns" link set lo up
        ip link add eth0 netns "$ns" type veth peer name "$n" netns "$hub"
        ip -n "$hub" link set "$n" mtu 9216 master br0 up
        ip -n "$ns" addr add "$(ip_of "$n")/24" dev eth0
        ip -n "$ns" link set eth0 up
        mkdir -p "$dir/state"
        cat >"$dir/agent.json" <<JSON
{ "listen": "$(ip_of "$n"):7440",
  "tls": { "cert": "../pki/$n.crt", "key": "../pki/$n.key", "client_ca": "../pki/clients-ca.crt" },
  "state_dir": "state",
  "probe": { "listen": "$(ip_of "$n"):18515", "runs": 3, "allow": ["198.18.0.0/24"] },
  "drift": { "interval_s": 0, "mode": "report" }${2:+,
  $2} }
JSON
}

# The simulated leaf behind a private sshd inside fabric1's namespace. The switch
# starts as it would out of the box here: MTU 1500 on every port, trust l2.
lab_leaf() {
        local d=$DEMO_DIR/leaf1 p
        mkdir -p "$d" /run/sshd
        sim --init --ports "$LEAF_PORTS" >/dev/null
        for p in ${LEAF_PORTS//,/ }; do
                sim -- nv set interface "$p" link mtu 1500 >/dev/null
        done
        sim -- nv config apply -y >/dev/null
        ssh-keygen -q -t ed25519 -N '' -f "$d/host_ed25519" -C leaf1-host
        ssh-keygen -q -t ed25519 -N '' -f "$d/id_ed25519" -C nettune-fabric1
        cp "$d/id_ed25519.pub" "$d/authorized_keys"
        cat >"$d/sshd_config" <<CFG
ListenAddress 127.0.0.1
Port $SSH_PORT
HostKey $d/host_ed25519
PidFile $d/sshd.pid
AuthorizedKeysFile $d/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
AllowUsers $(id -un)
X11Forwarding no
AllowTcpForwarding no
MaxStartups 32
LogLevel ERROR
ForceCommand $SIM --dialect nvue --state $d/state.json
CFG
        echo "[127.0.0.1]:$SSH_PORT $(cut -d' ' -f1,2 "$d/host_ed25519.pub")" >"$d/known_hosts"
        demo_bg sshd ip netns exec "$(ns_of fabric1)" /usr/sbin/sshd -D -e -f "$d/sshd_config" 2>>"$DEMO_DIR/sshd.log"
        wait_until 10 in_ns fabric1 bash -c ": </dev/tcp/127.0.0.1/$SSH_PORT" ||
                die "the switch's sshd did not start (see $DEMO_DIR/sshd.log)"
}

lab_inventory() {
        local n sep=""
        {
                printf '{ "tls": { "ca": "pki/ca.crt", "cert": "pki/controller.crt", "key": "pki/controller.key" },\n  "nodes": [\n'
                for n in "${GPUS[@]}"; do
                        printf '%s    { "name": "%s", "url": "https://%s:7440", "labels": { "role": "gpu", "rack": "r%d" } }' \
                                "$sep" "$n" "$(ip_of "$n")" $(( (${n#gpu} + 1) / 2 ))
                        sep=$',\n'
                done
                printf '%s    { "name": "gpu5", "url": "https://%s:7440", "labels": { "role": "gpu-nic", "rack": "r3" } }' \
                        "$sep" "$(ip_of gpu5)"
                printf ',\n    { "name": "fabric1", "url": "https://%s:7440", "labels": { "role": "fabric" } }\n  ] }\n' \
                        "$(ip_of fabric1)"
        } >"$DEMO_DIR/inventory.json"
}

agent_up() {
        in_ns "$1" curl -s --max-time 2 -o /dev/null --cacert "$DEMO_DIR/pki/ca.crt" \
                --cert "$DEMO_DIR/pki/controller.crt" --key "$DEMO_DIR/pki/controller.key" \
                "https://$(ip_of "$1"):7440/v1/health"
}

# agent_api NODE PATH: GET an agent's API with the controller's certificate.
agent_api() {
        in_ns "$1" curl -sS --max-time 20 --cacert "$DEMO_DIR/pki/ca.crt" \
                --cert "$DEMO_DIR/pki/controller.crt" --key "$DEMO_DIR/pki/controller.key" \
                "https://$(ip_of "$1"):7440$2"
}

# gpu2's agent carries the lab's regression hook (story 4): while the file
# $DEMO_DIR/rig-gpu2 exists, a tbf rate limit is added to its link after a change
# and before the post-change probe. Nothing else ever triggers it.
lab_start_agents() {
        local n hook
        hook="test -e '$DEMO_DIR/rig-gpu2' && tc qdisc replace dev eth0 root tbf rate 200mbit burst 32k latency 10ms; true"
        for n in "${NODES[@]}"; do
                if [ "$n" = gpu2 ]; then
                        demo_bg "agent-$n" env NETTUNE_TEST_HOOK_AFTER_APPLY="$hook" \
                                ip netns exec "$(ns_of "$n")" "$AGENT" serve --config "$DEMO_DIR/$n/agent.json"
                elif [ "$n" = gpu5 ]; then      # its netlink goes to the NIC model
                        demo_bg "agent-$n" env NETTUNE_NETLINK_SOCKET="$DEMO_DIR/gpu5/nl.sock" \
                                ip netns exec "$(ns_of "$n")" "$AGENT" serve --config "$DEMO_DIR/$n/agent.json"
                else
                        demo_bg "agent-$n" ip netns exec "$(ns_of "$n")" "$AGENT" serve --config "$DEMO_DIR/$n/agent.json"
                fi 2>>"$DEMO_DIR/$n/agent.log"
        done
        for n in "${NODES[@]}"; do
                wait_until 20 agent_up "$n" || die "the agent of $n did not come up (see $DEMO_DIR/$n/agent.log)"
        done
}

# gpu5's ConnectX port: the mlx5 model, its sysfs tree under $DEMO_DIR/gpu5/sys.
lab_nic() {
        local d=$DEMO_DIR/gpu5
        demo_bg nicmodel "$NICMODEL" serve --socket "$d/nl.sock" --control "$d/ctl.sock" --sysfs "$d/sys" \
                --log "$d/model.log" "mlx5:$NIC_IF:4" >"$d/model.out" 2>&1
        wait_until 10 grep -qx ready "$d/model.out" || die "the NIC model did not start (see $d/model.out)"
}

lab_up() {
        local n
        mkdir -p "$DEMO_DIR"
        : >"$DEMO_DIR/pids"
        lab_pki
        lab_hub
        for n in "${GPUS[@]}"; do lab_node "$n" "\"links\": { \"eth0\": \"leaf1:swp${n#gpu}\" }"; done
        lab_node gpu5 "\"sysfs_root\": \"sys\", \"settle_ms\": 10000, \"links\": { \"$NIC_IF\": \"leaf1:swp5\" }"
        lab_nic
        lab_node fabric1 "$(printf '"switches": [ { "name": "leaf1", "dialect": "nvue", "host": "127.0.0.1", "port": %d,\n      "user": "%s", "key": "../leaf1/id_ed25519", "known_hosts": "../leaf1/known_hosts",\n      "ports": [%s], "connect_timeout_ms": 3000, "command_timeout_ms": 10000 } ]' \
                "$SSH_PORT" "$(id -un)" "$(echo "$LEAF_PORTS" | sed 's/[^,][^,]*/"&"/g')")"
        lab_leaf
        lab_inventory
        demo_bg probe-server ip netns exec "$(ns_of hub)" "$AGENT" probe-server --listen "$PROBE_PEER" --allow 198.18.0.0/24 2>>"$DEMO_DIR/probe-server.log"
        lab_start_agents
        wait_until 10 in_ns hub bash -c ": </dev/tcp/$HUB_IP/18515" || die "the probe-server did not start"
}

# Stop what the pid file names (only processes that still run one of our programs),
# delete the namespaces with our prefix, remove the directory.
lab_down() {
        local pid name ns i
        if [ -f "$DEMO_DIR/pids" ]; then
                while read -r pid name; do
                        lab_is_ours "$pid" && kill -TERM "$pid" 2>/dev/null
                done <"$DEMO_DIR/pids"
                for i in $(seq 50); do
                        lab_any_alive || break
                        sleep 0.1
                done
                while read -r pid name; do
                        lab_is_ours "$pid" && kill -KILL "$pid" 2>/dev/null
                done <"$DEMO_DIR/pids"
        fi
        for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -- "^$DEMO_PREFIX-"); do
                ip netns del "$ns" 2>/dev/null || true
        done
        [ "${KEEP_DEMO_DIR:-0}" = 1 ] || rm -rf "$DEMO_DIR"
}

lab_is_ours() {
        local cmd
        cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline") || return 1
        case $cmd in *nettune-agent*|*sshd*"$DEMO_DIR"*|*nicmodel*"$DEMO_DIR"*) return 0 ;; esac
        return 1
}

lab_any_alive() {
        local pid name
        while read -r pid name; do
                lab_is_ours "$pid" && return 0
        done <"$DEMO_DIR/pids"
        return 1
}
