/* SPDX-License-Identifier: MIT */
/*
 * nettunectl's subcommands as the command line knows them: arguments, help,
 * every flag (common/cli.h). main.c prints help and dispatches from here; each
 * ctl_*.c parses its own flags and hands what it cannot place to ctl_bad_arg().
 * The node selector every fleet command takes (--selector, --label its alias).
 */
#include "common/log.h"
#include "controller/cmd/ctl.h"

const struct cli_flag ctl_common_flags[] = {
        { "--inventory", "FILE", "nodes, URLs and labels (default ./inventory.json)", NULL },
        { "--config", "FILE", "controller configuration (store, TLS, serve settings)", NULL },
        { "--db", "FILE", "SQLite state (default ./nettune.db), same as --store sqlite:FILE", NULL },
        { "--store", "SPEC", "sqlite:PATH or etcd://HOST:PORT[,HOST:PORT...]/PREFIX", NULL },
        { "--store-ca", "FILE", "the CA of the etcd members (mTLS)", NULL },
        { "--store-cert", "FILE", "this controller's etcd client certificate", NULL },
        { "--store-key", "FILE", "its key", NULL },
        { "--output", "FMT", "text (default) or json", NULL },
        { "--parallel", "N", "requests in flight at most (default 32)", NULL },
        { "--timeout", "S", "per request (default 60)", NULL },
        { "--quiet", NULL, "no progress lines", NULL },
        { "--yes", NULL, "do not ask before a change on a terminal", NULL },
        { "--help", NULL, "this text", NULL },
        { 0 },
};

#define SELECTOR { "--selector", "EXPR", "only nodes whose inventory labels meet EXPR: KEY=VALUE, KEY!=VALUE, " \
                   "'KEY in (A,B)', 'KEY notin (A,B)', KEY, !KEY; ',' or repeated: all of them", "--label" }

static const struct cli_flag plan_flags[] = {
        SELECTOR,
        { 0 },
};

static const struct cli_flag state_flags[] = {
        SELECTOR,
        { "--columns", "NAME,...", "these columns only: mtu, trust, dscp, pfc, cable, watchdog, ets, host_ecn, "
          "dcqcn, ecn, roce_tos, nccl_tc, buffers, policy", NULL },
        { "--wide", NULL, "every column, the DCQCN parameters and buffers too", NULL },
        { 0 },
};

static const struct cli_flag apply_flags[] = {
        SELECTOR,
        { "--canary", "N", "nodes in the first wave (default 1; 0: none)", NULL },
        { "--canary-selector", "KEY=VALUE[,...]", "the canary wave: the nodes with these labels", NULL },
        { "--wave-size", "N|P%", "nodes per later wave (default 25%)", NULL },
        { "--wave-by", "LABEL", "no wave mixes nodes of different LABEL values (racks)", NULL },
        { "--max-unavailable", "N|P%", "failed nodes a wave (per --wave-by group) may have before the rollout "
          "halts (default 0)", NULL },
        { "--skip-unreachable", NULL, "leave nodes the pre-flight cannot reach out of the rollout, by name", NULL },
        { "--max-regression-pct", "P", "this run's gate: the largest bandwidth drop a node may show", NULL },
        { "--probe-duration-ms", "MS", "this run's gate: how long each probe measures", NULL },
        { "--confirm-timeout", "S", "each node's change is pending until its wave is judged (default 120)", NULL },
        { "--rollback-on-halt", "wave|all", "what a halt rolls back: the failing wave (default) or every wave",
          NULL },
        { "--no-confirm", NULL, "leave the last wave pending ('nettunectl confirm ID' keeps it)", NULL },
        { "--fabric-neighbours", "K", "the fabric gate's ring neighbours per node", NULL },
        { "--resume", "ID", "continue an interrupted rollout (SQLite)", NULL },
        { "--wave-interval", "S", "soak S seconds after each wave before the next one (its fabric gate measures "
          "again after the soak)", NULL },
        { "--promote", "auto|manual", "manual: each wave after the first waits for 'nettunectl promote ID'", NULL },
        { "--reason", "TEXT", "why: recorded with the rollout, the OS user, the certificate's CN and the policy's "
          "sha256 (status, history)", NULL },
        { "--profile", "NAME", "roll out a vendor reference profile (policies/profiles/vendor) as the policy it "
          "is, named after it", NULL },
        { "--detach", NULL, "etcd store: submit and return ('serve' replicas run it)", NULL },
        { 0 },
};

