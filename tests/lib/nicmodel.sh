# shellcheck shell=bash
# Helpers for tests against the NIC behaviour models (tests/nicmodel): source after common.sh.
#   nicmodel_start DEVICE...        build/nicmodel with its sysfs tree under $T/sys (bg); sets NM_SOCK, NM_CTL,
#                                   NM_ETHTOOL (the ethtool seam: NETTUNE_ETHTOOL_SOCKET); with NM_DEBUGFS
#                                   set, its debugfs files (mlx5 cc_params) under that root
#   nm_ctl COMMAND...               one control command (dump, stats, pfc, app-add, app-del, mtu, master, fail)
#   nm_wait_settled                 until no link flap of the model is pending or under way
#   nm_state                        the model's dump plus every MLNX_OFED ecn knob under $T/sys
#   ofed_ecn_tree IFACE             an MLNX_OFED ecn sysfs tree for IFACE (all knobs 0)
#   ofed_dcqcn_tree IFACE           its DCQCN parameters (roce_rp/rpg_*..., roce_np/min_time_between_cnps)
#   cc_params_tree IFACE [SKIP]     upstream mlx5_ib's debugfs cc_params under $T/debug for IFACE's PCI
#                                   function (SKIP: a parameter this kernel lacks); NM_SYS, NM_DEBUG:
#                                   other sysfs and debugfs roots
#   nm_profile PROFILE OUT GLOB [keep-host-ecn]
#                                   a shipped profile for the host interfaces GLOB only: no switch
#                                   targets, no probe (the model carries no traffic), no roce_tos;
#                                   nccl only where NM_NCCL_CONF names the test's NCCL file (its
#                                   "auto" then the profile's roce_tos), never the host's /etc/nccl.conf
#   nccl_conf_start FILE            a site's NCCL file to manage: comments, other keys, a later duplicate,
#                                   no final newline, mode 0640 (nm_state then shows its bytes and mode)
NICMODEL=$BUILD/nicmodel

nicmodel_start() {
        NM_SOCK=$T/nl.sock
        NM_CTL=$T/ctl.sock
        NM_ETHTOOL=$T/ethtool.sock
        mkdir -p "$T/sys"
        bg "$NICMODEL" serve --socket "$NM_SOCK" --control "$NM_CTL" --ethtool "$NM_ETHTOOL" --sysfs "$T/sys" \
                --log "$T/model.log" ${NM_DEBUGFS:+--debugfs "$NM_DEBUGFS"} "$@" >"$T/model.out" 2>&1
        wait_for 10 grep -qx ready "$T/model.out" || fail "the NIC model did not start: $(cat "$T/model.out")"
}

nm_ctl() { "$NICMODEL" ctl "$NM_CTL" "$@"; }

nm_wait_settled() {
        wait_for 30 sh -c "'$NICMODEL' ctl '$NM_CTL' settled | grep -qx settled" ||
                fail "the model's links did not come back: $(nm_ctl dump | grep -E 'carrier|rdma')"
}

nccl_conf_start() {
        NM_NCCL_CONF=$1
        printf '# site NCCL settings\nNCCL_DEBUG=WARN\nNCCL_IB_TC=0\n#NCCL_IB_SL=1\nNCCL_IB_TC=96\nNCCL_SOCKET_IFNAME==ens1f0' >"$1"
        chmod 0640 "$1"
}

nm_state() {
        nm_ctl dump
        [ -z "${NM_NCCL_CONF:-}" ] || { stat -c 'nccl.conf mode %a' "$NM_NCCL_CONF"; od -c "$NM_NCCL_CONF"; } 2>&1
        find "$T/sys/class/net/" -path '*/ecn/*' -type f 2>/dev/null | sort | while read -r f; do
                echo "${f#"$T"/sys/} $(cat "$f")"
        done
        [ ! -d "$T/debug" ] || find "$T/debug" -path '*/cc_params/*' -type f | sort | while read -r f; do
                echo "${f#"$T"/} $(cat "$f")"
        done
}

# The firmware's DCQCN defaults, by debugfs name, MLNX_OFED name and value: an untouched
# ConnectX-4 Lx's `mlxconfig q` (RPG_TIME_RESET_P1 300, ...); the names of
# drivers/infiniband/hw/mlx5/cong.c mlx5_ib_dbg_cc_name[] and MLNX_OFED en_sysfs.c.
DCQCN_DEFAULTS="rp_clamp_tgt_rate roce_rp/clamp_tgt_rate 0
rp_clamp_tgt_rate_ati roce_rp/clamp_tgt_rate_after_time_inc 1
rp_time_reset roce_rp/rpg_time_reset 300
rp_byte_reset roce_rp/rpg_byte_reset 32767
rp_threshold roce_rp/rpg_threshold 1
rp_max_rate roce_rp/rpg_max_rate 0
rp_ai_rate roce_rp/rpg_ai_rate 5
rp_hai_rate roce_rp/rpg_hai_rate 50
rp_min_dec_fac roce_rp/rpg_min_dec_fac 50
rp_min_rate roce_rp/rpg_min_rate 1
rp_rate_to_set_on_first_cnp roce_rp/rate_to_set_on_first_cnp 0
rp_dce_tcp_g roce_rp/dce_tcp_g 1019
rp_dce_tcp_rtt roce_rp/dce_tcp_rtt 1
rp_rate_reduce_monitor_period roce_rp/rate_reduce_monitor_period 4
rp_initial_alpha_value roce_rp/initial_alpha_value 1023
rp_gd roce_rp/rpg_gd 11
np_min_time_between_cnps roce_np/min_time_between_cnps 4"

ofed_dcqcn_tree() {
        local d=$T/sys/class/net/$1/ecn name ofed v
        while read -r name ofed v; do
                echo "$v" >"$d/$ofed"
        done <<<"$DCQCN_DEFAULTS"
}

cc_params_tree() {
        local pci d name ofed v
        pci=$(basename "$(readlink "${NM_SYS:-$T/sys}/class/net/$1/device")")
        d=${NM_DEBUG:-$T/debug}/mlx5/$pci/cc_params
        mkdir -p "$d"
        while read -r name ofed v; do
                [ "$name" = "${2:-}" ] || echo "$v" >"$d/$name"
        done <<<"$DCQCN_DEFAULTS"
        echo 48 >"$d/np_cnp_dscp"       # the CNP's, as the firmware defaults them (CNP_DSCP_P1 48, CNP_802P_PRIO_P1 6)
        echo 6 >"$d/np_cnp_prio"
        echo 0 >"$d/np_cnp_prio_mode"
        chmod 0600 "$d"/*               # mlx5_ib_init_cong_debugfs(): debugfs_create_file(..., 0600, ...)
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
        python3 - "$NETTUNE_TOP/policies/profiles/$1" "$2" "$3" "${4:-}" "${NM_NCCL_CONF:-}" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["targets"] = {"interfaces": [sys.argv[3]]}
if sys.argv[4] != "keep-host-ecn":
    p["spec"].pop("host_ecn", None)
nccl = p["spec"].pop("nccl", None)
if nccl and sys.argv[5]:                # the test's own NCCL file: "auto" is the profile's roce_tos
    if nccl.get("ib_tc") == "auto":
        nccl["ib_tc"] = p["spec"]["roce_tos"]
    p["spec"]["nccl"] = nccl
p["spec"].pop("roce_tos", None)         # the models have no rdma_cm configfs
p["verify"] = {"probe": "none"}
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
}
