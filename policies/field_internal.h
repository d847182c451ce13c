/* SPDX-License-Identifier: MIT */
/*
 * Internal to policies/: field table rows kept in files of their own
 * (field_headroom.c: cable_length, buffers), for the table in field.c.
 */
#pragma once

#include "policies/field.h"

int field_diff_cable_len(struct diff *d, const char *prefix, const struct state *want, const struct state *live);
void field_copy_cable_len(struct state *to, const struct state *from);
int field_diff_buffers(struct diff *d, const char *prefix, const struct state *want, const struct state *live);
void field_copy_buffers(struct state *to, const struct state *from);
int field_check_buffers(const struct state *s, struct field_problem *ret);
