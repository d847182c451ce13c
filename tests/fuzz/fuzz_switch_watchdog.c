/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: the PFC watchdog parsers on arbitrary show output. The first byte picks one:
 * SONiC `show pfcwd config` (over a CONFIG_DB with pfcwd_sw_enable), NVUE's applied qos view
 * (the interface view and `nv show system` fixed), EOS's running-config; and the storm
 * counters: SONiC `show pfcwd stats -e`, NVUE `nv show interface PORT qos pfc-watchdog`, EOS
 * `show priority-flow-control counters watchdog | json`.
 */
#include "tests/fuzz/fuzz_switch.h"
#include "drivers/switch/switch_counters.h"

static void fuzz_switch_parse(const char *text, struct state *s, struct errbuf *e)
{
        static struct switch_config sw = { .name = "f", .n_ports = 2, .ports = { "Ethernet0", "swp1" } };
        static const char ifs[] = "{\"swp1\": {\"qos\": {\"pfc-watchdog\": {\"state\": \"enable\"}}}}";
        static const char sys[] = "{\"product-release\": \"5.19.0\"}";
        json_t *db;

        static struct switch_wd_stats st;

        switch (text[0] % 6) {
        case 3:
                switch_wd_stats_sonic(text + 1, &sw, &st, e);
                return;
        case 4:
                switch_wd_stats_nvue(text + 1, 1, &st, e);
                return;
        case 5:
                switch_wd_stats_eos(text + 1, &sw, &st, e);
                return;
        case 0:
                db = json_pack("{s:{s:{s:s}},s:{s:{s:s}}}", "PORT_QOS_MAP", "Ethernet0", "pfcwd_sw_enable", "3,4",
                               "PFC_WD", "Ethernet0", "detection_time", "200");
                switch_sonic_parse_pfcwd(text + (text[0] != 0), "fuzz", &sw, db, s, e);
                json_decref(db);
                break;
        case 1:
                switch_nvue_parse_wd(text + 1, ifs, sys, "fuzz", &sw, s, e);
                break;
        default:
                switch_eos_parse_wd(text + 1, "fuzz", &sw, s, e);
        }
}
