/* SPDX-License-Identifier: MIT */
/*
 * DSCP trust and the DSCP -> priority map over the DCB APP table (selector 5)
 * and, where the driver has one (kernel 6.3+), the APP trust table.
 *
 * Reading: trust comes from the trust table when the kernel reports one (an
 * empty table trusts nothing: "none"), else from the DSCP entries (mlx5 trusts
 * DSCP from the first entry on). The map is the newest entry per code point,
 * plus what the driver is known to do for a code point without an entry.
 *
 * Writing a policy: the map is exact. While the port trusts DSCP every code
 * point is programmed, those the policy does not list to priority 0 - a code
 * point without an entry keeps a driver default (mlx5 and ice: dscp >> 3), which
 * would carry unlisted traffic on a lossless priority.
 *
 * Writing a snapshot: the entries it read, exactly.
 *
 * How entries change, per kernel driver (struct dcb_quirks): new code points are
 * added first and stale ones deleted last, so the table is never empty on the
 * way (mlx5 falls back to PCP trust, ice to VLAN mode with default ETS/PFC,
 * when the last one goes). A code point whose priority changes is replaced in
 * place where the driver does it (mlx5e_dcbnl_ieee_setapp), else deleted and
 * then added: ice refuses a second entry ("already user mapped"), and bnxt's
 * delete clears the firmware's entry for that code point whatever its priority,
 * so add-then-delete would leave it unmapped in hardware.
 */
#pragma once

#include <stdint.h>

#include "common/errbuf.h"
#include "drivers/host/dcb_nl.h"
#include "policies/state/state.h"

/* What the kernel driver does with APP entries (from its source). */
struct dcb_quirks {
        const char *kernel_driver;
        bool replace_in_place;          /* a new priority for a mapped code point replaces its entry */
        unsigned dscp_max;              /* DSCP entries the driver can hold */
        /* The priority of a code point without entry, where it is the same whatever came before; -1 unknown. */
        int (*implicit)(uint8_t dscp);
};

/* The quirks of a kernel driver ("mlx5_core", "ice", ...); a safe default for others. */
const struct dcb_quirks *dcb_quirks_for(const char *kernel_driver);

/* Fill s->trust, s->dscp_prio and the APP part of s->dcb (present bits are the caller's). */
void dcb_app_read(const struct dcb_nl_ieee *cur, const struct dcb_quirks *q, struct state *s);

struct dcb_app_target {
        uint8_t map[STATE_DSCP_COUNT];  /* the entries the table must hold; STATE_DSCP_UNMAPPED = none */
        bool set_trust;                 /* write the trust table below */
        uint8_t n_trust;
        uint8_t trust[DCB_NL_TRUST_MAX];
};

/*
 * What the table must hold after applying `fields` of `desired` (a policy or a
 * snapshot). -EINVAL with a message when the request cannot be expressed on
 * this device (trust dscp without any entry, trust pcp with entries where trust
 * follows the entries, more code points than the driver holds).
 */
int dcb_app_target(const struct state *desired, uint32_t fields, const struct dcb_nl_ieee *cur,
                   const struct dcb_quirks *q, struct dcb_app_target *ret, struct errbuf *e);

struct dcb_app_step {
        uint8_t cmd;                    /* DCB_CMD_IEEE_SET or DCB_CMD_IEEE_DEL */
        uint8_t n;
        struct dcb_app apps[STATE_DSCP_COUNT];
};

#define DCB_APP_STEPS_MAX (2 * STATE_DSCP_COUNT + 2)

/* The requests that bring cur's DSCP entries to map, in order. Returns their count. */
unsigned dcb_app_plan(const struct dcb_nl_ieee *cur, const uint8_t map[STATE_DSCP_COUNT],
                      const struct dcb_quirks *q, struct dcb_app_step *ret, unsigned max);

/* Code points whose entries differ from map (0 = done). */
unsigned dcb_app_distance(const struct dcb_nl_ieee *cur, const uint8_t map[STATE_DSCP_COUNT]);

/* "26 (3 -> 5), 48 (unset -> 6)": what still differs, for messages. */
void dcb_app_describe(const struct dcb_nl_ieee *cur, const uint8_t map[STATE_DSCP_COUNT], char *buf, size_t size);
