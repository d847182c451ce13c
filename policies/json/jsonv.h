/* SPDX-License-Identifier: MIT */
/*
 * Table-driven JSON validation. A table per object kind names each allowed key,
 * its type, whether it is required, its range or allowed strings, and either
 * where to store it in a C struct (offset/size) or a handler that parses it.
 * One walker (jsonv_object) applies a table while keeping a JSON-path stack, so
 * every error names the document and the exact place:
 *
 *   policy.json: $.spec.pfc.priorities[1]: priority 9 out of range 0-7
 *
 * Errors go to struct errbuf: where = "FILE: $.path" (or "$.path" without a file
 * name, or "FILE:LINE:COL" for syntax errors), msg = the text. Every function
 * returns 0 or -EINVAL (invalid document) / -errno and never prints.
 *
 * Typical use:
 *
 *   static const struct jsonv_field fields[] = {
 *           JSONV_UINT("port", struct conf, port, 1, 65535),
 *           JSONV_STR("name", struct conf, name, JSONV_REQUIRED),
 *           JSONV_CUSTOM("ports", JSONV_ARRAY, 0, parse_ports),
 *           { 0 }
 *   };
 *   struct jsonv v;
 *   jsonv_init(&v, "agent.json", e);
 *   r = jsonv_object(&v, root, fields, &conf);
 *
 * May call: common/. Called by the state model, the policy language and doctor
 * (policies/), and by drivers/, agent/ and controller/ for every document and body
 * from outside.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/errbuf.h"

#define JSONV_PATH_MAX 200
#define JSONV_DEPTH_MAX 32

enum jsonv_type {
        JSONV_ANY,
        JSONV_OBJECT,
        JSONV_ARRAY,
        JSONV_STRING,
        JSONV_INTEGER,          /* JSON integer (no fraction, no exponent) */
        JSONV_NUMBER,           /* integer or real; stored as double */
        JSONV_BOOL,
        JSONV_TYPE_MAX,
};

/* jsonv_field.flags and the array helpers' flags */
#define JSONV_REQUIRED (1u << 0)        /* the key must be present */
#define JSONV_NONEMPTY (1u << 1)        /* strings: not ""; arrays/objects: at least one member */
#define JSONV_UNIQUE (1u << 2)          /* arrays: no value twice */

struct jsonv;

struct jsonv_field {
        const char *key;
        enum jsonv_type type;
        unsigned flags;
        long long min, max;             /* JSONV_INTEGER/NUMBER: inclusive range (both 0: none) */
        const char *const *names;       /* JSONV_STRING: allowed values (NULL-terminated); stores the index */
        size_t offset;                  /* where to store into the object's struct ... */
        size_t size;                    /* ... and how wide (0: do not store) */
        const char *what;               /* noun in messages; NULL: the key */
        /* Called after the type, range and store steps; the path points at the value. */
        int (*parse)(struct jsonv *v, const json_t *j, void *obj);
};

#define JSONV_MEMBER(st, m) .offset = offsetof(st, m), .size = sizeof(((st *)0)->m)
#define JSONV_UINT(k, st, m, lo, hi) \
        { .key = (k), .type = JSONV_INTEGER, .min = (lo), .max = (hi), JSONV_MEMBER(st, m) }
#define JSONV_UINT_REQ(k, st, m, lo, hi) \
        { .key = (k), .type = JSONV_INTEGER, .flags = JSONV_REQUIRED, .min = (lo), .max = (hi), JSONV_MEMBER(st, m) }
#define JSONV_NUM(k, st, m, lo, hi) \
        { .key = (k), .type = JSONV_NUMBER, .min = (lo), .max = (hi), JSONV_MEMBER(st, m) }
#define JSONV_BOOLEAN(k, st, m) { .key = (k), .type = JSONV_BOOL, JSONV_MEMBER(st, m) }
#define JSONV_STR(k, st, m, fl) { .key = (k), .type = JSONV_STRING, .flags = (fl), JSONV_MEMBER(st, m) }
#define JSONV_ENUM(k, st, m, nm, fl) \
        { .key = (k), .type = JSONV_STRING, .flags = (fl), .names = (nm), JSONV_MEMBER(st, m) }
#define JSONV_CUSTOM(k, t, fl, fn) { .key = (k), .type = (t), .flags = (fl), .parse = (fn) }

struct jsonv_locs;

/* The walker's state: file name for messages, error buffer, path stack, caller data. */
struct jsonv {
        const char *file;               /* NULL: messages start with the path */
        struct errbuf *e;
        void *user;                     /* free for handlers (e.g. the outer struct) */
        char path[JSONV_PATH_MAX];
        size_t depth;
        size_t mark[JSONV_DEPTH_MAX];
        /* A YAML document's positions (jsonv_parse_doc): errors read "FILE:LINE:COL: $.path"; borrowed. */
        const struct jsonv_locs *locs;
        const char *hint_key;           /* the next error is about this member (an unknown key): its position */
};

void jsonv_init(struct jsonv *v, const char *file, struct errbuf *e);

/* Path stack. Keys that are not plain words print as ['key']. Never fails (truncates). */
void jsonv_push_key(struct jsonv *v, const char *key);
void jsonv_push_index(struct jsonv *v, size_t index);
void jsonv_pop(struct jsonv *v);

/* Fill the errbuf at the current path; returns -EINVAL. */
int jsonv_error(struct jsonv *v, const char *fmt, ...) _printf_(2, 3);

/* "object", "array", "string", "integer", "number", "boolean", "null". */
const char *jsonv_type_name(const json_t *j);
/* "expected T, found U" unless j has type t. */
int jsonv_check_type(struct jsonv *v, const json_t *j, enum jsonv_type t);

