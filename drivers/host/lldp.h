/* SPDX-License-Identifier: MIT */
/*
 * LLDP neighbours of host interfaces, read only, from whichever LLDP agent runs:
 *   lldpd:  `lldpcli [-u SOCKET] -f json0 show neighbors` (every value a list, as
 *           lldpd's json0 writer prints it): the chassis name and the port id
 *           (subtype ifname or local) or, else, the port description;
 *   lldpad: `lldptool -t -n -i IF -V sysName` and `... -V portID` ("System Name
 *           TLV\n\tleaf1", "Port ID TLV\n\tIfname: swp1").
 * A switch names itself in its chassis name and its ports by ifname (Cumulus Linux
 * and SONiC run lldpd), which is what doctor's path needs: switch and port.
 */
#pragma once

#include <stddef.h>

#include "common/errbuf.h"

#define LLDP_NAME_MAX 64
#define LLDP_NEIGHBOURS_MAX 256
#define LLDP_TIMEOUT_MS 3000

struct lldp_neighbour {
        char ifname[LLDP_NAME_MAX];     /* the local interface */
        char system[LLDP_NAME_MAX];     /* the neighbour's system (chassis) name */
        char port[LLDP_NAME_MAX];       /* its port */
};

/* lldpcli's json0 into ret[0..*ret_n) (neighbours without a system name or port are left out). */
int lldp_parse_lldpcli(const char *json, struct lldp_neighbour *ret, unsigned max, unsigned *ret_n,
                       struct errbuf *e);
/* The value of lldptool's one-TLV answer into buf ("leaf1"; "Ifname: swp1" -> "swp1"); -ENOENT none. */
int lldp_parse_lldptool(const char *text, char *buf, size_t size);

/*
 * Every neighbour lldpd knows (socket NULL/"": lldpcli's default), else lldpad's for
 * each of ifnames. 0 with *ret_n (may be 0 when no agent runs or nothing is heard).
 */
int lldp_neighbours(const char *lldpd_socket, const char (*ifnames)[64], unsigned n_if,
                    struct lldp_neighbour *ret, unsigned max, unsigned *ret_n);
