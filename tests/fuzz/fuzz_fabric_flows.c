/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the agent's POST /v1/fabric/flows body (drivers/probe/probe_flows.c):
 * any input must be accepted or refused cleanly with a message; a refusal leaves *ret
 * untouched; an accepted request holds 1..PROBE_FLOWS_MAX flows with unique ids, each
 * within the documented ranges.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/probe/probe_flows.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct probe_flows *f = malloc(sizeof(*f)), *guard = malloc(sizeof(*f));
        struct errbuf e = { 0 };

        if (!f || !guard)
                abort();
        memset(f, 0x5a, sizeof(*f));
        memcpy(guard, f, sizeof(*f));
        if (probe_flows_request_parse((const char *)data, size, f, &e) < 0) {
                if (memcmp(f, guard, sizeof(*f)) != 0 || !e.msg[0])
                        abort();
        } else {
                if (f->n < 1 || f->n > PROBE_FLOWS_MAX || f->start_at_ms < 1 || f->duration_ms < 100 ||
                    f->duration_ms > 60000)
                        abort();
                for (unsigned i = 0; i < f->n; i++) {
                        const struct probe_flow *fl = &f->v[i];

                        if (fl->id > PROBE_FLOWS_ID_MAX || !fl->params.peer[0] || fl->mode >= PROBE_MODE_MAX ||
                            fl->params.streams < 1 || fl->params.streams > PROBE_STREAMS_MAX ||
                            fl->params.traffic_class < -1 || fl->params.traffic_class > 252 ||
                            strnlen(fl->params.peer, sizeof(fl->params.peer)) >= sizeof(fl->params.peer))
                                abort();
                        for (unsigned k = 0; k < i; k++)
                                if (f->v[k].id == fl->id)
                                        abort();
                }
        }
        free(f);
        free(guard);
        return 0;
}
