/* SPDX-License-Identifier: MIT */
/*
 * The controller's inventory (spec "Inventory"): the TLS material the controller
 * presents and trusts, and the nodes with their agent URL and labels. Validated
 * strictly: unknown keys, duplicate keys, wrong types, bad URLs and duplicate node
 * names are errors naming the file and the JSON path:
 *
 *   inventory.json: $.nodes[3].url: 'http://x' is not an https:// URL (host[:port], no query)
 *
 * Relative TLS file names are resolved against the inventory file's directory.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/errbuf.h"
#include "policies/policy.h"

#define INVENTORY_NODES_MAX 10000
#define INVENTORY_NAME_MAX 64           /* node names: [A-Za-z0-9._-], 1-63 chars */
#define INVENTORY_URL_MAX 256
#define INVENTORY_PATH_MAX 512
#define INVENTORY_DOC_MAX (16u << 20)   /* bytes: larger files are refused */

struct inventory_node {
        char name[INVENTORY_NAME_MAX];
        char url[INVENTORY_URL_MAX];            /* "https://host:port", no trailing slash */
        unsigned n_labels;
        struct policy_label labels[POLICY_LABELS_MAX];
};

struct inventory {
        char ca[INVENTORY_PATH_MAX];
        char cert[INVENTORY_PATH_MAX];
        char key[INVENTORY_PATH_MAX];
        unsigned n_nodes;
        struct inventory_node *nodes;           /* owned */
};

/*
 * Parse and validate. `name` is used in messages; `basedir` resolves relative TLS
 * paths (NULL = as given). *ret is owned by the caller (inventory_free) and written
 * only on success; on failure returns -EINVAL or -errno and fills e.
 */
int inventory_parse_buffer(const char *buf, size_t len, const char *name, const char *basedir,
                           struct inventory **ret, struct errbuf *e);
int inventory_load_file(const char *path, struct inventory **ret, struct errbuf *e);
void inventory_free(struct inventory *inv);

/* The node called `name`, or NULL. */
const struct inventory_node *inventory_find(const struct inventory *inv, const char *name);

/* Does a node carry label key=value? */
bool inventory_node_has_label(const struct inventory_node *n, const char *key, const char *value);
