/* SPDX-License-Identifier: MIT */
/*
 * The difference between a desired and a live state, as a list of entries: the
 * container and its renderings. The entries are made by the field table
 * (field.h: state_diff, diff_append), which calls this module and never the
 * other way round.
 */
#pragma once

#include <jansson.h>

#include "policies/state/state.h"

#define DIFF_KEY_MAX 128
#define DIFF_VALUE_MAX 160

struct diff_entry {
        enum state_field field;
        char key[DIFF_KEY_MAX];         /* "mtu", "dscp_to_priority.26", "ports.swp1.ecn.queue3.min_threshold_bytes" */
        char from[DIFF_VALUE_MAX];      /* live value, "unset", or "unsupported" */
        char to[DIFF_VALUE_MAX];        /* desired value, or "unset" */
};

struct diff {
        uint32_t fields;                /* STATE_BIT(f) for each field with at least one entry */
        unsigned n;
        struct diff_entry *entries;     /* owned; diff_done() frees */
};

/* One entry (the field table's comparators call this). 0 or -ENOMEM. */
int diff_add(struct diff *d, enum state_field f, const char *key, const char *from, const char *to);
void diff_done(struct diff *d);

/* desired ⊆ live: every managed field of desired holds in live. */
static inline bool diff_empty(const struct diff *d)
{
        return d->n == 0;
}

/*
 * The plan as text: one line per entry, "  mtu: 1500 -> 9000\n". "" when the
 * diff is empty. Caller frees; NULL on ENOMEM.
 */
char *diff_to_text(const struct diff *d);

/*
 * The plan as JSON: an array of {"field": "mtu", "key": "mtu", "from": "1500",
 * "to": "9000"} (values are the same strings as in the text form). New
 * reference owned by the caller (json_decref); NULL on ENOMEM.
 */
json_t *diff_to_json(const struct diff *d);

/*
 * A value of the diff (its text, "9000", "true", "[3,4]", "dscp") as JSON: an integer,
 * a boolean, a list of integers, else a string. DIFF_VALUE_STRING: none of those;
 * the others are written in JSON exactly as their text stands.
 */
enum diff_value_kind { DIFF_VALUE_STRING, DIFF_VALUE_INTEGER, DIFF_VALUE_BOOLEAN, DIFF_VALUE_INTEGERS };
enum diff_value_kind diff_value_kind(const char *text);
json_t *diff_value_json(const char *text);
