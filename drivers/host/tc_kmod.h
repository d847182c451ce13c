/* SPDX-License-Identifier: MIT */
/*
 * Does this kernel have a qdisc kind (sch_ets, sch_red)? Answered read-only, without
 * creating anything (a trial qdisc on a scratch device is not acceptable on a
 * production switch), from the first of these that answers:
 *   1. SYS/module/<module> exists: loaded (or built in with a sysfs entry);
 *   2. MODULES/<release>/modules.builtin lists <module>.ko: built in;
 *   3. MODULES/<release>/modules.dep lists <module>.ko[.xz|.zst|.gz] and
 *      PROC/sys/kernel/modules_disabled is not 1: loadable, and the kernel loads it
 *      on the first RTM_NEWQDISC of that kind (net/sched/sch_api.c request_module);
 *   4. PROC/config.gz says CONFIG_...=y (built in), =m (only with 3), or not set.
 * When none of them can be read the answer is "unknown": the caller goes ahead and
 * the kernel's answer to RTM_NEWQDISC (ENOENT "Unknown qdisc") is reported instead.
 * Answers are cached per process (they do not change while the kernel runs).
 */
#pragma once

#include <stddef.h>

enum tc_kmod_answer {
        TC_KMOD_ABSENT,
        TC_KMOD_PRESENT,
        TC_KMOD_UNKNOWN,
};

/* Roots of the files read; tests point them at a tree. NULL members: "/sys", "/proc", "/lib/modules", uname -r. */
struct tc_kmod_roots {
        const char *sys;
        const char *proc;
        const char *modules;
        const char *release;
};

/* module "sch_ets", config "CONFIG_NET_SCH_ETS"; why (may be NULL) says which source answered. */
/* zlib, loaded on first use (zlib_lib.c): only config.gz needs it. */
struct lazylib;
extern struct lazylib zlib_lib;

enum tc_kmod_answer tc_kmod_have(const struct tc_kmod_roots *roots, const char *module, const char *config,
                                 char *why, size_t why_size);

/* Forget cached answers (tests). */
void tc_kmod_forget(void);
