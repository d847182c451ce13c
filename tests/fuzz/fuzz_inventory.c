/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the controller's inventory parser (controller/fleet/inventory.c):
 * the whole document, and the bytes as one node URL. Nothing may crash, leak or read
 * out of bounds; every accepted URL is https://HOST[:PORT] with no user information.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "controller/fleet/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_url(const char *url)
{
        const char *auth = url + 8, *end;

        if (strncmp(url, "https://", 8) != 0 || strnlen(url, INVENTORY_URL_MAX) >= INVENTORY_URL_MAX)
                abort();
        end = auth + strcspn(auth, "/");
        if (memchr(auth, '@', (size_t)(end - auth)) || *end || end == auth)
                abort();
}

static void parse(const char *doc, size_t len)
{
        struct inventory *inv = NULL;
        struct errbuf e = { 0 };

        if (inventory_parse_buffer(doc, len, "fuzz.json", NULL, &inv, &e) < 0)
                return;
        for (unsigned i = 0; i < inv->n_nodes; i++)
                check_url(inv->nodes[i].url);
        inventory_free(inv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const char head[] = "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[{\"name\":\"n\",\"url\":";
        char *buf;
        size_t n = 0;

        if (size > (1u << 16))
                return 0;
        buf = malloc(sizeof(head) + 2 * size + 8);
        if (!buf)
                return 0;
        memcpy(buf, data, size);
        parse(buf, size);
        /* The bytes as a JSON string for one node's url (quotes and backslashes escaped). */
        memcpy(buf, head, sizeof(head) - 1);
        n = sizeof(head) - 1;
        buf[n++] = '"';
        for (size_t i = 0; i < size; i++) {
                if (data[i] == '"' || data[i] == '\\')
                        buf[n++] = '\\';
                buf[n++] = (char)data[i];
        }
        memcpy(buf + n, "\"}]}", 4);
        parse(buf, n + 4);
        free(buf);
        return 0;
}
