#!/usr/bin/env bash
# ECN on a Linux switch: the VM lab's story (tests/vmlab/ecn-lab.sh, Debian's kernel with
# sch_ets/sch_red under qemu TCG). Every goodput of the managed bottleneck is paired with
# its unmanaged twin (the ceiling) measured right after it, in one boot. Writes the
# section "ECN on a Linux switch" to $BENCH_SECTIONS/ecn_lab.md (bench/run.sh puts it in
# bench/RESULTS.md): the story's table and nettunectl tune's trial trace; prints no
# table rows.
. "$(dirname "$0")/lib.sh"
sections=${BENCH_SECTIONS:-$W}
load=$(cut -d' ' -f1 /proc/loadavg)
# The long search: 12 trials, 3 runs per measurement (the tier's is 8 and 1).
out=$(BUILD=$BUILD VMLAB_CASES=ecn ECNLAB_TUNE=1 ECNLAB_TUNE_TRIALS=${ECNLAB_TUNE_TRIALS:-12} ECNLAB_TUNE_RUNS=${ECNLAB_TUNE_RUNS:-3} \
        VMLAB_TIMEOUT=${VMLAB_TIMEOUT:-1800} "$NETTUNE_TOP/tests/vmlab/run.sh" 2>&1)
fig=${VMLAB_CACHE:-$BUILD/vmlab}/ecn-figures.txt
f() { sed -n "s/^$1 //p" "$fig" 2>/dev/null | tail -1; }
verdict() { printf '%s\n' "$out" | grep -q "^PASS vmlab.$1\$" && echo yes || echo "**no**"; }
if [ -z "$(f too_low_ratio)" ]; then
        echo "ecn_lab: no figures: $(printf '%s\n' "$out" | grep -m1 '^SKIP\|^FAIL' || echo 'the story did not run')" >&2
        exit 1
fi
drop=$(awk -v b="$(f regression_gate_baseline_mbps)" -v p="$(f regression_gate_post_mbps)" \
        'BEGIN { if (b > 0) printf "%.0f", (1 - p / b) * 100; else print "?" }')
guest=$(printf '%s\n' "$out" | sed -n 's/^  guest ran \([0-9]*\) s.*/\1/p')
{
        echo "## ECN on a Linux switch (VM lab)"
        echo
        echo "Written by \`bench/ecn_lab.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC') (host load $load on $(nproc) cores)."
        echo "\`tests/vmlab/ecn-lab.sh\` in Debian's kernel $(ls "${VMLAB_CACHE:-$BUILD/vmlab}/kernel/lib/modules" 2>/dev/null | head -1) under qemu TCG: two ECN-capable"
        echo "cubic senders → a Linux switch (nettune-agent, role switch: tc ets + red on its ports)"
        echo "→ a receiver behind a 20 Mbit/s htb bottleneck with 60 ms of delay, 8 s per measurement."
        echo "Each goodput is paired with the same bottleneck's unmanaged twin (the ceiling),"
        echo "measured right after it; the ratio is the figure that counts (TCG rates follow the"
        echo "host's load): the median of five pairs, or, for the ≥ 0.90 check after the rollback,"
        echo "up to three pairs (a busy host only takes rate away). Rollouts are \`nettunectl apply\`"
        echo "over mTLS to the switch agent; the guest ran ${guest:-?} s, tune $(f tune_seconds) s of it."
        echo
        echo "| step | goodput | ceiling | ratio | notes |"
        echo "|---|---|---|---|---|"
        echo "| no marking qdisc | $(f start_mbps) Mbit/s | $(f start_ceiling_mbps) Mbit/s | $(f start_ratio) | the two paths agree |"
        echo "| (a) too-low ECN thresholds (3 kB / 15 kB / 100%), ungated | $(f too_low_mbps) Mbit/s | $(f too_low_ceiling_mbps) Mbit/s | $(f too_low_ratio) | $(f too_low_marks) CE marks on queue 0; ≤ 0.85 asserted: $(verdict ecn-too-low-costs-goodput) |"
        echo "| (a') doctor --probe's proposal, applied | $(f proposal_mbps) Mbit/s | $(f proposal_ceiling_mbps) Mbit/s | $(f proposal_ratio) | floor $(f doctor_floor_bytes) B = 20 Mbit/s × the probes' round trip $(f doctor_rtt_ms) ms, 10%; ≥ 0.95 asserted: $(verdict ecn-doctor-proposal-restores-goodput) |"
        echo "| (t) tune's winner, applied | $(f tuned_mbps) Mbit/s | $(f tuned_ceiling_mbps) Mbit/s | $(f tuned_ratio) | $(f tune_trials) trials, chosen min_threshold_bytes $(f tune_chosen_bytes) (max 10 ×, 10%); ≥ 0.95 asserted: $(verdict ecn-tune-restores-goodput) |"
        echo "| (c) back to too-low, gated | — | — | — | gate probe $(f regression_gate_baseline_mbps) → $(f regression_gate_post_mbps) Mbit/s (−$drop%, 15% allowed): rolled back: $(verdict ecn-regression-rolled-back) |"
        echo "| after the rollback | $(f after_rollback_mbps) Mbit/s | $(f after_rollback_ceiling_mbps) Mbit/s | $(f after_rollback_ratio) | ≥ 0.90 asserted: $(verdict ecn-goodput-after-rollback) (pairs: $(f after_rollback_pairs)) |"
        echo
        echo "\`nettunectl tune ecn --switch leaf1 --queue 0 --selector role=host --pattern incast --receiver rx"
        echo "--paired --duration-ms 6000 --max-trials ${ECNLAB_TUNE_TRIALS:-12} --runs ${ECNLAB_TUNE_RUNS:-3}\` from the seed's"
        echo "3 kB / 15 kB / 100%: the incast h1, h2 → rx through swp5 by the fabric probe, each measurement"
        echo "paired with the ceiling (marking off) right after it; the baseline's ceiling $(f tune_ceiling | tr _ ' ');"
        echo "every trial reverted, the chosen one the lowest that held: $(verdict ecn-tune-finds-thresholds)."
        echo "The tier (\`make check\`) leaves the search out: each trial is a measurement under TCG."
        echo "\`ctl-tune\` (\`make check-long\`) runs it on veth, Ctrl-C and kill -9 mid-trial included."
        echo
        echo "| trial | min_threshold_bytes | share of the ceiling | marks/s | held | ended |"
        echo "|---|---|---|---|---|---|"
        sed -n 's/^tune_trial //p' "$fig" | while read -r n min share held marks how; do
                echo "| $n | $min | $share | $marks | $held | $(echo "$how" | tr _ ' ') |"
        done
        echo
        echo "With four senders instead of two, cubic flows desynchronise and fill in for each other:"
        echo "too-low thresholds then cost little at this scale (a ratio of 1.01 was measured), which is"
        echo "why the lab uses two. The gate's probe runs on the switch itself; one local stream hardly"
        echo "queues (TCP small queues), two streams show the regression."
} > "$sections/ecn_lab.md"
