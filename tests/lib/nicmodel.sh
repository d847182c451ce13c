# shellcheck shell=bash
# Helpers for tests against the NIC behaviour models (tests/nicmodel): source after common.sh.
#   nicmodel_start DEVICE...        build/nicmodel with its sysfs tree under $T/sys (bg); sets NM_SOCK, NM_CTL;
#                                   with NM_DEBUGFS set, its debugfs files (mlx5 cc_params) under that root
#   nm_ctl COMMAND...               one control command (dump, stats, pfc, app-add, app-del, mtu, fail)
#   nm_wait_settled                 until no link flap of the model is pending or under way
#   nm_state                        the model's dump plus every MLNX_OFED ecn knob under $T/sys
#   ofed_ecn_tree IFACE             an MLNX_OFED ecn sysfs tree for IFACE (all knobs 0)
#   nm_profile PROFILE OUT GLOB [keep-host-ecn]
#                                   a shipped profile for the host interfaces GLOB only: no switch
#                                   targets, no probe (the model carries no traffic), no roce_tos
NICMODEL=$BUILD/nicmodel

nicmodel_start() {
        NM_SOCK=$T/nl.sock
        NM_CTL=$T/ctl.sock
        mkdir -p "$T/sys"
        bg "$NICMODEL" serve --socket "$NM_SOCK" --control "$NM_CTL" --sysfs "$T/sys" --log "$T/model.log" \
                ${NM_DEBUGFS:+--debugfs "$NM_DEBUGFS"} "$@" >"$T/model.out" 2>&1
        wait_for 10 grep -qx ready "$T/model.out" || fail "the NIC model did not start: $(cat "$T/model.out")"
}

nm_ctl() { "$NICMODEL" ctl "$NM_CTL" "$@"; }

nm_wait_settled() {
        wait_for 30 sh -c "'$NICMODEL' ctl '$NM_CTL' settled | grep -qx settled" ||
                fail "the model's links did not come back: $(nm_ctl dump | grep -E 'carrier|rdma')"
}

nm_state() {
        nm_ctl dump
        find "$T/sys/class/net/" -path '*/ecn/*' -type f 2>/dev/null | sort | while read -r f; do
                echo "${f#"$T"/sys/} $(cat "$f")"
        done
}

ofed_ecn_tree() {
        local d=$T/sys/class/net/$1/ecn p
        for p in 0 1 2 3 4 5 6 7; do
                mkdir -p "$d/roce_rp/enable" "$d/roce_np/enable"
                echo 0 >"$d/roce_rp/enable/$p"
                echo 0 >"$d/roce_np/enable/$p"
        done
        echo 0 >"$d/roce_np/cnp_dscp"
        echo 0 >"$d/roce_np/cnp_802p_prio"
}

nm_profile() {
        python3 - "$NETTUNE_TOP/policies/profiles/$1" "$2" "$3" "${4:-}" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["targets"] = {"interfaces": [sys.argv[3]]}
if sys.argv[4] != "keep-host-ecn":
    p["spec"].pop("host_ecn", None)
p["spec"].pop("roce_tos", None)         # the models have no rdma_cm configfs
p["verify"] = {"probe": "none"}
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
}
