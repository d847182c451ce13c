/* SPDX-License-Identifier: MIT */
/*
 * nettunectl headroom --speed-gbps N --cable-m N --mtu N [--asic NAME] [--lanes N]
 *                     [--small-packet-pct N] [--lossless-mtu N] [--max-mtu N]
 *
 * The PFC headroom a lossless priority needs on one port (policies/headroom.h):
 * xoff, xon and the buffer size in bytes, with the inputs used. Reads nothing,
 * writes nothing; bad input exits 2 naming the flag.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"
#include "policies/headroom.h"

enum { SPECTRUM, CONNECTX };

/* The numeric flags: where they go, their range, and the calculator input each one is. */
static const struct flag {
        const char *name;
        const char *input;              /* struct headroom_problem.input */
        size_t offset;                  /* into struct headroom_input */
        unsigned min, max;
        bool required;
        int only;                       /* -1 any ASIC, else the spectrum or connectx family it applies to */
} flags[] = {
        { "--speed-gbps", "speed_gbps", offsetof(struct headroom_input, speed_gbps), 1, HEADROOM_SPEED_MAX_GBPS, true,
          -1 },
        { "--cable-m", "cable_m", offsetof(struct headroom_input, cable_m), 1, HEADROOM_CABLE_MAX_M, true, -1 },
        /* connectx: up to --max-mtu; the calculator says which range holds */
        { "--mtu", "mtu", offsetof(struct headroom_input, mtu), HEADROOM_MTU_MIN, 65535, true, -1 },
        { "--lanes", "lanes", offsetof(struct headroom_input, lanes), 1, 8, false, SPECTRUM },
        { "--small-packet-pct", "small_packet_pct", offsetof(struct headroom_input, small_packet_pct), 0, 100, false,
          SPECTRUM },
        { "--lossless-mtu", "lossless_mtu", offsetof(struct headroom_input, lossless_mtu), 1, HEADROOM_MTU_MAX, false,
          SPECTRUM },
        { "--max-mtu", "max_mtu", offsetof(struct headroom_input, max_mtu), HEADROOM_MTU_MIN, 65535, false, CONNECTX },
};

#define USAGE "usage: nettunectl headroom --speed-gbps N --cable-m N --mtu N [--asic NAME] [--lanes N]\n" \
              "                           [--small-packet-pct N] [--lossless-mtu N] [--max-mtu N]"

static const char *flag_of(const char *input)
{
        for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
                if (streq(flags[i].input, input))
                        return flags[i].name;
        return "--asic";
}

/* Digits only (a sign, blanks or a suffix are refused) within the flag's range. */
static int parse_number(const struct flag *f, const char *s, unsigned *ret)
{
        unsigned long v = 0;
        char *end = NULL;

        if (s && *s >= '0' && *s <= '9') {
                errno = 0;
                v = strtoul(s, &end, 10);
        }
        if (!end || *end || errno || v < f->min || v > f->max) {
                log_err("%s '%s': expected an integer %u-%u", f->name, s ? s : "", f->min, f->max);
                return -EINVAL;
        }
        *ret = (unsigned)v;
        return 0;
}

/* One "--flag VALUE" or "--flag=VALUE" at argv[*i]; *seen marks the flags given. */
static int parse_one(struct ctl *c, int *i, struct headroom_input *in, const char **asic, unsigned *seen)
{
        const char *a = c->argv[*i], *eq = strchr(a, '='), *v;
        size_t n = eq ? (size_t)(eq - a) : strlen(a);

        v = eq ? eq + 1 : *i + 1 < c->argc ? c->argv[*i + 1] : NULL;
        if (!v) {
                log_err("option '%.*s' needs a value", (int)n, a);
                return -EINVAL;
        }
        if (!eq)
                (*i)++;
        if (n == 6 && !strncmp(a, "--asic", 6)) {
                *asic = v;
                return 0;
        }
        for (size_t k = 0; k < ARRAY_SIZE(flags); k++)
                if (strlen(flags[k].name) == n && !strncmp(a, flags[k].name, n)) {
                        *seen |= 1u << k;
                        return parse_number(&flags[k], v, (unsigned *)((char *)in + flags[k].offset));
                }
        return ctl_bad_arg(c, a);
}

