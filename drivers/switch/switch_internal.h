/* SPDX-License-Identifier: MIT */
/*
 * Internal to drivers/switch/: a dialect's parts that live in files of their own.
 * switch_sonic_wd.c: SONiC's PFC watchdog (`show pfcwd config`, `config pfcwd ...`),
 * called by switch_sonic.c around its GCU patch.
 */
#pragma once

#include "drivers/switch/switch.h"

/* After the CONFIG_DB read (s->native): every port's watchdog into units. A switch without the CLI: a note. */
int sonic_wd_read(struct switch_session *s, struct state *units, struct errbuf *e);
/* Ranges, a restoration the CLI cannot keep, the poll interval against every row. */
int sonic_wd_check(const struct switch_session *s, const struct driver_change *c, struct errbuf *e);
/* The patch's part: unit u's pfcwd_sw_enable must become *ret_prios. */
bool sonic_wd_cover(const struct driver_change *c, unsigned u, uint8_t *ret_prios);
/* Does the change rewrite or delete unit u's PFC_WD row (for the unsaved-change check)? */
bool sonic_wd_touches(const struct driver_change *c, unsigned u);
/* The watchdog commands, after the patch. */
int sonic_wd_apply(struct switch_session *s, const struct driver_change *c, struct errbuf *e);

/*
 * switch_nvue_wd.c: NVUE's PFC watchdog. read: after the applied qos and interface views
 * (their texts) were read, with `nv show system -o json` for the release (kept in s->extra
 * "release"); check: what NVUE cannot express; render: its nv set/unset lines.
 */
int nvue_wd_read(struct switch_session *s, const char *qos, const char *ifs, struct state *units, struct errbuf *e);
int nvue_wd_check(struct switch_session *s, const struct driver_change *c, struct errbuf *e);
void nvue_wd_render(struct switch_cmds *cmds, const struct switch_session *s, const struct driver_change *c);

/*
 * switch_eos_wd.c: EOS's PFC watchdog: check, and the lines of one port inside its
 * interface block (render_port in switch_eos.c).
 */
int eos_wd_check(const struct switch_session *s, const struct driver_change *c, struct errbuf *e);
void eos_wd_render_port(struct switch_cmds *cmds, const struct driver_change *c, unsigned u);
