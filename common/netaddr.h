/* SPDX-License-Identifier: MIT */
/* "ADDR:PORT" / "[ADDR]:PORT" listen addresses into a socket address (IPv4 or IPv6 literals only). */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "common/errbuf.h"

union netaddr {
        struct sockaddr sa;
        struct sockaddr_in in4;
        struct sockaddr_in6 in6;
};

/* `what` names the setting in messages ("listen", "--metrics"). *ret_loopback may be NULL. */
int netaddr_parse(const char *s, const char *what, union netaddr *ret, bool *ret_loopback, struct errbuf *e);
