/* SPDX-License-Identifier: MIT */
/*
 * Internal to policies/: the JSON of the knobs a policy's "spec" and struct
 * state's JSON (state_json.c) write the same way — mtu, trust,
 * dscp_to_priority, pfc, ets, roce_tos — in one place, for rendering and for parsing.
 * ECN and host ECN differ (a policy gives one setting for a list of queues,
 * live state one per queue) and stay with their owners.
 */
#pragma once

#include "policies/json/jsonv.h"
#include "policies/state/state.h"

/* Rendering. Each function records an allocation failure in *ok and never fails otherwise. */
/* json_object_set_new() that remembers a failure (also of a NULL val) instead of returning it. */
void spec_json_set(json_t *o, const char *key, json_t *val, bool *ok);
/* The same for json_array_append_new(). */
void spec_json_append(json_t *a, json_t *val, bool *ok);
/* [i, ...] for each bit i set in bits (0-7). New reference. */
json_t *spec_json_bits(unsigned bits, bool *ok);
/* mtu, trust, dscp_to_priority, pfc (with cable_length_m), ets, buffers and roce_tos of s, those present, into o. */
void spec_json_put_common(json_t *o, const struct state *s, bool *ok);

/* STATE_BIT() of every key of object j that names a state field: what is given is managed. */
uint32_t spec_json_present(const json_t *j);

/*
 * Parsing: jsonv handlers (obj is the struct state) for the same members. The
 * ets handler takes a struct state_ets and whether the read-back only TSA
 * "vendor" is allowed (live state: yes; a policy: no).
 */
extern const char *const spec_json_trust_names[];       /* indexes are enum state_trust: pcp, dscp */
extern const char *const spec_json_trust_live_names[];  /* and "none", read back only */
int spec_json_parse_dscp_map(struct jsonv *v, const json_t *j, void *obj);
/*
 * spec_pfc.c: the "pfc" object. A policy's: priorities (required), watchdog,
 * nic_stall_timeout_ms; live state's: each of them optional, the watchdog as read
 * (its priorities, the members the device reports and which are its defaults).
 */
int spec_json_parse_pfc(struct jsonv *v, const json_t *j, void *obj);
int spec_json_parse_pfc_live(struct jsonv *v, const json_t *j, void *obj);
/* The fields a "pfc" object gives: pfc (with priorities), pfc.watchdog, pfc.nic_stall_timeout_ms. */
uint32_t spec_json_pfc_present(const json_t *pfc);
/* The watchdog and the stall timeout of s (those present) into o's "pfc" (created when missing). */
void spec_json_put_pfc_storm(json_t *o, const struct state *s, bool live, bool *ok);
/* "buffers": {"prio_to_buffer": [8], "buffer_size_bytes": [8]} (live: and "total_bytes"). */
json_t *spec_json_buffers(const struct state_buffers *b, bool *ok);
int spec_json_parse_buffers(struct jsonv *v, const json_t *j, void *obj);
int spec_json_parse_buffers_live(struct jsonv *v, const json_t *j, void *obj);
int spec_json_parse_ets(struct jsonv *v, const json_t *j, struct state_ets *ets, bool allow_vendor);

/* host_ecn.dcqcn, the same in a policy and in live state: {"rp_time_reset": 300, ...} (state_dcqcn_params[]). */
json_t *spec_json_dcqcn(const struct state_host_ecn *h, bool *ok);
/* Unknown names and values out of a parameter's range are errors at their path; sets h->dcqcn_set. */
int spec_json_parse_dcqcn(struct jsonv *v, const json_t *j, struct state_host_ecn *h);

/* spec_nccl.c: "nccl" ({"ib_tc": 106 | "auto", "ib_sl": 3}; a read adds "file", what a restore needs). */
json_t *spec_json_nccl(const struct state_nccl *n, bool *ok);
int spec_json_parse_nccl(struct jsonv *v, const json_t *j, void *obj);
int spec_json_parse_nccl_live(struct jsonv *v, const json_t *j, void *obj);

/* The table rows (obj: struct state) both kinds share as they are; mtu, trust, pfc and ets differ. */
#define SPEC_JSON_SHARED_FIELDS \
        JSONV_CUSTOM("dscp_to_priority", JSONV_OBJECT, 0, spec_json_parse_dscp_map), \
        JSONV_UINT("roce_tos", struct state, roce_tos, 0, 255)
