/* SPDX-License-Identifier: MIT */
/*
 * Internal to policies/: rule checks kept in files of their own, for the table in
 * doctor_rules.c (doctor_headroom.c: headroom_insufficient, cable_length_unset,
 * lossless_drops).
 */
#pragma once

#include "policies/doctor.h"

void doctor_check_headroom(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r);
void doctor_check_cable_unset(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r);
void doctor_check_lossless_drops(const struct doctor_facts *f, const struct doctor_params *p,
                                 struct doctor_report *r);