static const struct cli_flag drift_flags[] = {
        SELECTOR,
        { "--heal", NULL, "re-apply each drifted node's intent as a rollout (no 'serve' needed)", NULL },
        { 0 },
};

static const struct cli_flag conform_flags[] = {
        { "--profile", "NAME", "the vendor reference profile (policies/profiles/vendor) or its file", NULL },
        { "--node", "NAME", "only this inventory node (repeatable)", NULL },
        SELECTOR,
        { 0 },
};

static const struct cli_flag history_flags[] = {
        { "--limit", "N", "the newest N rollouts (default 50)", NULL },
        { 0 },
};

static const struct cli_flag rollback_flags[] = {
        { "--to", "REV", "each node applies its committed revision REV again", NULL },
        { "--policy", "NAME", "each node holding layer NAME returns it to its previous version (out if it has "
          "none)", NULL },
        { "--rollout", "ID", "every node rollout ID touched, back to its revision before it", NULL },
        { "--force", NULL, "with --rollout: also nodes a later rollout changed", NULL },
        SELECTOR,
        { "--no-gate", NULL, "restore without the agents' verification probe and gate (needs --reason)", NULL },
        { "--reason", "TEXT", "why, recorded with the rollback and who asked", NULL },
        { 0 },
};

static const struct cli_flag intent_flags[] = {
        { "--node", "NAME", "only this inventory node (repeatable)", NULL },
        SELECTOR,
        { 0 },
};

static const struct cli_flag remove_flags[] = {
        SELECTOR,
        { "--canary", "N", "nodes in the first wave (default 1; 0: none)", NULL },
        { "--canary-selector", "KEY=VALUE[,...]", "the canary wave: the nodes with these labels", NULL },
        { "--wave-size", "N|P%", "nodes per later wave (default 25%)", NULL },
        { "--wave-by", "LABEL", "no wave mixes nodes of different LABEL values (racks)", NULL },
        { "--max-unavailable", "N|P%", "failed nodes a wave may have before the rollout halts (default 0)", NULL },
        { "--skip-unreachable", NULL, "leave nodes the pre-flight cannot reach out of the rollout, by name", NULL },
        { "--confirm-timeout", "S", "each node's change is pending until its wave is judged (default 120)", NULL },
        { "--rollback-on-halt", "wave|all", "what a halt rolls back: the failing wave (default) or every wave",
          NULL },
        { "--no-confirm", NULL, "leave the last wave pending ('nettunectl confirm ID' keeps it)", NULL },
        { "--resume", "ID", "continue an interrupted remove (SQLite)", NULL },
        { "--wave-interval", "S", "soak S seconds after each wave before the next one", NULL },
        { "--promote", "auto|manual", "manual: each wave after the first waits for 'nettunectl promote ID'", NULL },
        { "--reason", "TEXT", "why: recorded with the rollout (status, history)", NULL },
        { "--detach", NULL, "etcd store: submit and return ('serve' replicas run it)", NULL },
        { 0 },
};

static const struct cli_flag halt_flags[] = {
        { "--rollback-on-halt", "wave|all", "roll back the current wave (default) or every wave", NULL },
        { 0 },
};

