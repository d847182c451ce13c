/* SPDX-License-Identifier: MIT */
/*
 * The field table: one row per managed knob (enum state_field), saying what it is
 * called, which targets carry it, how a desired and a live value are compared,
 * how a value is copied and which rules a desired value must keep that no single
 * JSON member can express. Everything that compares fields — plan, read-back,
 * drift, restore checks and every driver's delta — goes through `diff`, so two
 * parts of nettune can never disagree on whether a knob is set.
 *
 *   field          on                   compared as (diff keys)
 *   mtu            interface, switch    mtu
 *   trust          interface, switch    trust
 *   dscp_to_priority interface, switch  dscp_to_priority.D (exact map)
 *   pfc            interface, switch    pfc.priorities
 *   ets            interface            ets.priority_to_tc, ets.tc_tsa, ets.tc_bandwidth_pct
 *                                       (bandwidth of `ets` classes only: a device may
 *                                       report any number for a strict class)
 *   ecn            switch               ecn.queueQ.{enabled,min_threshold_bytes,...}
 *                                       (the listed queues only: unlisted ones are not managed)
 *   host_ecn       interface            host_ecn.priorityP.{reaction_point,...}, cnp_*
 *   cable_length   interface, switch    pfc.cable_length_m (and dcb_device.pfc_delay, the raw
 *                                       ieee_pfc.delay, when both sides carry it)
 *   buffers        interface            buffers.prio_to_buffer, buffers.buffer_size_bytes
 *                                       (field_headroom.c)
 *   roce_tos       interface            roce_tos.DEV/P (rdma_cm), roce_tos.DEV/P.traffic_class (MLNX_OFED)
 *                                       (every RDMA port behind the interface)
 *   nccl           interface            nccl.ib_tc, nccl.ib_sl (the value NCCL reads from its file;
 *                                       a snapshot: each key's line, nccl.file, field_nccl.c)
 */
#pragma once

#include <stdbool.h>

#include "policies/state/diff.h"
#include "policies/state/state.h"

/* Which kinds of target carry a field (a policy's field reaches only those). */
#define FIELD_ON_INTERFACE (1u << 0)
#define FIELD_ON_SWITCH (1u << 1)

/* What a desired value breaks: where (relative to the field's JSON) and why. */
struct field_problem {
        char member[32];                /* "" = the field itself, else a member: "tc_bandwidth_pct" */
        int index;                      /* -1, or the element of that member */
        char msg[160];
};

struct field_ops {
        const char *name;               /* policy key and diff key prefix: "mtu", "dscp_to_priority", ... */
        unsigned on;                    /* FIELD_ON_* */
        /* Append one entry per difference of live from want (keys under `prefix`). 0 or -ENOMEM. */
        int (*diff)(struct diff *d, const char *prefix, const struct state *want, const struct state *live);
        /* Copy the field's value (not the present bit). */
        void (*copy)(struct state *to, const struct state *from);
        /* Rules of a desired value across its members; NULL = none. 0 or -EINVAL with *ret filled. */
        int (*check)(const struct state *s, struct field_problem *ret);
        /* Put a desired value over a live one as applying it would (only its listed members); NULL = copy. */
        void (*merge)(struct state *to, const struct state *from);
};

extern const struct field_ops field_table[STATE_FIELD_MAX];

/* The fields of `fields` a kind of target carries (FIELD_ON_*). */
uint32_t field_mask_on(unsigned on, uint32_t fields);

/* Copy `fields` (those present in from) into to and mark them present. */
void state_copy_fields(struct state *to, const struct state *from, uint32_t fields);
/*
 * The state a change leaves: `fields` of desired (those present) put over live as
 * applying them would — whole fields, except ecn and host_ecn, whose unlisted queues
 * and priorities stay as live has them.
 */
void state_merge(struct state *live, const struct state *desired, uint32_t fields);

/*
 * Keep only `fields` of a state read from a device: the other present bits and the
 * device detail read with them go (a host NIC's DCB detail with trust, dscp_to_priority,
 * pfc and ets; the RDMA ports with roce_tos; the qdisc root with ets and ecn).
 */
void state_keep_fields(struct state *s, uint32_t fields);

/* Check every present field of a desired state; -EINVAL with *ret_field and *ret on the first problem. */
int state_check(const struct state *s, enum state_field *ret_field, struct field_problem *ret);

/*
 * A host NIC's DCB detail beyond the fields (DCBX mode, raw APP entries, APP trust
 * table: struct state_dcb_device), when both sides carry it — a snapshot against
 * the device. Differences are filed under the first DCB field want manages.
 */
int field_diff_dcb_device(struct diff *d, const char *prefix, const struct state *want, const struct state *live);

/*
 * Field-by-field difference of a desired and a live state. Only fields the desired
 * state manages are compared; fields the live state lacks (the target cannot read
 * them) are reported as such ("unsupported"), never silently skipped.
 */
/* Compare desired against live. Returns 0 or -ENOMEM; *ret is filled on success. */
int state_diff(const struct state *desired, const struct state *live, struct diff *ret);
/*
 * Append the differences of live from desired to d, every key under prefix ("" for
 * an interface, "ports.swp1." for a switch port). 0 or -ENOMEM (d keeps what it had).
 */
int diff_append(struct diff *d, const char *prefix, const struct state *desired, const struct state *live);

/*
 * The fields of `fields` that a desired state marks optional: a target that cannot
 * reach them leaves them out instead of refusing the policy (host_ecn "optional").
 */
uint32_t field_optional(const struct state *desired, uint32_t fields);

/* Does live hold every managed field of want with the same value? (the diff is empty) */
bool state_matches(const struct state *want, const struct state *live);
