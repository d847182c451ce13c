#!/usr/bin/env bash
# Where the time of one apply goes: the MTU change of bench/mtu_apply_64.sh (64 veth),
# profiled, not timed. Prints the instructions it executes (valgrind callgrind) with the
# largest inclusive costs, and its system calls (strace): all of them, netlink, fsync,
# ethtool. Not part of `make bench` (valgrind is slow); docs/design.md quotes it.
#   bench/profile_apply.sh            BUILD=build by default; KEEP=1 keeps the callgrind file
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null && command -v strace >/dev/null || { echo "profile: needs valgrind and strace" >&2; exit 1; }
ns=$(b_netns prof)
for i in $(seq 0 31); do
        ip -n "$ns" link add "bm$i" type veth peer name "bn$i"
done
printf '{ "state_dir": "%s/state" }\n' "$W" > "$W/agent.json"
for m in 9000 1500; do
        cat > "$W/p$m.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "profile-mtu" },
  "targets": { "interfaces": ["bm*", "bn*"] }, "spec": { "mtu": $m }, "verify": { "probe": "none" } }
JSON
done
# A [WRAPPER...] POLICY: one apply in the namespace, under WRAPPER.
A() { local pol=${!#}; set -- "${@:1:$#-1}"; ip netns exec "$ns" "$@" "$AGENT" --yes --config "$W/agent.json" apply "$pol"; }
# The same journal every time: four applies before the one profiled.
warm() { rm -rf "$W/state"; for _ in 1 2; do A "$W/p9000.json" >/dev/null; A "$W/p1500.json" >/dev/null; done; }
warm
A valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$W/p9000.json" >/dev/null 2>"$W/vg.err"
warm
A strace -f -o "$W/st.out" "$W/p9000.json" >/dev/null
echo "instructions: $(sed -n 's/.*Collected : //p' "$W/vg.err")"
callgrind_annotate --inclusive=yes "$W/cg.out" 2>/dev/null |
        grep -E '^ *[0-9,]+ +\([ 0-9.]+%\) +[^ ]+:[a-z_0-9]+ \[' | grep -v 'below main\|libc-start' | head -${TOP:-25}  || true
python3 - "$W/st.out" <<'PY'
import re, sys, collections
c = collections.Counter()
for line in open(sys.argv[1]):
    m = re.match(r'\d+\s+(\w+)\(', line)       # a call's first line (threads: "<... resumed>" follows)
    if m:
        c[m.group(1)] += 1
netlink = sum(c[k] for k in ('sendto', 'sendmsg', 'recvmsg', 'recvfrom', 'recvmmsg', 'poll'))
print(f"system calls: {sum(c.values())}; netlink {netlink}; fsync {c['fdatasync'] + c['fsync']}; "
      f"ioctl (ethtool) {c['ioctl']}; pread {c['pread64']}, pwrite {c['pwrite64']}")
PY
if [ "${KEEP:-0}" = 1 ]; then
        cp "$W/cg.out" "${KEEP_TO:-/tmp/nettune-apply.callgrind}" && echo "kept: ${KEEP_TO:-/tmp/nettune-apply.callgrind}"
fi