static const struct cli_flag doctor_flags[] = {
        SELECTOR,
        { "--profile", "NAME", "a vendor reference profile: cnp_class_mismatch names the profile versions each "
          "end follows (repeatable)", NULL },
        { "--window", "S", "seconds every agent samples its counters over (default 10)", NULL },
        { "--probe", NULL, "measure every ordered pair of nodes, one at a time, then all at once", NULL },
        { "--locate", NULL, "run nettunectl locate over the nodes (racks by label 'rack'): where it is slow", NULL },
        { "--rtt-ms", "MS", "the round trip the ECN floor follows (default: the largest the probes measured)", NULL },
        { "--propose", "FILE", "write the policy that fixes what a policy can fix", NULL },
        { "--pause-storm-pps", "N", "pause frames a second that count as a storm", NULL },
        { "--watchdog-flaps", "N", "storm/restore cycles of a queue over the window that flap (default 3)", NULL },
        { "--class-share", "PCT", "the share of RoCE bytes the lossless priorities must carry (default 99)", NULL },
        { "--roce-dscp", "D", "the DSCP RoCE traffic carries (default 26)", NULL },
        { "--roce-priority", "P", "the priority RoCE traffic carries (default 3)", NULL },
        { "--save-facts", "FILE", "keep what was collected", NULL },
        { "--facts", "FILE", "judge a saved file instead of asking the agents", NULL },
        { "--svg", "FILE", "draw the lossless class along every path, findings on their hops", NULL },
        { "--node-labels", "FILE", "write each node's nettune.io/lossless and nettune.io/findings labels", NULL },
        { 0 },
};

static const struct cli_flag serve_flags[] = {
        { "--enforce", NULL, "re-apply the policy a drifted node last committed", NULL },
        { "--drift-interval", "S", "seconds between drift scans (default 60; 0: none)", NULL },
        { "--metrics", "ADDR:PORT", "serve GET /metrics here", NULL },
        { "--lease-ttl", "S", "the leader lease's time to live (default 5)", NULL },
        { 0 },
};

static const struct cli_flag store_flags[] = {
        { "--from", "SPEC", "the store to copy from", NULL },
        { "--to", "SPEC", "the store to copy into (empty)", NULL },
        { 0 },
};

static const struct cli_flag probe_flags[] = {
        { "--pattern", "ring|incast|alltoall", "who sends to whom (required)", NULL },
        SELECTOR,
        { "--duration-ms", "N", "how long every flow sends (default 2000)", NULL },
        { "--mode", "auto|verbs|tcp", "verbs or tcp; auto picks per pair (default)", NULL },
        { "--dscp", "D", "the DSCP the flows carry", NULL },
        { "--priority", "P", "the socket priority / RoCE service level", NULL },
        { "--streams", "N", "streams or QPs per flow (default 1)", NULL },
        { "--receiver", "NAME", "incast: the node every other sends to (default the first)", NULL },
        { 0 },
};

static const struct cli_flag locate_flags[] = {
        SELECTOR,
        { "--by", "LABEL", "the label naming a node's rack or leaf (default rack)", NULL },
        { "--plane", "LABEL", "the label naming a node's plane: pairs never cross planes", NULL },
        { "--duration-ms", "N", "how long every pair sends in a round (default 1000)", NULL },
        { "--slow-pct", "PCT", "a pair this far below its peers' median is slow (default 50)", NULL },
        { "--mode", "auto|verbs|tcp", "the pairs' probe (default tcp)", NULL },
        { "--dscp", "D", "the DSCP the pairs carry", NULL },
        { "--priority", "P", "the socket priority / RoCE service level", NULL },
        { 0 },
};

