/* SPDX-License-Identifier: MIT */
/*
 * Rollouts, waves, node results, drift scans and the leader record as JSON
 * documents: the values the etcd backend keeps (one key per record, so each has
 * its own mod_revision) and that `store migrate` carries over. Parsing is strict
 * (jsonv tables: unknown keys, types, ranges, string lengths), since a record
 * read back from a shared store is outside input. Pure: jansson and the library.
 *
 *   rollout  {"v":1,"id","kind","policy_name","policy_doc","args","opts":{...},"state",
 *             "created_at","updated_at","exit_code","message","n_nodes","n_waves","by"}
 *   wave     {"v":1,"idx","state","started_at","deadline","by"}
 *   node     {"v":1,"seq","name","url","wave","state","tx","exit_code","changes",
 *             "baseline_gbps","post_gbps","error","key","confirm_deadline_ms","not_after_ms",
 *             "updated_at","by"}
 *   drift    {"v":1,"id","at","nodes","drifted","unreachable","details":[{name,reached,drifted,error,report}],"by"}
 *   leader   {"v":1,"pid","host","started_at","rollout_id"}
 * "by" names the controller that wrote the record ("host:pid").
 */
#pragma once

#include "controller/store/store.h"

#define STORE_RECORD_MAX (POLICY_DOC_MAX + 65536)       /* bytes of one record */
#define STORE_BY_MAX 300

/* New JSON texts (caller frees); NULL on ENOMEM. */
char *store_record_rollout(const struct rollout_rec *r, const char *by);
char *store_record_wave(const struct rollout_rec *r, unsigned idx, const char *by);
char *store_record_node(const struct rollout_rec *r, const struct rnode *n, const char *by);
char *store_record_drift(const struct drift_scan *scan, const char *by);
char *store_record_lease(const struct store_lease *l);

/*
 * The rollout record into a new rollout_rec (nodes and waves allocated, zeroed,
 * every node's exit_code -1 and gbps NaN, to be filled by the wave and node
 * records). `where` names the record in messages.
 */
int store_record_parse_rollout(const char *text, size_t len, const char *where, struct rollout_rec **ret,
                               struct errbuf *e);
/* A wave / node record into r (its idx / seq must be in range). */
int store_record_parse_wave(const char *text, size_t len, const char *where, struct rollout_rec *r,
                            struct errbuf *e);
int store_record_parse_node(const char *text, size_t len, const char *where, struct rollout_rec *r,
                            struct errbuf *e);
/* A drift record's counts (no nodes). */
int store_record_parse_drift(const char *text, size_t len, const char *where, struct drift_scan *ret,
                             struct errbuf *e);
int store_record_parse_lease(const char *text, size_t len, const char *where, struct store_lease *ret,
                             struct errbuf *e);
