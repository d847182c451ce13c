/* SPDX-License-Identifier: MIT */
/*
 * Internal to policies/: rule checks kept in files of their own, for the table in
 * doctor_rules.c (doctor_headroom.c: headroom_insufficient, cable_length_unset,
 * lossless_drops; doctor_watchdog.c: watchdog_missing, watchdog_flapping; doctor_locate.c:
 * fabric_suspect; doctor_burst.c: pause_burst).
 */
#pragma once

#include "policies/doctor/doctor.h"

void doctor_check_headroom(const struct doctor_rule *rule, const struct doctor_facts *f,
                           const struct doctor_params *p, struct doctor_report *r);
void doctor_check_cable_unset(const struct doctor_rule *rule, const struct doctor_facts *f,
                              const struct doctor_params *p, struct doctor_report *r);
void doctor_check_lossless_drops(const struct doctor_rule *rule, const struct doctor_facts *f,
                                 const struct doctor_params *p, struct doctor_report *r);
void doctor_check_watchdog_missing(const struct doctor_rule *rule, const struct doctor_facts *f,
                                   const struct doctor_params *p, struct doctor_report *r);
void doctor_check_watchdog_flapping(const struct doctor_rule *rule, const struct doctor_facts *f,
                                    const struct doctor_params *p, struct doctor_report *r);
void doctor_check_fabric_suspect(const struct doctor_rule *rule, const struct doctor_facts *f,
                                 const struct doctor_params *p, struct doctor_report *r);
/* What a port's watchdog or a NIC's stall timeout is, as evidence of another finding (pause_storm). */
void doctor_watchdog_evidence(struct doctor_finding *x, const struct state *st);
/* Would watchdog_missing name this port or interface? */
bool doctor_watchdog_missing_on(const struct state *st);
/* "3,4" of a bitmap over priorities, "none" for none (doctor_report.c). */
const char *doctor_prio_list(uint8_t bits, char *buf, size_t size);

/* cnp_class_mismatch (doctor_cnp.c): a NIC's CNP marking against its switch port's CNP class. */
void doctor_check_cnp_class(const struct doctor_rule *rule, const struct doctor_facts *f,
                            const struct doctor_params *p, struct doctor_report *r);

/* pause_burst (doctor_burst.c): a burst of pause the counter sampler saw, which the window's mean hides. */
void doctor_check_pause_burst(const struct doctor_rule *rule, const struct doctor_facts *f,
                              const struct doctor_params *p, struct doctor_report *r);
