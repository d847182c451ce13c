/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>

#include "common/netaddr.h"

int netaddr_parse(const char *s, const char *what, union netaddr *ret, bool *ret_loopback, struct errbuf *e)
{
        const char *colon = strrchr(s, ':');
        union netaddr a = { 0 };
        bool loopback;
        char host[128];
        unsigned long port;
        char *end;
        size_t hl;

        if (!colon)
                return errbuf_set(e, EINVAL, what, "'%s': expected ADDR:PORT", s);
        hl = (size_t)(colon - s);
        if (s[0] == '[' && hl >= 2 && s[hl - 1] == ']')
                snprintf(host, sizeof(host), "%.*s", (int)(hl - 2), s + 1);
        else
                snprintf(host, sizeof(host), "%.*s", (int)hl, s);
        port = strtoul(colon + 1, &end, 10);
        if (*end || end == colon + 1 || port > 65535)
                return errbuf_set(e, EINVAL, what, "'%s': port out of range 0-65535", s);
        if (inet_pton(AF_INET, host, &a.in4.sin_addr) == 1) {
                a.in4.sin_family = AF_INET;
                a.in4.sin_port = htons((uint16_t)port);
                loopback = (ntohl(a.in4.sin_addr.s_addr) >> 24) == 127;
        } else if (inet_pton(AF_INET6, host, &a.in6.sin6_addr) == 1) {
                a.in6.sin6_family = AF_INET6;
                a.in6.sin6_port = htons((uint16_t)port);
                loopback = IN6_IS_ADDR_LOOPBACK(&a.in6.sin6_addr);
        } else {
                return errbuf_set(e, EINVAL, what, "'%s': '%s' is not an IP address", s, host);
        }
        *ret = a;
        if (ret_loopback)
                *ret_loopback = loopback;
        return 0;
}
