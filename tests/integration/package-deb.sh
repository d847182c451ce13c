#!/usr/bin/env bash
# The Debian package, end to end on this machine: `make deb` (dpkg-buildpackage and
# lintian; a package of the same source is reused from $BUILD/deb), `dpkg -i`, the
# programs from /usr/bin, the systemd units, the conffile, the nettune user and its
# 0700 state directory, bash completion, what the service user may do with and
# without CAP_NET_ADMIN (the agent changes an MTU in a namespace the test made),
# then `dpkg -r` and `dpkg -P` with the TLS files the install section puts into
# /etc/nettune (the key 0640 root:nettune): nothing of the package is left behind,
# and nothing keeps the group it deleted.
. "$NETTUNE_TOP/tests/lib/common.sh"
require_root
for c in dpkg-buildpackage dh fakeroot lintian; do
        command -v "$c" >/dev/null || skip "'$c' is not installed (debhelper, dpkg-dev, fakeroot, lintian: make deps)"
done
require_cmd setpriv python3
if dpkg-query -W -f='${Status}' nettune 2>/dev/null | grep -qv 'not-installed'; then
        skip "a nettune package is already on this machine ($(dpkg-query -W -f='${Version} ${Status}' nettune)); the test installs and purges its own"
fi
getent passwd nettune >/dev/null && skip "a user 'nettune' exists without the package; purging the package would remove it"
[ -e /var/lib/nettune ] && skip "/var/lib/nettune exists without the package; purging the package would remove it"
[ -e /etc/nettune ] && skip "/etc/nettune exists without the package"

# Whatever happens: no package, user or state left behind (then the usual cleanup,
# which reads the test's exit status from $?).
purge_all() {
        local rc=$?
        dpkg -P nettune >/dev/null 2>&1
        return $rc
}
trap 'set +e; purge_all; nt_cleanup' EXIT

step "make deb"
make -s -C "$NETTUNE_TOP" BUILD="$BUILD" deb >"$T/deb.log" 2>&1 || { tail -20 "$T/deb.log"; fail "make deb failed"; }
grep -E '^deb: ' "$T/deb.log"
version=$(cat "$NETTUNE_TOP/VERSION")
deb=$BUILD/deb/nettune_${version}_$(dpkg --print-architecture).deb
check "the package is $(basename "$deb")" test -s "$deb"
check "lintian: no errors" grep -q '^deb: lintian: 0 errors' "$T/deb.log"
dpkg-deb -f "$deb" Package Version Depends | sed 's/^/  /'

step "dpkg -i"
dpkg -i "$deb" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "dpkg -i failed"; }
check "installed" sh -c "dpkg-query -W -f='\${Status}' nettune | grep -q 'install ok installed'"
dpkg -L nettune >"$T/files"
check "nettune-agent --version from /usr/bin" sh -c "/usr/bin/nettune-agent --version | grep -qx 'nettune-agent $version'"
check "nettunectl --help from /usr/bin" sh -c "/usr/bin/nettunectl --help | grep -q '^usage: nettunectl'"
for f in /usr/share/man/man8/nettune-agent.8.gz /usr/share/man/man8/nettunectl.8.gz \
         /usr/share/nettune/profiles/roce-lossless.json /usr/share/doc/nettune/copyright; do
        check "ships $f" grep -qx "$f" "$T/files"
done

step "systemd units"
unit=/lib/systemd/system/nettune-agent.service
check "agent service" test -f "$unit"
check "runs /usr/bin/nettune-agent serve" grep -qx 'ExecStart=/usr/bin/nettune-agent serve --config /etc/nettune/agent.json' "$unit"
check "as the nettune user" grep -qx 'User=nettune' "$unit"
check "with CAP_NET_ADMIN as an ambient capability" grep -q '^AmbientCapabilities=.*CAP_NET_ADMIN' "$unit"
check "and its state directory" grep -qx 'StateDirectory=nettune' "$unit"
check "drift service" grep -qx 'ExecStart=/usr/bin/nettunectl --inventory /etc/nettune/inventory.json --db /var/lib/nettune-controller/nettune.db --quiet drift' /lib/systemd/system/nettune-controller-drift.service
check "drift timer" grep -q '^OnUnitActiveSec=' /lib/systemd/system/nettune-controller-drift.timer
check "the switch-role unit, with the package's path" grep -qx \
        'ExecStart=/usr/sbin/ip vrf exec mgmt /usr/bin/nettune-agent serve --config /etc/nettune/agent.json' \
        /lib/systemd/system/nettune-agent-switch.service
check "no unit names /usr/local" sh -c "! grep -l /usr/local /lib/systemd/system/nettune*"
check "not enabled by the install (needs its TLS files first)" sh -c "! ls /etc/systemd/system/*/nettune-agent.service 2>/dev/null | grep -q ."
if command -v systemd-analyze >/dev/null; then
        check "systemd-analyze verify" systemd-analyze verify "$unit" /lib/systemd/system/nettune-controller-drift.service \
                /lib/systemd/system/nettune-controller-drift.timer /lib/systemd/system/nettune-agent-switch.service
fi

step "conffile, user, state directory"
check "/etc/nettune/agent.json is a conffile" sh -c "dpkg-query -W -f='\${Conffiles}' nettune | grep -q '^ /etc/nettune/agent.json '"
check "it names the networks whose probes are served (probe.allow)" python3 -c '
import json, sys
d = json.load(open("/etc/nettune/agent.json"))
sys.exit(0 if d["probe"]["allow"] and d["tls"]["client_ca"] == "clients-ca.crt" else 1)'
check "the nettune user is a system user" python3 -c '
import pwd, sys
u = pwd.getpwnam("nettune")
sys.exit(0 if u.pw_uid < 1000 and u.pw_dir == "/var/lib/nettune" and u.pw_shell.endswith("nologin") else 1)'
check "nettune group" getent group nettune
check "/var/lib/nettune is 0700 nettune:nettune" [ "$(stat -c '%a %U %G' /var/lib/nettune)" = "700 nettune nettune" ]

