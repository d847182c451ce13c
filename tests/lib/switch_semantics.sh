# Helpers for the switch semantics tests (tests/integration/switch-*-semantics.sh):
# source after common.sh, sshd.sh and switch_cases.sh, after switch_sim_start.
#   sim_reinit PORTS [VARIANTS]   a fresh factory switch (switchsim --init, --variant)
#   manage PORTS                  the agent configuration manages only these ports
#   raw PYEXPR                    PYEXPR over `switchsim --dump` (d = the document)
#   sim_log_since N               the commands the switch received after the N-th
#   keys FILE                     the plan/apply "changes" keys of a switchctl output, sorted
#   policy FILE NAME SPEC_JSON    a switch policy with that spec
#   apply_logged OUT SENT POLICY [ARGS]   apply; the commands the switch received in SENT

sim_reinit() { "$SIM" --dialect "$SIM_DIALECT" --state "$SIM_STATE" --init --ports "$1" ${2:+--variant "$2"}; }

manage() {
        python3 - "$T/sw/agent.json" "$1" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["switches"][0]["ports"] = sys.argv[2].split(",")
json.dump(c, open(sys.argv[1], "w"))
EOF
}

raw() { sim --dump > "$T/raw.json"; jget "$T/raw.json" "$1"; }

sim_commands() { raw 'd["commands"]'; }

# The log holds the last 200 commands; N is a count from sim_commands.
sim_log_since() {
        sim --dump > "$T/raw.json"
        python3 - "$T/raw.json" "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
n = d["commands"] - int(sys.argv[2])
for line in (d["log"][-n:] if n > 0 else []):
        print(line)
EOF
}

keys() { jget "$1" 'sorted(c["key"] for c in d.get("changes", []))'; }

policy() {
        cat > "$1" <<EOF
{ "apiVersion": "nettune/v1", "kind": "Policy", "metadata": {"name": "$2"},
  "targets": {"switches": ["sw1"]}, "spec": $3 }
EOF
}

# apply_logged OUT SENT POLICY [ARGS]: switchctl apply (must exit 0), output in OUT,
# the commands the switch received meanwhile in SENT.
apply_logged() {
        local out=$1 sent=$2 pol=$3 n0; shift 3
        n0=$(sim_commands)
        expect_rc 0 "apply $(basename "$pol")" swto "$out" apply "$pol" "$@"
        sim_log_since "$n0" > "$sent"
}
