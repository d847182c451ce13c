/* SPDX-License-Identifier: MIT */
/*
 * SONiC's buffer manager as the switch shows it in APPL_DB: what buffermgrd makes
 * of CONFIG_DB's BUFFER_PG, CABLE_LENGTH, PORT speed and mtu.
 *
 *   traditional  BUFFER_PG|port|pgs as configured (buffermgrd looked its profile up
 *                in pg_profile_lookup.ini when the template rendered it)
 *   dynamic      a lossless BUFFER_PG with profile NULL gets the headroom computed
 *                for the port (sonic-swss cfgmgr/buffermgrdyn.cpp
 *                @ b20a59691baca9ff6e4fbe46a7cd8223a3419117: no profile while speed
 *                or cable length is missing, lossless PGs removed for "0m", the
 *                profile named by getDynamicProfileName(): pg_lossless_<speed>_<cable>
 *                [_mtu<mtu>]_profile) by the Mellanox plugin
 *                cfgmgr/buffer_headroom_mellanox.lua @ b20a5969 with
 *                MELLANOX-SPECTRUM-2's ASIC_TABLE row (sonic-buildimage
 *                platform/mellanox/asic_table.j2: cell 144, pipeline latency 19 KiB,
 *                mac/phy delay 0.8 KiB, peer response 3.8 KiB) and CONFIG_DB
 *                LOSSLESS_TRAFFIC_PATTERN (buffers_config.j2: mtu 1024, small packets
 *                50%); 4 lanes, no gearbox, no shared headroom pool.
 *
 * Read with `sonic-db-cli APPL_DB hgetall "BUFFER_PG_TABLE:Ethernet0:3-4"` and
 * `... "BUFFER_PROFILE_TABLE:<name>"` (APPL_DB keys use ':').
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/switch/switch.h"
#include "tests/switchsim/sim.h"

static const char *cfg(const json_t *db, const char *table, const char *key, const char *f)
{
        return json_string_value(json_object_get(json_object_get(json_object_get(db, table), key), f));
}

static double num(const char *s, double dflt)
{
        return s ? strtod(s, NULL) : dflt;
}

/* The Lua's numbers, in its order (Lua 5.1: every number a double). */
static void lua_headroom(double port_speed, double cable_length, double port_mtu, double lossless_mtu, double spp,
                         double *xon, double *xoff, double *size)
{
        static const double pause_quanta[][2] = {
                { 800000, 905 }, { 400000, 905 }, { 200000, 453 }, { 100000, 394 }, { 50000, 147 },
                { 40000, 118 }, { 25000, 80 }, { 10000, 67 }, { 1000, 2 }, { 100, 1 },
        };
        double cell_size = 144, pipeline_latency = 19 * 1024, mac_phy_delay = 0.8 * 1024;
        double peer_response_time = 3.8 * 1024, wcf, sppb, occupancy, bytes_on_cable, propagation_delay, full;

        for (size_t i = 0; i < sizeof(pause_quanta) / sizeof(pause_quanta[0]); i++)
                if (pause_quanta[i][0] == port_speed)
                        peer_response_time = pause_quanta[i][1] * 512 / 8;
        wcf = cell_size > 2 * 64 ? cell_size / 64 : (2 * cell_size) / (1 + cell_size);
        wcf = ceil(wcf);
        sppb = 100 * 64 / ((spp * 64 + (100 - spp) * lossless_mtu) / 100);
        occupancy = (100 - sppb + sppb * wcf) / 100;
        bytes_on_cable = 2 * cable_length * port_speed * 1000000000 / 198000000 / (8 * 1000);
        propagation_delay = port_mtu + bytes_on_cable + mac_phy_delay + peer_response_time;
        *xoff = ceil((lossless_mtu + propagation_delay * occupancy) / 1024) * 1024;
        full = ceil((lossless_mtu + propagation_delay * wcf) / 1024) * 1024;
        if (spp != 100 && *xoff + 2048 < full)
                *xoff += 2048;
        *xon = ceil(pipeline_latency / 1024) * 1024;
        *size = ceil((*xoff + *xon) / 1024) * 1024;
}

static const char *cable_of(const json_t *db, const char *port)
{
        void *it = json_object_iter(json_object_get(db, "CABLE_LENGTH"));

        return it ? json_string_value(json_object_get(json_object_iter_value(it), port)) : NULL;
}

/* The dynamic profile of one port, added to profiles; its name into name; false when buffermgrd has none. */
static bool dynamic_profile(const json_t *db, const char *port, json_t *profiles, char *name, size_t size)
{
        const char *speed = cfg(db, "PORT", port, "speed"), *mtu = cfg(db, "PORT", port, "mtu");
        const char *cable = cable_of(db, port);
        double xon, xoff, hr;

        if (!speed || !cable || !strcmp(cable, "0m"))
                return false;
        if (mtu && strcmp(mtu, "9100"))
                snprintf(name, size, "pg_lossless_%s_%s_mtu%s_profile", speed, cable, mtu);
        else
                snprintf(name, size, "pg_lossless_%s_%s_profile", speed, cable);
        lua_headroom(num(speed, 0), num(cable, 0), num(mtu, 9100),
                     num(cfg(db, "LOSSLESS_TRAFFIC_PATTERN", "AZURE", "mtu"), 1024),
                     num(cfg(db, "LOSSLESS_TRAFFIC_PATTERN", "AZURE", "small_packet_percentage"), 50), &xon, &xoff, &hr);
        json_object_set_new(profiles, name, json_pack("{s:s,s:s,s:I,s:I,s:I}", "pool", "ingress_lossless_pool",
                                                      "dynamic_th", "0", "xon", (json_int_t)xon, "xoff",
                                                      (json_int_t)xoff, "size", (json_int_t)hr));
        return true;
}

/* {"BUFFER_PG_TABLE": {"Ethernet0:3-4": {...}}, "BUFFER_PROFILE_TABLE": {...}} as buffermgrd leaves APPL_DB. */
json_t *sonic_appl_db(const json_t *db)
{
        const char *model = cfg(db, "DEVICE_METADATA", "localhost", "buffer_model");
        bool dynamic = model && !strcmp(model, "dynamic");
        json_t *pgs = json_object(), *profiles = json_deep_copy(json_object_get(db, "BUFFER_PROFILE")), *v;
        const char *k;

        if (!profiles)
                profiles = json_object();
        json_object_foreach(json_object_get(db, "BUFFER_PG"), k, v) {
                const char *prof = json_string_value(json_object_get(v, "profile"));
                char key[128], port[64], name[128];
                const char *bar = strchr(k, '|');

                if (!bar || !prof || (size_t)(bar - k) >= sizeof(port))
                        continue;
                snprintf(port, sizeof(port), "%.*s", (int)(bar - k), k);
                snprintf(key, sizeof(key), "%s:%s", port, bar + 1);
                if (dynamic && !strcmp(prof, "NULL")) {
                        if (!dynamic_profile(db, port, profiles, name, sizeof(name)))
                                continue;       /* not calculated yet, or removed for 0m */
                        prof = name;
                }
                json_object_set_new(pgs, key, json_pack("{s:s}", "profile", prof));
        }
        return json_pack("{s:o,s:o}", "BUFFER_PG_TABLE", pgs, "BUFFER_PROFILE_TABLE", profiles);
}
