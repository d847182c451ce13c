/* SPDX-License-Identifier: MIT */
/*
 * Live state as people read it: one member of a state's JSON (state_json.h) in a
 * line, the same in `nettune-agent state` and `nettunectl state`:
 *
 *   mtu               9000
 *   dscp_to_priority  26:3 48:6 (the rest 0)      numeric order; a full map's zeros folded
 *   pfc               3,4                         the priorities; "none"
 *   ets               tc 0,0,0,1,0,0,0,0 bw 50,50,s,s,s,s,s,s
 *                                                 priority to class; each class's share, "s" strict
 *   host_ecn          rp 3 np 3 cnp 48/6
 *   ecn               q3 150000-1500000 100%
 *   dcb_device        dcbx host+ieee (0x09), apps 26:3 48:6, trust 5,255
 *
 * Anything else is compact JSON.
 */
#pragma once

#include <jansson.h>
#include <stddef.h>

/* v (the member key of a state object) as one line into buf; returns buf. */
const char *state_text_value(const char *key, const json_t *v, char *buf, size_t size);

/* DCB_CAP_DCBX_* bits as names joined by '+' ("host+ieee", "lld-managed+cee"; "none" for 0); returns buf. */
const char *state_dcbx_names(unsigned dcbx, char *buf, size_t size);

/*
 * The ETS of a live state as it is compared and planned: a class that is not ets
 * carries no share (devices report what they like for it, mlx5 100), so its
 * tc_bandwidth_pct reads 0. Changes the "ets" member of state in place.
 */
void state_text_ets_shares(json_t *state);
