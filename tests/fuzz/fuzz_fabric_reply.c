/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the controller's parsers of the agents' fabric answers
 * (controller/fabric/fabric_reply.c): GET /v1/fabric and POST /v1/fabric/flows. Any input is
 * accepted or refused with a message; what is accepted is within the documented ranges.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "controller/fabric/fabric.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct fabric_info_reply info;
        struct fabric_flows_reply *flows = malloc(sizeof(*flows));
        struct errbuf e = { 0 };

        if (!flows)
                abort();
        if (fabric_reply_info((const char *)data, size, &info, &e) < 0) {
                if (!e.msg[0])
                        abort();
        } else if (info.max_clients < 1 || info.max_clients > 16 || info.now_ms < 1 || info.speed_mbps < 0 ||
                   strnlen(info.address, sizeof(info.address)) >= sizeof(info.address)) {
                abort();
        }
        e.msg[0] = '\0';
        if (fabric_reply_flows((const char *)data, size, flows, &e) < 0) {
                if (!e.msg[0])
                        abort();
        } else {
                if (flows->n > PROBE_FLOWS_MAX)
                        abort();
                for (unsigned i = 0; i < flows->n; i++)
                        if (flows->v[i].id > PROBE_FLOWS_ID_MAX || (flows->v[i].ok && !(flows->v[i].gbps >= 0)) ||
                            (!flows->v[i].ok && !isnan(flows->v[i].gbps)) || flows->v[i].dscp < -1 ||
                            flows->v[i].dscp > 63)
                                abort();
        }
        free(flows);
        return 0;
}
