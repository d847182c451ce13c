/* SPDX-License-Identifier: MIT */
/*
 * The lossless class: rules over the managed knobs of one place — a policy's spec,
 * the live state of a NIC or a switch port, or live state with a change applied —
 * each with a stable code (docs/policy-reference.md, "The lossless class"):
 *
 *   pfc_priority_unmapped       trust dscp and a DSCP map: a PFC priority no DSCP maps to
 *   roce_priority_lossy         the RoCE DSCP (roce_tos >> 2, else the caller's: verify.dscp,
 *                               doctor's --roce-dscp) maps to a priority without PFC
 *   ecn_queue_not_lossless      a lossless priority's traffic class (ets.priority_to_tc, else
 *                               the switches' default identity mapping) does not mark ECN
 *   host_ecn_priority_mismatch  DCQCN on a priority that is not lossless, or a lossless
 *                               priority without DCQCN (reaction and notification point)
 *   cnp_dscp_unmapped           host_ecn.cnp_dscp maps to a priority other than cnp_priority
 *   lossless_tc_no_bandwidth    ETS gives a lossless priority's class 0% under "ets"
 *
 * A rule relates fields and applies only where every one of them is present. In a
 * document (ctx.document) what a field does not list is absent: a DSCP the map
 * leaves out maps nowhere, a priority host_ecn leaves out has no DCQCN, a queue ecn
 * leaves out does not mark. In live state what a device did not describe is
 * unknown and judged by nobody, except a host NIC's DSCP map, whose unlisted code
 * points go to priority 0 once nettune programs it (state.dscp_unlisted_zero).
 *
 * Each violation names its code, the instance (a priority, a DSCP: live and merged
 * states are compared by it) and both places involved as JSON paths: "$.spec.F..."
 * for a field the document declares (ctx.declared), "F... (live: V)" for one the
 * device holds. Pure: no I/O.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "policies/state/state.h"

enum lossless_code {
        LOSSLESS_PFC_UNMAPPED,
        LOSSLESS_ROCE_LOSSY,
        LOSSLESS_ECN_QUEUE,
        LOSSLESS_HOST_ECN,
        LOSSLESS_CNP_DSCP,
        LOSSLESS_TC_BANDWIDTH,
        LOSSLESS_CODE_MAX,
};

#define LOSSLESS_BIT(c) (1u << (c))

/* The fields the rules relate (a plan reads them where the target can, to judge the change). */
#define LOSSLESS_FIELDS (STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) | \
                         STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN) | STATE_BIT(STATE_FIELD_HOST_ECN) | \
                         STATE_BIT(STATE_FIELD_ROCE_TOS))

/* Where a document lists each value of its arrays (the index in the JSON array), -1 when it does not. */
struct lossless_pos {
        int8_t pfc[STATE_PRIO_COUNT];           /* spec.pfc.priorities */
        int8_t host_ecn[STATE_PRIO_COUNT];      /* spec.host_ecn.priorities */
        int8_t ecn[STATE_TC_COUNT];             /* spec.ecn.queues */
};

struct lossless_ctx {
        bool document;                          /* a policy's own spec: unlisted means absent */
        uint32_t declared;                      /* STATE_BIT(f) of the fields the document gives */
        const struct lossless_pos *pos;         /* NULL: values counted in ascending order */
        int roce_dscp;                          /* the RoCE DSCP when the state has no roce_tos; -1 none */
        const char *roce_dscp_path;             /* where it comes from: "$.verify.dscp", "--roce-dscp" */
        uint32_t allow;                         /* LOSSLESS_BIT() of the codes waived (checks.allow) */
};

#define LOSSLESS_VIOLATIONS_MAX 48

struct lossless_violation {
        enum lossless_code code;
        char key[16];                           /* the instance within its code: "p4", "dscp26", "off3" */
        char where[80];                         /* the first path: "$.spec.pfc.priorities[0]" */
        char msg[480];                          /* "pfc_priority_unmapped: ... the second path ..." */
};

struct lossless_report {
        unsigned n;
        struct lossless_violation v[LOSSLESS_VIOLATIONS_MAX];
};

/* Every rule over s, in code order; waived codes are left out. ret is overwritten. */
void lossless_check(const struct state *s, const struct lossless_ctx *ctx, struct lossless_report *ret);

/*
 * roce_priority_lossy for one DSCP from `path` (the rule's own check, for a caller
 * that knows another RoCE DSCP: doctor's roce_tos_lossy): 1 and *ret filled when
 * the DSCP rides a priority without PFC, 0 when it does not or the rule cannot tell.
 */
int lossless_dscp_lossy(const struct state *s, const struct lossless_ctx *ctx, unsigned dscp, const char *path,
                        struct lossless_violation *ret);

/* Is the violation of this code and instance in r? */
bool lossless_has(const struct lossless_report *r, enum lossless_code code, const char *key);

/* "pfc_priority_unmapped", ...; NULL out of range. from_name: the code or -EINVAL. */
const char *lossless_code_name(enum lossless_code c);
int lossless_code_from_name(const char *name);
/* What a code guards against, one line (docs and doctor). */
const char *lossless_code_what(enum lossless_code c);