static const struct cli_flag headroom_flags[] = {
        { "--speed-gbps", "N", "the port's speed in Gb/s (required)", NULL },
        { "--cable-m", "N", "the cable's length in metres (required)", NULL },
        { "--mtu", "N", "the port's MTU, 68-9216 (required)", NULL },
        { "--asic", "NAME", "spectrum1, spectrum2 (default), spectrum3, spectrum4 or connectx", NULL },
        { "--lanes", "N", "Spectrum: the port's lanes (default: as SONiC names the speed)", NULL },
        { "--small-packet-pct", "N", "Spectrum: the share of small packets assumed (default 50)", NULL },
        { "--lossless-mtu", "N", "Spectrum: the largest lossless packet assumed (default 1024)", NULL },
        { "--max-mtu", "N", "connectx: the port's largest MTU (default 9216)", NULL },
        { "--svg", "FILE", "draw the size for every common speed and cable length", NULL },
        { "--node", "NAME", "with --port: the node whose port's live buffer the size is compared with (drawn with "
          "--svg)", NULL },
        { "--port", "NAME", "with --node: its interface or switch port", NULL },
        { "--emit-policy", NULL, "print the policy's pfc (and with --buffer-total-bytes its buffers) stanza", NULL },
        { "--priority", "P", "--emit-policy, --node: the lossless priority (default 3)", NULL },
        { "--buffer-total-bytes", "N", "--emit-policy: the port's total receive buffer (buffers stanza)", NULL },
        { 0 },
};

static const struct cli_flag inventory_flags[] = {
        { "--from-kubernetes", "FILE|-", "the output of 'kubectl get nodes -o json' (required)", NULL },
        { "--address-type", "TYPE", "the node address the agent is reached at (default InternalIP)", NULL },
        { "--url-template", "T", "the agent URL: {address}, {name} (default https://{address}:7440)", NULL },
        { "--agent-label", "KEY[=VALUE]", "nodes that run the agent carry it (default nettune.io/agent)", NULL },
        { "--label-prefix", "P", "take the node labels whose keys start with P (again for more)", NULL },
        { "--all-labels", NULL, "take every node label", NULL },
        { "--tls-ca", "FILE", "the inventory's tls.ca (default ca.crt)", NULL },
        { "--tls-cert", "FILE", "its tls.cert (default controller.crt)", NULL },
        { "--tls-key", "FILE", "its tls.key (default controller.key)", NULL },
        { "--out", "FILE", "write the inventory here (default: standard output)", NULL },
        { 0 },
};

static const struct cli_flag status_flags[] = {
        { "--svg", "FILE", "draw the rollout: waves, halt, rollback, confirm, each node's Gb/s", NULL },
        { 0 },
};

static const struct cli_flag tune_flags[] = {
        { "--switch", "NAME", "ecn: a switch-role node, or a switch an agent manages", NULL },
        { "--queue", "Q", "ecn: the switch queue 0-7", NULL },
        { "--ports", "A,B", "ecn on a switch-role node: the ports (default: those marking on the queue now)", NULL },
        { "--probability-pct", "P", "ecn: every trial's marking probability at max (default 10)", NULL },
        { "--param", "NAME", "dcqcn: the spec.host_ecn.dcqcn parameter", NULL },
        { "--interfaces", "GLOB", "dcqcn: the canary hosts' NICs", NULL },
        { "--canary", "N", "dcqcn: the first N selected nodes take the trials (default all)", NULL },
        SELECTOR,
        { "--pattern", "incast|alltoall|ring", "the measured traffic (default incast)", NULL },
        { "--receiver", "NAME", "incast: the node every other sends to (default the first)", NULL },
        { "--duration-ms", "N", "how long every flow sends (default 4000)", NULL },
        { "--runs", "N", "fabric probe runs per measurement, the median counts (default 3)", NULL },
        { "--mode", "auto|verbs|tcp", "the flows' probe (default auto)", NULL },
        { "--dscp", "D", "the DSCP the flows carry", NULL },
        { "--priority", "P", "the socket priority / RoCE service level", NULL },
        { "--streams", "N", "streams or QPs per flow (default 1)", NULL },
        { "--target-pct", "P", "the share of the ceiling a value must hold (default 95)", NULL },
        { "--max-trials", "N", "trials of the search at most (default 8)", NULL },
        { "--ceiling", "measure|port|GBPS", "what a share is of (default measure; dcqcn: port)", NULL },
        { "--paired", NULL, "measure the ceiling again right after every measurement", NULL },
        { "--max-pause-pps", "N", "pause frames a second a holding value keeps under (default 1000)", NULL },
        { "--max-drop-pps", "N", "drops a second a holding value keeps under (default 100)", NULL },
        { "--max-regression-pct", "P", "a trial this far below the baseline is reverted by its gate (default 25)",
          NULL },
        { "--confirm-timeout", "S", "each trial's confirm timeout (default: its measurement's bound + 30 s)", NULL },
        { "--out", "POLICY", "write the winner as a policy", NULL },
        { "--name", "NAME", "the winner policy's name", NULL },
        { "--plot", "FILE.svg", "share of the ceiling and pause rate against the value", NULL },
        { "--keep", NULL, "apply the winner once more on the scope and confirm it", NULL },
        { 0 },
};

