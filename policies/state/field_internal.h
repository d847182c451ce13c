/* SPDX-License-Identifier: MIT */
/*
 * Internal to policies/: the value formatting and diff helpers of the field table.
 * They live in field_fmt.c, the bottom of the table's files: field.c and the
 * comparators in files of their own (field_headroom.c: pfc.cable_length_m and
 * buffers; field_pfc.c: pfc.watchdog and pfc.nic_stall_timeout_ms) call it.
 */
#pragma once

#include "common/util.h"
#include "policies/state/diff.h"
#include "policies/state/field.h"
#include "policies/state/state.h"

const char *fmt_u(char *buf, size_t size, unsigned long x);
const char *fmt_bool(bool b);
/* "[3,4]" of a bitmap over 0-7. */
const char *fmt_bits(char *buf, size_t size, unsigned bits);
/* prefix + printf(fmt, ...) into key (DIFF_KEY_MAX bytes). */
const char *keyf(char *key, const char *prefix, const char *fmt, ...) _printf_(3, 4);
/* An entry when from != to. */
int diff_u(struct diff *d, enum state_field f, const char *key, unsigned long from, unsigned long to);
/* A value of a sub-member the live side may not describe at all ("unset"). */
int diff_opt(struct diff *d, enum state_field f, const char *key, bool live_has, const char *from, const char *to);

/* field_pfc.c */
int field_diff_pfc_wd(struct diff *d, const char *prefix, const struct state *want, const struct state *live);
void field_copy_pfc_wd(struct state *to, const struct state *from);
struct field_problem;
int field_check_pfc_wd(const struct state *s, struct field_problem *ret);
int field_diff_nic_stall(struct diff *d, const char *prefix, const struct state *want, const struct state *live);
void field_copy_nic_stall(struct state *to, const struct state *from);

/* field_headroom.c */
int field_diff_cable_len(struct diff *d, const char *prefix, const struct state *want, const struct state *live);
void field_copy_cable_len(struct state *to, const struct state *from);
int field_diff_buffers(struct diff *d, const char *prefix, const struct state *want, const struct state *live);
void field_copy_buffers(struct state *to, const struct state *from);
int field_check_buffers(const struct state *s, struct field_problem *ret);

/* field_nccl.c */
int field_diff_nccl(struct diff *d, const char *prefix, const struct state *want, const struct state *live);
void field_copy_nccl(struct state *to, const struct state *from);
void field_merge_nccl(struct state *to, const struct state *from);