static int parse_args(struct ctl *c, struct headroom_input *in)
{
        const char *asic = "spectrum2";
        unsigned seen = 0;
        int a;

        headroom_input_init(in, HEADROOM_SPECTRUM2);
        for (int i = 0; i < c->argc; i++)
                if (parse_one(c, &i, in, &asic, &seen) < 0)
                        return -EINVAL;
        for (size_t k = 0; k < ARRAY_SIZE(flags); k++)
                if (flags[k].required && !(seen & (1u << k))) {
                        log_err("missing %s\n%s", flags[k].name, USAGE);
                        return -EINVAL;
                }
        a = headroom_asic_from_name(asic);
        if (a < 0) {
                log_err("--asic '%s': expected spectrum1, spectrum2, spectrum3, spectrum4 or connectx", asic);
                return -EINVAL;
        }
        in->asic = (enum headroom_asic)a;
        for (size_t k = 0; k < ARRAY_SIZE(flags); k++)
                if ((seen & (1u << k)) && flags[k].only >= 0 && flags[k].only != (a == HEADROOM_CONNECTX)) {
                        log_err("%s applies to %s only, not to --asic %s", flags[k].name,
                                flags[k].only == CONNECTX ? "connectx" : "spectrum1-spectrum4", asic);
                        return -EINVAL;
                }
        return 0;
}

static json_t *result_json(const struct headroom_input *in, const struct headroom *h)
{
        json_t *j = json_pack("{s:s,s:i,s:i,s:i,s:I,s:I,s:I}", "asic", headroom_asic_name(in->asic),
                              "speed_gbps", (int)in->speed_gbps, "cable_m", (int)in->cable_m, "mtu", (int)in->mtu,
                              "xoff_bytes", (json_int_t)h->xoff_bytes, "xon_bytes", (json_int_t)h->xon_bytes,
                              "size_bytes", (json_int_t)h->size_bytes);

        if (j && in->asic == HEADROOM_CONNECTX) {
                json_object_set_new(j, "max_mtu", json_integer(in->max_mtu));
        } else if (j) {
                json_object_set_new(j, "lanes", json_integer(h->lanes));
                json_object_set_new(j, "lossless_mtu", json_integer(in->lossless_mtu));
                json_object_set_new(j, "small_packet_pct", json_integer(in->small_packet_pct));
        }
        return j;
}

static void print_text(const struct headroom_input *in, const struct headroom *h)
{
        printf("asic              %s\n", headroom_asic_name(in->asic));
        printf("speed_gbps        %u\ncable_m           %u\nmtu               %u\n", in->speed_gbps, in->cable_m,
               in->mtu);
        if (in->asic == HEADROOM_CONNECTX)
                printf("max_mtu           %u\n", in->max_mtu);
        else
                printf("lanes             %u\nlossless_mtu      %u\nsmall_packet_pct  %u\n", h->lanes,
                       in->lossless_mtu, in->small_packet_pct);
        printf("xoff_bytes        %u\nxon_bytes         %u\nsize_bytes        %u\n", h->xoff_bytes, h->xon_bytes,
               h->size_bytes);
}

int ctl_cmd_headroom(struct ctl *c)
{
        struct headroom_input in;
        struct headroom h;
        struct headroom_problem why = { 0 };
        json_t *j;

        if (parse_args(c, &in) < 0)
                return OUTCOME_INVALID;
        if (headroom_calc(&in, &h, &why) < 0) {
                log_err("%s: %s", flag_of(why.input), why.msg);
                return OUTCOME_INVALID;
        }
        if (!c->json) {
                print_text(&in, &h);
                return OUTCOME_OK;
        }
        j = result_json(&in, &h);
        if (!j) {
                log_err("out of memory");
                return OUTCOME_RUNTIME;
        }
        output_json(j);
        json_decref(j);
        return OUTCOME_OK;
}