#define EXITS_ROLLOUT "0 ok, 1 halted and rolled back, 2 invalid input (nothing changed),\n" \
                      "            3 runtime failure (nodes unreachable or failed), 4 left pending confirmation"
#define EXITS_READ "0 ok, 2 invalid input, 3 a node could not be reached or the store read"

const struct cli_command ctl_commands[] = {
        { "plan", "POLICY", "ask every selected agent for its diff",
          "Asks every node the policy selects (and --selector narrows) for its plan at\n"
          "once and prints each node's changes, field by field, and a fleet summary.\n"
          "Changes nothing.",
          plan_flags, EXITS_READ },
        { "apply", "POLICY | --profile NAME | --resume ID", "roll out in canary waves with automatic rollback",
          "Rolls POLICY out to the nodes it selects: a canary wave, then waves of\n"
          "--wave-size; each node applies it as one gated transaction, pending until its\n"
          "wave is judged; a wave over --max-unavailable halts the rollout and rolls back.\n"
          "On a terminal it asks first (--yes does not).",
          apply_flags, EXITS_ROLLOUT },
        { "status", "[ID]", "show a rollout (default: the newest)", NULL, status_flags, "0 ok, 2 no such rollout" },
        { "state", NULL, "the fleet's live knobs: one row per node, drifted cells marked",
          "Asks every selected node for its live state and committed policy at once and\n"
          "prints one row per node and interface (or switch port): MTU, trust, the DSCP\n"
          "map, PFC, cable length, watchdog (a NIC's stall guard), ETS, host ECN, ECN\n"
          "per queue in KB/MB, RoCE ToS, NCCL's traffic class and the committed\n"
          "policy@revision; --wide adds the DCQCN parameters and the buffers, --columns\n"
          "picks. A column no row has is left out. A value that differs from what the\n"
          "node last committed is marked '*' (an ECN queue's on that queue) and listed\n"
          "below the table. Changes nothing.",
          state_flags, "0 ok, 1 drift found, 2 invalid input, 3 a node could not be reached" },
        { "drift", NULL, "scan the fleet for drift (exit 1 on drift; --heal re-applies the intent)",
          "Asks every selected node to compare its live state with the policy it last\n"
          "committed and prints what differs, as 'nettune-agent drift' does; the scan is\n"
          "stored. Changes nothing, unless --heal: then every drifted node gets the\n"
          "policy the newest rollout that committed it sent, as a rollout of kind\n"
          "enforce with that rollout's waves (asked first on a terminal), run here.",
          drift_flags, "0 no drift (--heal: every drifted node healed), 1 drift found (--heal: a heal\n"
                       "            rollout halted), 2 invalid input, 3 a node could not be reached (--heal: or\n"
                       "            failed, or has no rollout to take its intent from)" },
        { "doctor", NULL, "diagnose a slow fabric fleet-wide (read only; --propose a fix)",
          "Asks every selected agent for its facts over the same window and judges the\n"
          "fleet with the rules of 'nettune-agent doctor', across nodes: a host interface\n"
          "meets the switch port it faces. --probe measures every ordered pair of nodes\n"
          "alone, then all together. --propose writes the fixing policy with a selector.",
          doctor_flags, "0 no findings, 1 findings, 2 bad input, 3 a node could not be collected" },
        { "history", NULL, "list rollouts", NULL, history_flags, "0 ok, 2 invalid input, 3 the store cannot be read" },
        { "rollback", NULL, "roll the fleet back to an earlier revision",
          "Rolls nodes back as verified transactions, recorded as a rollout; it needs to\n"
          "be told what it undoes. --rollout ID returns every node that rollout touched\n"
          "to the revision it had before it (a node already there is left alone; one a\n"
          "later rollout changed is refused unless --force) and ends consistent or exits\n"
          "non-zero. --policy NAME returns layer NAME to its previous version on every\n"
          "selected node that holds it (out where it has none). --to REV makes each\n"
          "selected node apply its committed revision REV again. Without one of them it\n"
          "changes nothing, exits 2 and lists the newest rollouts. On a terminal it asks\n"
          "first (--yes does not). --no-gate --reason TEXT, for the day the fabric is on\n"
          "fire: the agents restore without their verification probe and gate; who asked\n"
          "and why are recorded with the rollback.",
          rollback_flags, EXITS_ROLLOUT },
        { "confirm", "ID", "confirm a rollout's pending nodes by hand", NULL, NULL, EXITS_ROLLOUT },
        { "halt", "ID", "stop an interrupted or pending rollout: cancel, roll back",
          "Stops a rollout no controller drives any more: every unfinished node is asked\n"
          "what it did; pending changes are cancelled, the current wave's committed nodes\n"
          "(every wave's with --rollback-on-halt all) rolled back. On a terminal it asks\n"
          "first (--yes does not).",
          halt_flags, EXITS_ROLLOUT },
        { "serve", NULL, "run as a replica: lead, execute rollouts, scan drift",
          "One replica of a controller over a shared etcd store: the leader runs every\n"
          "submitted or interrupted rollout and scans the fleet for drift.",
          serve_flags, "0 stopped by a signal, 2 invalid configuration, 3 cannot start" },
        { "store", "migrate", "store migrate --from SPEC --to SPEC",
          "Copies every rollout (ids kept) and the newest drift scan from one store into\n"
          "an empty other, e.g. a SQLite history into etcd.",
          store_flags, "0 copied, 2 invalid input (nothing copied), 3 a store failed" },
        { "probe", NULL, "fabric probe: ring, incast or all-to-all traffic across nodes",
          "Runs traffic between the selected nodes all at once in a pattern and reports\n"
          "every flow as its receiver measured it. Changes nothing.",
          probe_flags, "0 every flow measured, 2 invalid input (nothing was run),\n"
                       "            3 a node or a flow failed (named in the report)" },
        { "locate", NULL, "find where a fabric is slow: a node's link, a rack's uplink, one path",
          "Probes pairs of the selected nodes, every node sending to the next of its rack\n"
          "and to one of the next rack at once (bounded load per node), compares each\n"
          "pair with its peers' median and names what explains the slow ones: a node's\n"
          "link or NIC, a rack's uplink, a single path, with the pairs as evidence and a\n"
          "confidence. A round that finds a slow pair is run again; only pairs slow in\n"
          "both count. Changes nothing.",
          locate_flags, "0 no suspect, 1 suspects named, 2 invalid input (nothing was run),\n"
                        "            3 a node could not be probed (named)" },
        { "tune", "ecn|dcqcn", "find ECN thresholds or a DCQCN parameter by measured canary trials",
          "Finds the value a fabric needs by trials on the scope under test alone (the\n"
          "node that manages the switch, or the canary hosts): each a gated transaction,\n"
          "pending while the fabric probe and doctor's counters measure it, then\n"
          "reverted. The search grows the value by 4 until a trial holds --target-pct of\n"
          "the ceiling, bisects to the lowest that still holds and tries it again; the\n"
          "winner is written as a policy (--out) for plan and apply.",
          tune_flags, "0 a value held the target, 1 none did (every trial reverted),\n"
                      "            2 invalid input (nothing changed), 3 stopped (its agent's confirm timer\n"
                      "            restores what was pending)" },
        { "headroom", NULL, "PFC headroom (xoff, xon, buffer size) for a port's speed, MTU, cable",
          "Computes the PFC headroom a lossless priority needs on one port: Spectrum as\n"
          "SONiC's dynamic buffer model does, ConnectX as the mlx5 driver does (the\n"
          "formulas and their sources: docs/operations.md, \"Headroom\"). Changes nothing.",
          headroom_flags, "0 computed (--node: it fits the port's buffer), 1 --node: it does not,\n"
                          "            2 invalid input (the flag is named), 3 --node: no buffers reported" },
        { "diff", "ID1 ID2", "what changed between two rollouts' policy documents, path by path",
          "Compares the documents two rollouts sent to their agents, path by path\n"
          "(PATH: FROM -> TO, 'unset' where one has none; arrays whole), after a line\n"
          "for each rollout: its policy, the document's sha256, who ran it and why.\n"
          "Reads the store only.",
          NULL, "0 the same, 1 they differ, 2 invalid input or no such rollout, 3 the store cannot be read" },
        { "pause", "ID", "no further wave of a running rollout starts until 'resume ID'",
          "Tells whoever drives rollout ID (through the store) that no further wave is\n"
          "to start: the wave in flight finishes, the next one waits. Recorded with who\n"
          "said it (status shows it). A SQLite store.",
          NULL, "0 said, 2 no such running rollout or not paused/promotable, 3 the store failed" },
        { "resume", "ID", "a paused rollout goes on with its next wave", NULL, NULL,
          "0 said, 2 no such running rollout or not paused/promotable, 3 the store failed" },
        { "promote", "ID", "start the next wave of a rollout applied with --promote manual", NULL, NULL,
          "0 said, 2 no such running rollout or not paused/promotable, 3 the store failed" },
        { "inventory", NULL, "an inventory from 'kubectl get nodes -o json'",
          "Turns Kubernetes' list of nodes into an inventory: each node that carries the\n"
          "agent's label, its name, its agent URL from an address of the chosen type, and\n"
          "the labels asked for; validated as a hand-written inventory. Talks to no API\n"
          "server: kubectl does.",
          inventory_flags, "0 written, 2 invalid input (the node is named; nothing written)" },
        { "conform", NULL, "compare the fleet with a vendor reference profile (exit 1 on a departure)",
          "Asks every selected node (--node: those nodes) to plan the profile against\n"
          "its live state and reports each departure, field by field on every host\n"
          "interface and switch port the profile targets: the live value, the profile's\n"
          "and the committed policy that owns it when nettune manages it. Lists what it\n"
          "cannot verify and why, the profile's unmanaged settings included. Changes\n"
          "nothing.",
          conform_flags, "0 the fleet conforms, 1 a departure, 2 invalid input,\n"
                         "            3 a node could not be reached or refused the profile" },
        { "intent", NULL, "every node's merged intent: each field, its value, live value and owner",
          "Asks every selected node (--node: those nodes) for its intent, the merge of\n"
          "its committed policies (layers), and prints each managed field with its\n"
          "desired value, its live value and the policy and revision that own it.\n"
          "Changes nothing.",
          intent_flags, EXITS_READ },
        { "remove", "NAME | --resume ID", "take a policy (a layer) out of the fleet in canary waves",
          "Takes the committed policy NAME out of every selected node that holds it, as a\n"
          "rollout like apply: a canary wave, then waves; each node takes the layer out\n"
          "as one transaction (the fields it owned go to the layer below, or back to\n"
          "their value before nettune), pending until its wave is judged; a wave over\n"
          "--max-unavailable halts and rolls back. Nodes that do not hold it are named\n"
          "and left out. On a terminal it asks first (--yes does not).",
          remove_flags, EXITS_ROLLOUT },
        { 0 },
};