/*
 * Copy `s` for a message: at most 48 characters, control characters and quotes
 * escaped, "..." when cut. Returns buf.
 */
const char *jsonv_quote(const char *s, char *buf, size_t size);

/* Apply a table to an object: unknown keys, wrong types, ranges, missing required keys. */
int jsonv_object(struct jsonv *v, const json_t *j, const struct jsonv_field *fields, void *obj);

/* One of `names` (NULL-terminated): *ret = its index. "trust 'x' is not one of 'pcp', 'dscp'". */
int jsonv_enum(struct jsonv *v, const json_t *j, const char *what, const char *const *names,
               unsigned *ret);

/* An integer in [min, max]; `what` names it in messages ("priority 9 out of range 0-7"). */
int jsonv_int(struct jsonv *v, const json_t *j, const char *what, long long min, long long max,
              long long *ret);

/*
 * An array of integers in [min, max] with min_n..max_n elements (JSONV_UNIQUE:
 * "duplicate priority 3"). Writes out[0..n) and *ret_n.
 */
int jsonv_int_array(struct jsonv *v, const json_t *j, const char *what, long long min, long long max,
                    size_t min_n, size_t max_n, unsigned flags, long long *out, size_t *ret_n);

/* The same for integers 0-7 (or 0..63) collected into a bitmap. */
/*
 * An array of objects, each validated by fn(v, el, i, ctx) with its index pushed on
 * the path ("$.nodes[3]"); between min_n and max_n of them ("expected at most 16
 * switches, found 17": what/whats name one and several). Elements before a failing
 * one have been handed to fn.
 */
int jsonv_object_array(struct jsonv *v, const json_t *j, const char *what, const char *whats, size_t min_n,
                       size_t max_n, int (*fn)(struct jsonv *v, const json_t *el, size_t i, void *ctx), void *ctx);
int jsonv_bitmap_array(struct jsonv *v, const json_t *j, const char *what, unsigned max_bit,
                       unsigned flags, unsigned long long *ret_bits);

/*
 * An array of strings, each stored into out + i * stride (at most stride - 1
 * bytes), at most max_n of them, none empty, no duplicates. `check` (optional)
 * validates one string with the path at its element.
 */
int jsonv_string_array(struct jsonv *v, const json_t *j, const char *what, size_t max_n,
                       char *out, size_t stride, size_t *ret_n,
                       int (*check)(struct jsonv *v, const char *s));

/* Copy a JSON string into buf: "name 'x...' is 70 bytes, longer than 63". */
int jsonv_string(struct jsonv *v, const json_t *j, const char *what, char *buf, size_t size);

/*
 * Parse a document: JSON_REJECT_DUPLICATES, an object or array root, at most
 * `max` bytes. Syntax errors: where = "FILE:LINE:COL", msg = the parser's text
 * (duplicate keys add the path of the object). *ret is a new reference.
 */
int jsonv_parse(const char *buf, size_t len, const char *file, size_t max, json_t **ret,
                struct errbuf *e);

/*
 * A document in YAML or JSON (jsonv_yaml.c): YAML when the file name ends in .yaml
 * or .yml, or, without a .json name, when its first character opens no JSON object
 * or array. A YAML document comes with the line and column of every node
 * (*ret_locs, freed with jsonv_locs_free; NULL for JSON) for jsonv.locs; its syntax
 * errors read "FILE:LINE:COL" like JSON's.
 */
int jsonv_parse_doc(const char *buf, size_t len, const char *file, size_t max, json_t **ret,
                    struct jsonv_locs **ret_locs, struct errbuf *e);
int jsonv_parse_yaml(const char *buf, size_t len, const char *file, size_t max, json_t **ret,
                     struct jsonv_locs **ret_locs, struct errbuf *e);
bool jsonv_is_yaml(const char *file, const char *buf, size_t len);
/*
 * jsonv_locs.c: where each node stood in its text. find: the line and column (from 1)
 * of the node at path ("$.spec.mtu"), false when none was kept; new, add one (a path
 * added again keeps its first place), free. A find or an add costs the same at any
 * size (a hash index); probes: the index slots looked at so far (tests count them).
 */
bool jsonv_locs_find(const struct jsonv_locs *l, const char *path, unsigned *ret_line, unsigned *ret_col);
struct jsonv_locs *jsonv_locs_new(void);
int jsonv_locs_add(struct jsonv_locs *l, const char *path, unsigned line, unsigned col);
void jsonv_locs_free(struct jsonv_locs *l);
size_t jsonv_locs_probes(const struct jsonv_locs *l);

/* Read a whole file (O_CLOEXEC, at most max bytes) into a NUL-terminated buffer. */
int jsonv_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len, struct errbuf *e);

/* Checks on strings already read (the path points at the value). */
/* Only letters, digits and the characters in `extra`. */
int jsonv_check_chars(struct jsonv *v, const char *what, const char *s, const char *extra);
/*
 * Names as every document accepts them alike (a policy's targets, the agent
 * configuration, doctor's facts): the characters only, lengths are the caller's.
 */
int jsonv_check_ifname(struct jsonv *v, const char *s);         /* letters, digits, "-_.@+" */
int jsonv_check_switch_name(struct jsonv *v, const char *s);    /* letters, digits, "-_." */
int jsonv_check_port_name(struct jsonv *v, const char *s);      /* letters, digits, "-_./:" */
/* A name or fnmatch(3) glob of at most max_len characters, brackets balanced. */
int jsonv_check_glob(struct jsonv *v, const char *what, const char *s, size_t max_len);
/* "host:port" or "[v6addr]:port", port 1-65535. */
int jsonv_check_hostport(struct jsonv *v, const char *what, const char *s);
