/* SPDX-License-Identifier: MIT */
/*
 * The "nccl-conf" driver: spec.nccl, the keys of NCCL's configuration file (agent
 * configuration nccl_conf, default /etc/nccl.conf) that set the traffic class and
 * service level of NCCL's RoCE/InfiniBand connections. NCCL builds its QPs with
 * verbs (src/transport/net_ib.cc: qpAttr.ah_attr.grh.traffic_class =
 * ncclParamIbTc(), ah_attr.sl = ncclParamIbSl()) and never asks rdma_cm, so
 * rdma_cm's default_roce_tos (spec.roce_tos) does not reach it: without
 * NCCL_IB_TC its traffic class is 0.
 *
 * The file as NCCL reads it (src/misc/param.cc setEnvFile(), called once per
 * process by initEnv()): getline() per line; a line whose first byte is '#' is
 * skipped; the trailing '\n' is cut; the name is every byte before the first '='
 * (nothing trimmed: " NCCL_IB_TC=3" names " NCCL_IB_TC"); a line without '=' is
 * skipped; the value is everything after the '=', unquoted ("\"106\"" is not a
 * number); setenv(name, value, 0) never overwrites, so the process's environment
 * beats the file and the first line of a name beats a later one. NCCL_CONF_FILE
 * (else ~/.nccl.conf) is read before /etc/nccl.conf, so it wins too. A value is
 * strtoll(value, NULL, 0) (ncclLoadParam: "0x6a" is 106, "010" is 8, "106 " is
 * 106, "abc" is 0); an empty value is NCCL's default, 0.
 *
 * What the driver writes: the first line of each declared name, changed in place
 * ("NCCL_IB_TC=106"), or a new line at the end; every other line, comment, later
 * duplicate and byte kept. The file is written whole to a temporary file beside it
 * (mode and owner of the old one; 0644 for a new one), synced and renamed over it.
 * A restore puts back each name's first line as it was read (or removes the line
 * nettune added), the missing final newline, and removes a file nettune created
 * when nothing else was written to it since.
 */
#pragma once

#include <stddef.h>

#include "drivers/driver.h"

#define NCCL_CONF_DEFAULT "/etc/nccl.conf"
#define NCCL_CONF_MAX (1u << 20)        /* a larger file is refused, not read */

/* What NCCL would read from text (len bytes) for the managed names, and each one's first line. */
int nccl_conf_parse(const char *text, size_t len, struct state_nccl *ret, struct errbuf *e);

/*
 * text (len bytes, a copy the caller frees in *ret) with `want`'s names set: the
 * names of `keys` (bits of enum state_nccl_key). want->read: each line put back as
 * want holds it (removed when want has none), and the final newline as want->eol.
 */
int nccl_conf_edit(const char *text, size_t len, const struct state_nccl *want, unsigned keys, char **ret,
                   size_t *ret_len);

extern const struct driver_ops nccl_conf_driver;