int ctl_bad_arg(struct ctl *c, const char *arg)
{
        return cli_unknown("nettunectl", c->cmd, ctl_common_flags, arg);
}

int ctl_take_selector(struct ctl *c, int *i, struct ctl_selector *s)
{
        const char *a = c->argv[*i], *v = NULL;
        const char *names[] = { "--selector", "--label" };
        struct errbuf e = { 0 };

        for (size_t k = 0; k < ARRAY_SIZE(names) && !v; k++) {
                size_t n = strlen(names[k]);

                if (streq(a, names[k]))
                        v = *i + 1 < c->argc ? c->argv[++*i] : "";
                else if (!strncmp(a, names[k], n) && a[n] == '=')
                        v = a + n + 1;
        }
        if (!v)
                return 0;
        if (s->n >= POLICY_LABELS_MAX) {
                log_err("%s: --selector '%s': at most %d of them; nothing was changed", c->cmd->name, v,
                        POLICY_LABELS_MAX);
                return -EINVAL;
        }
        if (inventory_selector_check(v, &e) < 0) {
                log_err("%s: %s %s; nothing was changed", c->cmd->name, e.where, e.msg);
                return -EINVAL;
        }
        s->labels[s->n++] = v;
        return 1;
}

int ctl_take_options(struct ctl *c, struct ctl_selector *sel, int (*one)(void *ctx, const char *opt, const char *v),
                     void *ctx)
{
        for (int i = 0; i < c->argc; i++) {
                const char *arg = c->argv[i], *eq = strchr(arg, '='), *v;
                char opt[32];
                int r = ctl_take_selector(c, &i, sel);

                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                if (strncmp(arg, "--", 2) != 0)
                        return ctl_bad_arg(c, arg);
                snprintf(opt, sizeof(opt), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
                v = eq ? eq + 1 : i + 1 < c->argc ? c->argv[++i] : NULL;
                if (!v || (r = one(ctx, opt, v)) > 0)
                        return ctl_bad_arg(c, arg);
                if (r < 0)
                        return -EINVAL;
        }
        return 0;
}

int ctl_select_only(struct ctl *c, const struct policy *p, const struct ctl_selector *only,
                    const struct inventory_node ***ret, unsigned *ret_n)
{
        const struct inventory_node **sel = NULL;
        unsigned n = 0, k = 0;

        if (ctl_select(c, p, &sel, &n) < 0) {
                log_err("out of memory");
                return OUTCOME_RUNTIME;
        }
        for (unsigned i = 0; i < n; i++)
                if (ctl_labels_match(only->labels, only->n, sel[i]))
                        sel[k++] = sel[i];
        if (!k) {
                log_err("%s: %s matches no node of '%s'; nothing was changed", c->cmd->name,
                        p && only->n ? "the policy's selector with --selector" : p ? "the policy's selector" :
                        "--selector", c->inventory_path);
                free(sel);
                return OUTCOME_INVALID;
        }
        *ret = sel;
        *ret_n = k;
        return 0;
}

int ctl_only_nodes(struct ctl *c, const struct inventory_node **sel, unsigned *n, const char *const *names,
                   unsigned n_names)
{
        unsigned k = 0;

        for (unsigned j = 0; j < n_names; j++) {
                bool found = false;

                for (unsigned i = 0; i < *n; i++)
                        found |= streq(sel[i]->name, names[j]);
                if (!found) {
                        log_err("%s: --node '%s' is not a selected node of the inventory", c->cmd->name, names[j]);
                        return -ENOENT;
                }
        }
        if (!n_names)
                return 0;
        for (unsigned i = 0; i < *n; i++)
                for (unsigned j = 0; j < n_names; j++)
                        if (streq(sel[i]->name, names[j])) {
                                sel[k++] = sel[i];
                                break;
                        }
        *n = k;
        return 0;
}