step "bash completion"
complete_of() {         # complete_of WORD...: the completions of the last word
        bash -c '. /usr/share/bash-completion/completions/$1; COMP_WORDS=("${@:2}"); COMP_CWORD=$(($# - 2)); _${1//-/_}; echo "${COMPREPLY[*]}"' _ "$@"
}
check "nettune-agent ap<TAB> -> apply" [ "$(complete_of nettune-agent nettune-agent ap)" = apply ]
check "nettune-agent probe --mo<TAB> -> --mode" [ "$(complete_of nettune-agent nettune-agent probe --mo)" = --mode ]
check "nettunectl apply --rollback-on-halt <TAB> -> wave all" [ "$(complete_of nettunectl nettunectl apply --rollback-on-halt '')" = "wave all" ]
check "nettunectl st<TAB> -> state status store" [ "$(complete_of nettunectl nettunectl st)" = "status state store" ]
check "nettune-agent se<TAB> -> serve" [ "$(complete_of nettune-agent nettune-agent se)" = serve ]

step "privileges: the service user with and without CAP_NET_ADMIN"
ns=$(netns_add pk)
nsp=$(netns_add pkp)
ifc=ka$NT_ID
veth_pair "$ns" "$ifc" "$nsp" kb$NT_ID
cat >"$T/p.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "pkg-mtu" },
  "targets": { "interfaces": ["$ifc"] }, "spec": { "mtu": 9000 },
  "verify": { "probe": "none", "settle_ms": 0 } }
JSON
chmod 0644 "$T/p.json"; chmod 0755 "$T"
# Root's CLI first: the journal it creates in /var/lib/nettune belongs to nettune.
expect_rc 0 "history as root with the packaged configuration" /usr/bin/nettune-agent --config /etc/nettune/agent.json history
check "root's journal belongs to nettune" [ "$(stat -c %U /var/lib/nettune/journal.db)" = nettune ]
as_nettune() {          # as_nettune CAPS CMD...: in $ns as user nettune with ambient CAPS ("" = none)
        local caps=$1; shift
        if [ -n "$caps" ]; then
                ip netns exec "$ns" setpriv --reuid=nettune --regid=nettune --clear-groups --inh-caps="+$caps" \
                        --ambient-caps="+$caps" --bounding-set="-all,+$caps" "$@"
        else
                ip netns exec "$ns" setpriv --reuid=nettune --regid=nettune --clear-groups --inh-caps=-all \
                        --bounding-set=-all "$@"
        fi
}
expect_rc 0 "plan as nettune without capabilities (reads only)" as_nettune "" /usr/bin/nettune-agent --config /etc/nettune/agent.json plan "$T/p.json"
rc=0; as_nettune "" /usr/bin/nettune-agent --config /etc/nettune/agent.json apply "$T/p.json" >"$T/noc.out" 2>&1 || rc=$?
cat "$T/noc.out"
check "apply as nettune without CAP_NET_ADMIN fails (exit $rc)" [ "$rc" -eq 3 ]
check "and says the kernel refused it" grep -qi 'not permitted' "$T/noc.out"
check "nothing changed" [ "$(ip -n "$ns" -o link show "$ifc" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')" = 1500 ]
expect_rc 0 "apply as nettune with CAP_NET_ADMIN, as the service runs" \
        as_nettune net_admin /usr/bin/nettune-agent --config /etc/nettune/agent.json apply "$T/p.json"
check "the MTU changed" [ "$(ip -n "$ns" -o link show "$ifc" | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')" = 9000 ]
check "the state directory holds only nettune's files" sh -c "[ -z \"\$(find /var/lib/nettune ! -user nettune)\" ]"

step "dpkg -r: programs gone, configuration and state kept"
dpkg -r nettune >"$T/remove.log" 2>&1 || { cat "$T/remove.log"; fail "dpkg -r failed"; }
check "/usr/bin/nettune-agent removed" test ! -e /usr/bin/nettune-agent
check "the conffile stays until purge" test -f /etc/nettune/agent.json
check "the journal stays until purge" test -f /var/lib/nettune/journal.db

step "dpkg -P: nothing left behind, the TLS files of the install section included"
# as getting-started.md installs them: the key readable by the service's group
for f in agent.crt clients-ca.crt; do echo test >/etc/nettune/$f; chmod 0644 /etc/nettune/$f; done
echo test >/etc/nettune/agent.key && chown root:nettune /etc/nettune/agent.key && chmod 0640 /etc/nettune/agent.key
gid=$(getent group nettune | cut -d: -f3)
dpkg -P nettune >"$T/purge.log" 2>&1 || { cat "$T/purge.log"; fail "dpkg -P failed"; }
check "no package record" sh -c "! dpkg-query -W nettune >/dev/null 2>&1 || dpkg-query -W -f='\${Status}' nettune | grep -q not-installed"
left=$(while read -r f; do if [ -e "$f" ] && [ ! -d "$f" ]; then echo "$f"; fi; done <"$T/files")
check "no file of the package is left${left:+: $left}" [ -z "$left" ]
check "no /etc/nettune" test ! -e /etc/nettune
check "no /var/lib/nettune" test ! -e /var/lib/nettune
check "no nettune user" sh -c "! getent passwd nettune"
check "no nettune group" sh -c "! getent group nettune"
check "no file left to its group id $gid in /etc or /var/lib" sh -c "[ -z \"\$(find /etc /var/lib -xdev -gid $gid 2>/dev/null)\" ]"
