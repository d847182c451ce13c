#!/usr/bin/env bash
# MTU change on 64 veth interfaces: nettune-agent apply (validate + plan + durable
# journal + apply + read-back, no probe) vs one `ip -batch` of the same 64 changes,
# and vs 64 separate `ip link set` processes.
#
# Paired and alternating, inside the namespace (no `ip netns exec` in the timed runs):
# each round is A(1500->9000) B(9000->1500) B(1500->9000) A(9000->1500), so every run
# is a real change, both sides make both changes, and the pairs (A9000, B9000) and
# (A1500, B1500) run back to back. Medians, quartiles, and the median of the per-pair
# ratios. Goals: apply <= 2.0 x ip -batch (the journal makes four fsyncs: its snapshot and
# its end each copied into the journal file before they count), and >= 20 x faster than
# 64 ip link set.
# Also reports the apply's peak RSS.
. "$(dirname "$0")/lib.sh"
REPS=${REPS:-15}                # rounds: 2 pairs each
PROC_REPS=${PROC_REPS:-3}
ns=$(b_netns mtu)
for i in $(seq 0 31); do
        ip -n "$ns" link add "bm$i" type veth peer name "bn$i"
done
mkdir -p "$W/state"
printf '{ "state_dir": "%s" }\n' "$W/state" > "$W/agent.json"
for m in 9000 1500; do
        cat > "$W/p$m.json" <<JSON
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": { "name": "bench-mtu" },
  "targets": { "interfaces": ["bm*", "bn*"] }, "spec": { "mtu": $m },
  "verify": { "probe": "none" } }
JSON
        : > "$W/batch$m"
        for i in $(seq 0 31); do
                echo "link set dev bm$i mtu $m" >> "$W/batch$m"
                echo "link set dev bn$i mtu $m" >> "$W/batch$m"
        done
done
# The timed loop runs in the namespace: one `ip netns exec` for all of it.
cat > "$W/loop.sh" <<EOF
. "$NETTUNE_TOP/bench/lib.sh"
A() { "$AGENT" --yes --config "$W/agent.json" apply "$W/p\$1.json" >/dev/null; }
B() { ip -batch "$W/batch\$1"; }
C() { for i in \$(seq 0 31); do ip link set dev bm\$i mtu \$1; ip link set dev bn\$i mtu \$1; done; }
t() { local s=\$(now_us); "\$@"; echo "\$1 \$2 \$((\$(now_us) - s))"; }
A 1500 >/dev/null 2>&1; B 1500      # warm up, end at 1500
for r in \$(seq $REPS); do t A 9000; t B 1500; t B 9000; t A 1500; done
for r in \$(seq $PROC_REPS); do t A 9000; t C 1500; t C 9000; t A 1500; done
EOF
ip netns exec "$ns" bash "$W/loop.sh" > "$W/times" || { echo "bench: the timed loop failed" >&2; exit 1; }
n=$(ip -n "$ns" -o link show | grep -c 'mtu 1500')
[ "$n" -ge 64 ] || { echo "bench: expected 64 interfaces at mtu 1500, found $n" >&2; exit 1; }
# Paired series: the first REPS rounds only (A against B).
head -n $((REPS * 4)) "$W/times" > "$W/ab"
a9=$(awk '$1 == "A" && $2 == 9000 {print $3}' "$W/ab") a15=$(awk '$1 == "A" && $2 == 1500 {print $3}' "$W/ab")
b9=$(awk '$1 == "B" && $2 == 9000 {print $3}' "$W/ab") b15=$(awk '$1 == "B" && $2 == 1500 {print $3}' "$W/ab")
read -r am a25 a75 _ _ <<<"$(stats $a9 $a15)"
read -r bm b25 b75 _ _ <<<"$(stats $b9 $b15)"
read -r rm r25 r75 _ _ <<<"$(stats $(pair_ratios "$a9 $a15" "$b9 $b15"))"
cm=$(stats $(awk '$1 == "C" {print $3}' "$W/times") | cut -d' ' -f1)
am_all=$(stats $(awk '$1 == "A" {print $3}' "$W/times") | cut -d' ' -f1)
# Peak RSS of one apply (a real change).
ip netns exec "$ns" /usr/bin/time -f %M -o "$W/rss" "$AGENT" --yes --config "$W/agent.json" apply "$W/p9000.json" >/dev/null
rss=$(cat "$W/rss")
pr=$(ratio "$am" "$bm")
printf '| MTU apply, 64 veth (%d pairs, ABBA, in the namespace) | %s ms [%s-%s] | ip -batch: %s ms [%s-%s] | %s | pairwise %.2f [%.2f-%.2f]; full transaction incl. durable SQLite journal (4 fsyncs: its snapshot and its end each checkpointed into the journal file) and read-back; apply peak RSS %d KiB |\n' \
        $((REPS * 2)) "$(ms "$am")" "$(ms "$a25")" "$(ms "$a75")" "$(ms "$bm")" "$(ms "$b25")" "$(ms "$b75")" "$pr" \
        "$rm" "$r25" "$r75" "$rss"
printf '| MTU apply, 64 veth (%d pairs) | %s ms | 64 x ip link set: %s ms | %s | %.0fx faster |\n' \
        $((PROC_REPS * 2)) "$(ms "$am_all")" "$(ms "$cm")" "$(ratio "$am_all" "$cm")" \
        "$(awk -v a="$am_all" -v c="$cm" 'BEGIN { print c / a }')"
goal "apply of 64 MTUs / ip -batch" "$pr" "<=" 2.0 "x"
goal "apply of 64 MTUs, times faster than 64 ip link set" "$(awk -v a="$am_all" -v c="$cm" 'BEGIN { printf "%.1f", c / a }')" ">=" 20 "x"
