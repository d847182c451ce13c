/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for what doctor reads from outside the agent: the switches'
 * counter and link outputs of every dialect (NVUE text tables, the RoCE counter tree,
 * SONiC's tabulate tables, NVUE's and EOS's JSON) and the LLDP agents' answers
 * (lldpcli json0, lldptool). Any input must be taken or refused cleanly.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/host/lldp.h"
#include "drivers/switch/switch_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static struct switch_config sw = { .name = "f", .n_ports = 2, .ports = { "swp1", "Ethernet4" } };
        static struct switch_sample s;
        static struct lldp_neighbour nb[4];
        struct errbuf e;
        char *text = malloc(size + 1), buf[64];
        unsigned n;

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        memset(&s, 0, sizeof(s));
        s.n_ports = 2;
        switch_counters_nvue_qos(text, &s.port[0], &e);
        switch_counters_nvue_roce(text, &s.port[1], &e);
        switch_counters_nvue_link(text, &sw, &s, &e);
        switch_counters_sonic_status(text, &sw, &s, &e);
        switch_counters_sonic_pfc(text, &sw, &s, &e);
        switch_counters_sonic_queue(text, &sw, &s, &e);
        switch_counters_sonic_wred(text, &sw, &s, &e);
        switch_counters_sonic_pg_drop(text, &sw, &s, &e);
        switch_counters_eos(text, &sw, &s, &e);
        switch_counters_eos_pfc(text, &sw, &s, &e);
        switch_counters_eos_ecn(text, &sw, &s, &e);
        switch_counters_speed(text);
        lldp_parse_lldpcli(text, nb, 4, &n, &e);
        lldp_parse_lldptool(text, buf, sizeof(buf));
        free(text);
        return 0;
}
