/* SPDX-License-Identifier: MIT */
/*
 * DSCP trust and the DSCP -> priority map as a DCB APP table (selector 5).
 *
 * On mlx5 the port trusts DSCP from the first DSCP APP entry on and falls back
 * to PCP when the last one is deleted, so trust=dscp means "DSCP entries exist"
 * (or, where the kernel reports one, the APP trust table lists DSCP before PCP).
 * Replacing entries therefore adds the new ones first and deletes the stale ones
 * after re-reading the table: the port never passes through an empty table, and
 * a driver that replaced an entry in place (mlx5) is not asked to delete it again.
 */
#pragma once

#include <stdint.h>

#include "dcb_nl.h"
#include "errbuf.h"
#include "state.h"

/* Fill s->trust and s->dscp_prio from the table (present bits are the caller's). */
void dcb_app_read(const struct dcb_nl_ieee *cur, struct state *s);

/*
 * The DSCP map the table must hold after applying `fields` of `desired`
 * (STATE_DSCP_UNMAPPED = no entry). -EINVAL with a message when the request
 * cannot be expressed as an APP table (trust dscp without any entry, trust pcp
 * with entries).
 */
int dcb_app_target(const struct state *desired, uint32_t fields, const struct dcb_nl_ieee *cur,
                   uint8_t ret_map[STATE_DSCP_COUNT], struct errbuf *e);

/* Entries of `map` the table lacks (to add). Returns the count written to ret. */
unsigned dcb_app_missing(const struct dcb_nl_ieee *cur, const uint8_t map[STATE_DSCP_COUNT],
                         struct dcb_app *ret, unsigned max);

/* DSCP entries of the table that `map` does not hold (to delete). */
unsigned dcb_app_stale(const struct dcb_nl_ieee *cur, const uint8_t map[STATE_DSCP_COUNT],
                       struct dcb_app *ret, unsigned max);
