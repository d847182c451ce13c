/* SPDX-License-Identifier: MIT */
/* Parse netlink hex dumps from trace files. */
#include <errno.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/nltrace.h"

/* "NAME" in tests/data/dcb/, "DIR/NAME" in tests/data/. */
static FILE *open_trace(const char *name)
{
        const char *top = getenv("NETTUNE_TOP"), *dir = strchr(name, '/') ? "" : "dcb/";
        char path[512];
        FILE *f;

        snprintf(path, sizeof(path), "%s/tests/data/%s%s", top ? top : ".", dir, name);
        f = fopen(path, "re");
        if (!f && top) {
                snprintf(path, sizeof(path), "tests/data/%s%s", dir, name);
                f = fopen(path, "re");
        }
        return f;
}

/* " | 00010  00 15 00 00 ..." -> append the bytes of the fixed 49-column byte field. */
static void hex_line(const char *line, struct nltrace_msg *m)
{
        char field[50] = { 0 }, *tok, *save = NULL;
        size_t n = strlen(line);

        if (n < 10)
                return;
        n -= 10;
        memcpy(field, line + 10, n < sizeof(field) - 1 ? n : sizeof(field) - 1);
        for (tok = strtok_r(field, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
                if (strlen(tok) != 2 || m->len >= NLTRACE_BYTES_MAX)
                        break;
                m->buf[m->len++] = (unsigned char)strtoul(tok, NULL, 16);
        }
}

static struct nltrace_msg *start(struct nltrace *t, bool request)
{
        if (t->n && t->m[t->n - 1].len == 0)
                t->n--;                 /* a block without bytes (MSG_PEEK) */
        if (t->n >= NLTRACE_MSGS_MAX)
                return NULL;
        memset(&t->m[t->n], 0, sizeof(t->m[t->n]));
        t->m[t->n].request = request;
        return &t->m[t->n++];
}

int nltrace_load(const char *name, struct nltrace *ret)
{
        struct nltrace_msg *cur = NULL;
        char line[512];
        FILE *f = open_trace(name);

        if (!f)
                return -errno;
        memset(ret, 0, sizeof(*ret));
        while (fgets(line, sizeof(line), f)) {
                if (!strncmp(line, ">>>", 3) || strstr(line, "sendto(") || strstr(line, "sendmsg("))
                        cur = start(ret, true);
                else if (!strncmp(line, "<<<", 3) || strstr(line, "recvmsg("))
                        cur = start(ret, false);
                else if (!strncmp(line, " | ", 3) && cur)
                        hex_line(line, cur);
        }
        fclose(f);
        if (ret->n && ret->m[ret->n - 1].len == 0)
                ret->n--;
        return 0;
}

static const struct nltrace_msg *nth(const struct nltrace *t, unsigned i, bool request)
{
        for (unsigned k = 0; k < t->n; k++)
                if (t->m[k].request == request && i-- == 0)
                        return &t->m[k];
        return NULL;
}

const struct nltrace_msg *nltrace_request(const struct nltrace *t, unsigned i)
{
        return nth(t, i, true);
}

const struct nltrace_msg *nltrace_reply(const struct nltrace *t, unsigned i)
{
        return nth(t, i, false);
}

bool nltrace_equal_masked(const void *a, size_t alen, const void *b, size_t blen)
{
        const unsigned char *x = a, *y = b;
        size_t off = 0;

        if (alen != blen)
                return false;
        while (off + sizeof(struct nlmsghdr) <= alen) {
                uint32_t len;

                memcpy(&len, x + off, sizeof(len));
                if (memcmp(x + off, y + off, 8) != 0)
                        return false;
                if (len < sizeof(struct nlmsghdr) || off + len > alen)
                        return memcmp(x + off + 16, y + off + 16, alen - off - 16) == 0;
                if (memcmp(x + off + 16, y + off + 16, len - 16) != 0)
                        return false;
                off += NLMSG_ALIGN(len);
        }
        return off >= alen || memcmp(x + off, y + off, alen - off) == 0;
}
