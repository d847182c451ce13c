#!/usr/bin/env bash
# nettunectl headroom: the contract of its output (integers, the inputs used, text and
# JSON), bad input exits 2 naming the flag, and the calculator against the independent
# reference implementation: the committed table is what headroom_ref.py makes today,
# and a sample of its rows comes out of the command line as it is there.
. "$NETTUNE_TOP/tests/lib/common.sh"
require_cmd python3

REF=$NETTUNE_TOP/tests/data/headroom
H() { "$CTL" headroom "$@"; }

step "output"
H --speed-gbps 100 --cable-m 40 --mtu 9100 >"$T/text"
for k in asic speed_gbps cable_m mtu lanes lossless_mtu small_packet_pct xoff_bytes xon_bytes size_bytes; do
        check "text names $k" grep -Eq "^$k +[0-9a-z]+$" "$T/text"
done
check "default asic is spectrum2" grep -Eq '^asic +spectrum2$' "$T/text"
H --speed-gbps 400 --cable-m 100 --mtu 9100 --asic spectrum3 --output json >"$T/j"
check "json: integers and the 8-lane size (xoff + xon + port MTU, rounded to 1 KiB)" python3 - "$T/j" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert all(isinstance(j[k], int) for k in ("xoff_bytes", "xon_bytes", "size_bytes", "speed_gbps", "cable_m", "mtu"))
assert j["asic"] == "spectrum3" and j["lanes"] == 8, j
assert j["size_bytes"] == -(-(j["xoff_bytes"] + j["xon_bytes"] + 9100) // 1024) * 1024, j
PY
H --speed-gbps 100 --cable-m 12 --mtu 9000 --asic connectx --output json >"$T/cx"
check "connectx: xon is the max MTU, size whole 128-byte cells" python3 - "$T/cx" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["xon_bytes"] == 9216 and j["max_mtu"] == 9216 and j["size_bytes"] % 128 == 0, j
assert "lanes" not in j, j
PY

step "bad input exits 2 and names the flag"
bad() {
        local flag=$1; shift
        local rc=0
        H "$@" 2>"$T/err" >"$T/out" || rc=$?
        [ "$rc" -eq 2 ] || fail "headroom $* exited $rc, expected 2"
        grep -q -- "$flag" "$T/err" || fail "headroom $*: the message does not name $flag: $(cat "$T/err")"
        [ ! -s "$T/out" ] || fail "headroom $*: printed a result"
        echo "ok: headroom $* -> exit 2 naming $flag"
}
bad --speed-gbps --speed-gbps 0 --cable-m 5 --mtu 9100
bad --cable-m --speed-gbps 100 --cable-m -5 --mtu 9100
bad --cable-m --speed-gbps 100 --cable-m 3001 --mtu 9100
bad --mtu --speed-gbps 100 --cable-m 5 --mtu 67
bad --mtu --speed-gbps 100 --cable-m 5 --mtu 9217
bad --mtu --speed-gbps 100 --cable-m 5 --mtu 9979 --asic connectx --max-mtu 9978
H --speed-gbps 100 --cable-m 7 --mtu 9978 --asic connectx --max-mtu 9978 --output json >"$T/cx9978"
check "a ConnectX port at its max_mtu 9978" python3 -c "import json, sys; j = json.load(open(sys.argv[1])); assert j['mtu'] == 9978 and j['xon_bytes'] == 9978, j" "$T/cx9978"
bad --asic --speed-gbps 100 --cable-m 5 --mtu 9100 --asic tomahawk
bad --cable-m --speed-gbps 100 --cable-m 1000 --mtu 9100 --asic connectx
bad --lanes --speed-gbps 100 --cable-m 5 --mtu 9100 --lanes 3
bad --lanes --speed-gbps 100 --cable-m 5 --mtu 9100 --asic connectx --lanes 8
bad --speed-gbps --cable-m 5 --mtu 9100
bad --speed-gbps --speed-gbps 1e2 --cable-m 5 --mtu 9100

step "the reference implementation"
python3 "$REF/headroom_ref.py" >"$T/reference.tsv"
check "the committed table is what headroom_ref.py makes" cmp "$T/reference.tsv" "$REF/reference.tsv"
# Every 97th row through the command line (the unit test compares all of them).
n=0
while IFS=$'\t' read -r asic s c m lanes spp lmtu xoff xon size; do
        case $asic in '#'*) continue ;; esac
        n=$((n + 1))
        [ $((n % 97)) -eq 0 ] || continue
        args=(--asic "$asic" --speed-gbps "$s" --cable-m "$c" --mtu "$m")
        if [ "$asic" != connectx ]; then
                [ "$lanes" = 0 ] || args+=(--lanes "$lanes")
                args+=(--small-packet-pct "$spp" --lossless-mtu "$lmtu")
        fi
        got=$(H "${args[@]}" --output json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["xoff_bytes"], j["xon_bytes"], j["size_bytes"])')
        [ "$got" = "$xoff $xon $size" ] || fail "headroom ${args[*]}: $got, the reference says $xoff $xon $size"
done <"$REF/reference.tsv"
echo "ok: $((n / 97)) sampled rows of $n equal the reference"

step "--emit-policy: the pfc and buffers stanza for the port, a valid policy"
H --speed-gbps 100 --cable-m 5 --mtu 9000 --asic connectx --output json >"$T/hr.json"
H --speed-gbps 100 --cable-m 5 --mtu 9000 --asic connectx --emit-policy --priority 4 \
        --buffer-total-bytes 262144 >"$T/stanza.json"
check "priority 4 alone in buffer 1 of the computed size, the rest in buffer 0" python3 - "$T/hr.json" "$T/stanza.json" <<'PY'
import json, sys
h, s = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert s["pfc"] == {"priorities": [4], "cable_length_m": 5}, s
assert s["buffers"]["prio_to_buffer"] == [0, 0, 0, 0, 1, 0, 0, 0], s
assert s["buffers"]["buffer_size_bytes"] == [262144 - h["size_bytes"], h["size_bytes"], 0, 0, 0, 0, 0, 0], s
PY
python3 -c 'import json, sys
json.dump({"apiVersion": "nettune/v1", "kind": "Policy", "metadata": {"name": "hr"},
           "targets": {"interfaces": ["eth0"]}, "spec": json.load(open(sys.argv[1]))}, open(sys.argv[2], "w"))' \
        "$T/stanza.json" "$T/hr-policy.json"
expect_rc 0 "the stanza in a policy validates" "$AGENT" validate "$T/hr-policy.json"
H --speed-gbps 100 --cable-m 5 --mtu 9000 --emit-policy >"$T/pfc-only.json" 2>"$T/pfc-only.err"
check "without the port's total: pfc only, and why" [ "$(python3 -c 'import json,sys; print(sorted(json.load(open(sys.argv[1]))))' \
        "$T/pfc-only.json")" = "['pfc']" ]
check "the warning names --buffer-total-bytes" grep -q -- "--buffer-total-bytes" "$T/pfc-only.err"
bad --buffer-total-bytes --speed-gbps 100 --cable-m 5 --mtu 9000 --asic connectx --emit-policy --buffer-total-bytes 1000
bad --priority --speed-gbps 100 --cable-m 5 --mtu 9000 --emit-policy --priority 8
