/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the controller's parser of etcd v3 JSON gateway replies
 * (controller/store/etcd_reply.c) and of the records it reads back from the store
 * (controller/store/store_record.c): the same bytes as every kind of reply, as an
 * error body, as base64, and each decoded value of an accepted reply as a
 * rollout, wave, node, chunk of nodes, drift and leader record. Nothing may crash, leak or read
 * out of bounds, and whatever is accepted must be within the documented bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "controller/store/store_etcd_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void records(const struct etcd_kv *kv)
{
        struct rollout_rec *r = NULL;
        struct drift_scan d;
        struct store_lease l;

        if (store_json_parse_rollout(kv->value, kv->value_len, kv->key, &r, NULL) >= 0) {
                if (r->n_nodes > INVENTORY_NODES_MAX || r->n_waves > r->n_nodes + 1)
                        abort();
                /* the same value as a wave and a node of that rollout */
                if (r->n_waves && store_json_parse_wave(kv->value, kv->value_len, kv->key, r, NULL) >= 0 &&
                    r->waves[0].state >= RWAVE_STATE_MAX)
                        abort();
                if (r->n_nodes && store_json_parse_node(kv->value, kv->value_len, kv->key, r, NULL) >= 0 &&
                    (r->nodes[0].state >= RNODE_STATE_MAX || strnlen(r->nodes[0].key, STORE_KEY_MAX) >= STORE_KEY_MAX))
                        abort();
                /* ... and as its first chunk of nodes, when it keeps them so */
                if (r->n_nodes && r->chunk_nodes &&
                    store_json_parse_chunk(kv->value, kv->value_len, kv->key, 0, r, NULL) >= 0 &&
                    r->nodes[0].state >= RNODE_STATE_MAX)
                        abort();
                rollout_rec_free(r);
        }
        if (store_json_parse_drift(kv->value, kv->value_len, kv->key, &d, NULL) >= 0 &&
            (d.n_drifted > INVENTORY_NODES_MAX || d.n_nodes > INVENTORY_NODES_MAX))
                abort();
        if (store_json_parse_lease(kv->value, kv->value_len, kv->key, &l, NULL) >= 0 &&
            strnlen(l.host, sizeof(l.host)) >= sizeof(l.host))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *body = (const char *)data;
        char buf[400], *dec = NULL;
        size_t dlen;

        for (int k = 0; k < ETCD_REPLY_KIND_MAX; k++) {
                struct etcd_reply r;
                struct errbuf e = { 0 };

                if (etcd_reply_parse(k, body, size, &r, &e) < 0)
                        continue;
                if (r.n_kvs > ETCD_KVS_MAX || r.revision < 0 || r.count < 0 || r.ttl < 0 || r.id < 0)
                        abort();
                for (unsigned i = 0; i < r.n_kvs; i++) {
                        const struct etcd_kv *kv = &r.kvs[i];

                        if (!kv->key || !kv->value || strlen(kv->key) > ETCD_KEY_MAX ||
                            kv->value_len > ETCD_VALUE_MAX || kv->value[kv->value_len] != '\0' ||
                            kv->mod_rev < 0 || kv->create_rev < 0)
                                abort();
                        if (i < 4)
                                records(kv);
                }
                etcd_reply_done(&r);
        }
        if (etcd_reply_error(500, body, size, buf, sizeof(buf)) != buf || strnlen(buf, sizeof(buf)) >= sizeof(buf))
                abort();
        if (etcd_b64_decode(body, size, 65536, &dec, &dlen) >= 0) {
                char *again = etcd_b64_encode(dec, dlen), *back = NULL;
                size_t blen;

                /* what was decoded encodes and decodes back to the same bytes */
                if (!again || etcd_b64_decode(again, strlen(again), 65536, &back, &blen) < 0 || blen != dlen ||
                    memcmp(back, dec, dlen))
                        abort();
                free(back);
                free(again);
                free(dec);
        }
        return 0;
}
