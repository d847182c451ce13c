/* SPDX-License-Identifier: MIT */
/* dcbnl (RTM_GETDCB/RTM_SETDCB) requests and reply parsing. */
#include <linux/rtnetlink.h>

#include "drivers/host/dcb_nl.h"

static const struct nl_policy get_policy[DCB_ATTR_MAX + 1] = {
        [DCB_ATTR_IFNAME] = { MNL_TYPE_NUL_STRING, 0 },
        [DCB_ATTR_IEEE] = { MNL_TYPE_NESTED, 0 },
        [DCB_ATTR_DCBX] = { MNL_TYPE_U8, 0 },
};

/* In a SET reply DCB_ATTR_IEEE/DCB_ATTR_DCBX carry the driver's result as a u8. */
static const struct nl_policy set_policy[DCB_ATTR_MAX + 1] = {
        [DCB_ATTR_IFNAME] = { MNL_TYPE_NUL_STRING, 0 },
        [DCB_ATTR_IEEE] = { MNL_TYPE_U8, 0 },
        [DCB_ATTR_DCBX] = { MNL_TYPE_U8, 0 },
};

static const struct nl_policy ieee_policy[DCB_NL_IEEE_ATTR_MAX + 1] = {
        [DCB_ATTR_IEEE_ETS] = { MNL_TYPE_BINARY, sizeof(struct ieee_ets) },
        [DCB_ATTR_IEEE_PFC] = { MNL_TYPE_BINARY, sizeof(struct ieee_pfc) },
        [DCB_ATTR_IEEE_APP_TABLE] = { MNL_TYPE_NESTED, 0 },
        [DCB_ATTR_DCB_BUFFER] = { MNL_TYPE_BINARY, sizeof(struct dcbnl_buffer) },
        [DCB_ATTR_DCB_APP_TRUST_TABLE] = { MNL_TYPE_NESTED, 0 },
};

static const struct dcbmsg *dcb_header(const struct nlmsghdr *nlh, uint8_t cmd)
{
        const struct dcbmsg *d = mnl_nlmsg_get_payload(nlh);

        if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*d) || d->cmd != cmd)
                return NULL;
        return d;
}

/* Entries are DCB_ATTR_IEEE_APP, or DCB_ATTR_DCB_APP for the PCP selector (6.3+). */
static int parse_apps(const struct nlattr *table, struct dcb_nl_ieee *r)
{
        const struct nlattr *a;

        r->has_apps = true;
        mnl_attr_for_each_nested(a, table) {
                if (mnl_attr_get_type(a) != DCB_ATTR_IEEE_APP && mnl_attr_get_type(a) != DCB_NL_APP_ATTR_DCB)
                        continue;
                if (mnl_attr_validate2(a, MNL_TYPE_BINARY, sizeof(struct dcb_app)) < 0)
                        return -EINVAL;
                if (r->n_apps >= DCB_NL_APPS_MAX)
                        return -E2BIG;
                memcpy(&r->apps[r->n_apps++], mnl_attr_get_payload(a), sizeof(struct dcb_app));
        }
        return 0;
}

static int parse_trust(const struct nlattr *table, struct dcb_nl_ieee *r)
{
        const struct nlattr *a;

        r->has_trust = true;
        mnl_attr_for_each_nested(a, table) {
                uint16_t type = mnl_attr_get_type(a);

                if (type != DCB_ATTR_IEEE_APP && type != DCB_NL_APP_ATTR_DCB)
                        continue;
                if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
                        return -EINVAL;
                if (r->n_trust >= DCB_NL_TRUST_MAX)
                        return -E2BIG;
                r->trust[r->n_trust++] = mnl_attr_get_u8(a);
        }
        return 0;
}

int dcb_nl_parse_ieee(const struct nlmsghdr *nlh, struct dcb_nl_ieee *ret)
{
        const struct nlattr *tb[DCB_ATTR_MAX + 1], *ieee[DCB_NL_IEEE_ATTR_MAX + 1];
        int r;

        memset(ret, 0, sizeof(*ret));
        if (nlh->nlmsg_type != RTM_GETDCB || !dcb_header(nlh, DCB_CMD_IEEE_GET))
                return -EBADMSG;
        r = nl_parse_msg(nlh, sizeof(struct dcbmsg), get_policy, DCB_ATTR_MAX, tb);
        if (r < 0)
                return r;
        if (tb[DCB_ATTR_DCBX]) {
                ret->has_dcbx = true;
                ret->dcbx = mnl_attr_get_u8(tb[DCB_ATTR_DCBX]);
        }
        if (!tb[DCB_ATTR_IEEE])
                return -EBADMSG;
        r = nl_parse_nested(tb[DCB_ATTR_IEEE], ieee_policy, DCB_NL_IEEE_ATTR_MAX, ieee);
        if (r < 0)
                return r;
        if (ieee[DCB_ATTR_IEEE_ETS]) {
                ret->has_ets = true;
                memcpy(&ret->ets, mnl_attr_get_payload(ieee[DCB_ATTR_IEEE_ETS]), sizeof(ret->ets));
        }
        if (ieee[DCB_ATTR_IEEE_PFC]) {
                ret->has_pfc = true;
                memcpy(&ret->pfc, mnl_attr_get_payload(ieee[DCB_ATTR_IEEE_PFC]), sizeof(ret->pfc));
        }
        if (ieee[DCB_ATTR_DCB_BUFFER]) {
                ret->has_buffer = true;
                memcpy(&ret->buffer, mnl_attr_get_payload(ieee[DCB_ATTR_DCB_BUFFER]), sizeof(ret->buffer));
        }
        if (ieee[DCB_ATTR_IEEE_APP_TABLE] && (r = parse_apps(ieee[DCB_ATTR_IEEE_APP_TABLE], ret)) < 0)
                return r;
        if (ieee[DCB_ATTR_DCB_APP_TRUST_TABLE] &&
            (r = parse_trust(ieee[DCB_ATTR_DCB_APP_TRUST_TABLE], ret)) < 0)
                return r;
        return 0;
}

#define INBAND_ERRNO_MIN 123                 /* (u8)-133: the u8 of the largest errno */
#define ENOTSUPP_KERNEL 524                  /* include/linux/errno.h, never meant for user space */

/* The driver's int as nla_put_u8() kept it: 0, 1 or 2 (success codes), -errno, or -EPROTO. */
static int inband_result(uint8_t v)
{
        if (v <= 2)
                return v;
        if (v < INBAND_ERRNO_MIN)
                return -EPROTO;
        return -(int)(256 - v);
}

int dcb_nl_parse_set_reply(const struct nlmsghdr *nlh, uint8_t cmd, int *ret_result)
{
        const struct nlattr *tb[DCB_ATTR_MAX + 1];
        int r;

        if (nlh->nlmsg_type != RTM_SETDCB || !dcb_header(nlh, cmd))
                return -EBADMSG;
        r = nl_parse_msg(nlh, sizeof(struct dcbmsg), set_policy, DCB_ATTR_MAX, tb);
        if (r < 0)
                return r;
        if (cmd == DCB_CMD_SDCBX) {
                if (!tb[DCB_ATTR_DCBX])
                        return -EBADMSG;
                /* setdcbx() returns 0 or 1 ("failed"), not an errno */
                *ret_result = mnl_attr_get_u8(tb[DCB_ATTR_DCBX]) ? -EINVAL : 0;
                return 0;
        }
        if (!tb[DCB_ATTR_IEEE])
                return -EBADMSG;
        *ret_result = inband_result(mnl_attr_get_u8(tb[DCB_ATTR_IEEE]));
        return 0;
}

static struct nlmsghdr *dcb_msg(struct nl *nl, uint16_t type, uint8_t cmd, const char *ifname)
{
        struct nlmsghdr *nlh = nl_msg_new(nl, type, NLM_F_ACK);
        struct dcbmsg *d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));

        d->dcb_family = AF_UNSPEC;
        d->cmd = cmd;
        if (nl_put_strz(nlh, DCB_ATTR_IFNAME, ifname) < 0)
                return NULL;
        return nlh;
}

struct get_ctx {
        struct dcb_nl_ieee *ieee;
        bool found;
        uint8_t *dcbx;
};

static int get_cb(const struct nlmsghdr *nlh, void *data)
{
        struct get_ctx *g = data;
        int r = dcb_nl_parse_ieee(nlh, g->ieee);

        if (r < 0) {
                errno = -r;
                return MNL_CB_ERROR;
        }
        g->found = true;
        return MNL_CB_OK;
}

int dcb_nl_get(struct nl *nl, const char *ifname, struct dcb_nl_ieee *ret, struct errbuf *e)
{
        struct get_ctx g = { .ieee = ret };
        struct nlmsghdr *nlh = dcb_msg(nl, RTM_GETDCB, DCB_CMD_IEEE_GET, ifname);
        int r;

        if (!nlh)
                return errbuf_set(e, EMSGSIZE, NULL, "interface name too long");
        r = nl_talk(nl, nlh, get_cb, &g, "read dcb ieee configuration", e);
        if (r >= 0 && !g.found)
                r = errbuf_set(e, EBADMSG, NULL, "read dcb ieee configuration: no reply");
        return r;
}

/* ---- many GETs at once ---- */

#define GET_WHAT "read dcb ieee configuration"

struct dcb_cache {
        uint64_t writes;                /* nl_writes() when it was filled */
        unsigned n;
        char (*name)[16];
        int *err;
        char (*msg)[NL_BATCH_MSG];
        struct dcb_nl_ieee **ieee;      /* [n]: the reply, NULL when there was none */
        unsigned *by_name;              /* [n]: indexes sorted by name */
};

static int cmp_name(const void *a, const void *b, void *data)
{
        const struct dcb_cache *c = data;

        return strcmp(c->name[*(const unsigned *)a], c->name[*(const unsigned *)b]);
}

void dcb_cache_free(struct dcb_cache *c)
{
        if (!c)
                return;
        for (unsigned i = 0; c->ieee && i < c->n; i++)
                free(c->ieee[i]);
        free(c->ieee);
        free(c->by_name);
        free(c->name);
        free(c->err);
        free(c->msg);
        free(c);
}

static int cache_reply(const struct nlmsghdr *nlh, unsigned i, void *data)
{
        struct dcb_cache *c = data;

        if (i >= c->n)
                return -EPROTO;
        if (!c->ieee[i] && !(c->ieee[i] = malloc(sizeof(*c->ieee[i]))))
                return -ENOMEM;
        return dcb_nl_parse_ieee(nlh, c->ieee[i]);
}

/* The batch of the interfaces asked (asked[k]: the cache's index of the k-th request). */
struct asked_ctx {
        struct dcb_cache *c;
        const unsigned *asked;
};

static int asked_reply(const struct nlmsghdr *nlh, unsigned k, void *data)
{
        const struct asked_ctx *x = data;

        return cache_reply(nlh, x->asked[k], x->c);
}

static int batch_asked(struct dcb_cache *c, struct nl *nl, const unsigned *asked, unsigned n, struct errbuf *e)
{
        _cleanup_free_ int *err = calloc(n, sizeof(*err));
        _cleanup_free_ char (*msg)[NL_BATCH_MSG] = calloc(n, sizeof(*msg));
        struct asked_ctx x = { c, asked };
        int r;

        if (!err || !msg)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        r = nl_batch_run(nl, GET_WHAT, asked_reply, &x, err, msg, e);
        for (unsigned k = 0; r >= 0 && k < n; k++) {
                c->err[asked[k]] = err[k];
                memcpy(c->msg[asked[k]], msg[k], sizeof(msg[k]));
        }
        return r;
}

/*
 * A software link (software[i]: no parent device) has no dcbnl_ops, which only NIC
 * and switch drivers set; dcbnl_rcv_msg() answers -EOPNOTSUPP for it without an
 * extended ack. That answer is written here, not asked for.
 */
static void cache_unsupported(struct dcb_cache *c, unsigned i)
{
        char t[128];

        c->err[i] = -EOPNOTSUPP;
        snprintf(c->msg[i], sizeof(c->msg[i]), "%s: %s", GET_WHAT, nl_strerror(EOPNOTSUPP, t, sizeof(t)));
}

int dcb_cache_fill(struct nl *nl, const char (*names)[16], const bool *software, unsigned n, struct dcb_cache **ret,
                   struct errbuf *e)
{
        struct dcb_cache *c = calloc(1, sizeof(*c));
        _cleanup_free_ unsigned *asked = calloc(n ? n : 1, sizeof(*asked));
        unsigned n_asked = 0;
        int r = 0;

        if (!c || !asked || !(c->name = calloc(n ? n : 1, sizeof(*c->name))) || !(c->err = calloc(n ? n : 1, sizeof(*c->err))) ||
            !(c->msg = calloc(n ? n : 1, sizeof(*c->msg))) || !(c->ieee = calloc(n ? n : 1, sizeof(*c->ieee))) ||
            !(c->by_name = calloc(n ? n : 1, sizeof(*c->by_name)))) {
                dcb_cache_free(c);
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        }
        c->n = n;
        for (unsigned i = 0; i < n && r >= 0; i++) {
                struct nlmsghdr *nlh;

                memcpy(c->name[i], names[i], sizeof(c->name[i]));
                c->by_name[i] = i;
                if (software && software[i])
                        continue;
                nlh = dcb_msg(nl, RTM_GETDCB, DCB_CMD_IEEE_GET, names[i]);
                r = nlh ? nl_batch_add(nl, nlh, e) : errbuf_set(e, EMSGSIZE, NULL, "interface name too long");
                asked[n_asked++] = i;
        }
        if (r >= 0 && n_asked)
                r = batch_asked(c, nl, asked, n_asked, e);
        for (unsigned i = 0; r >= 0 && software && i < n; i++)
                if (software[i])
                        cache_unsupported(c, i);
        if (r < 0) {
                dcb_cache_free(c);
                return r;
        }
        qsort_r(c->by_name, n, sizeof(*c->by_name), cmp_name, c);
        c->writes = nl_writes(nl);
        *ret = c;
        return 0;
}

int dcb_cache_get(const struct dcb_cache *c, const struct nl *nl, const char *ifname, struct dcb_nl_ieee *ret,
                  struct errbuf *e)
{
        unsigned lo = 0, hi, i;

        if (!c || c->writes != nl_writes(nl))
                return 1;
        for (hi = c->n; lo < hi;) {             /* the first name >= ifname */
                unsigned mid = lo + (hi - lo) / 2;

                if (strcmp(c->name[c->by_name[mid]], ifname) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (lo == c->n || strcmp(c->name[c->by_name[lo]], ifname))
                return 1;
        i = c->by_name[lo];
        if (c->err[i]) {
                if (e) {
                        e->where[0] = '\0';
                        strcopy(e->msg, sizeof(e->msg), c->msg[i]);
                }
                return c->err[i];
        }
        if (!c->ieee[i])
                return errbuf_set(e, EBADMSG, NULL, GET_WHAT ": no reply");
        *ret = *c->ieee[i];
        return 0;
}

struct set_ctx {
        uint8_t cmd;
        bool found;
        int result;
};

static int set_cb(const struct nlmsghdr *nlh, void *data)
{
        struct set_ctx *s = data;
        int r = dcb_nl_parse_set_reply(nlh, s->cmd, &s->result);

        if (r < 0) {
                errno = -r;
                return MNL_CB_ERROR;
        }
        s->found = true;
        return MNL_CB_OK;
}

/* Send a SET-type request and check both the ACK and the in-band result. */
static int talk_set(struct nl *nl, struct nlmsghdr *nlh, uint8_t cmd, const char *what, struct errbuf *e)
{
        struct set_ctx s = { .cmd = cmd };
        int r;

        r = nl_talk(nl, nlh, set_cb, &s, what, e);
        if (r < 0)
                return r;
        if (!s.found)
                return errbuf_set(e, EBADMSG, NULL, "%s: the reply carried no result", what);
        if (s.result < 0) {
                char t[128];

                /* the u8 keeps errno mod 256: a driver's kernel-internal -ENOTSUPP (524) reads as -ENOMEM */
                return errbuf_set(e, -s.result, NULL, "%s: the device driver refused it: %s%s",
                                  what, nl_strerror(-s.result, t, sizeof(t)),
                                  s.result == -(ENOTSUPP_KERNEL - 512) ?
                                  " (or the kernel-internal ENOTSUPP, which the in-band byte cannot tell apart)" : "");
        }
        return s.result;
}

static int set_ieee_attr(struct nl *nl, const char *ifname, uint16_t attr, const void *data,
                         size_t len, const char *what, struct errbuf *e)
{
        struct nlmsghdr *nlh = dcb_msg(nl, RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
        struct nlattr *nest;

        if (!nlh || !(nest = nl_nest_start(nlh, DCB_ATTR_IEEE)) || nl_put(nlh, attr, len, data) < 0)
                return errbuf_set(e, EMSGSIZE, NULL, "%s: request too large", what);
        nl_nest_end(nlh, nest);
        return talk_set(nl, nlh, DCB_CMD_IEEE_SET, what, e);
}

int dcb_nl_set_ets(struct nl *nl, const char *ifname, const struct ieee_ets *ets, struct errbuf *e)
{
        return set_ieee_attr(nl, ifname, DCB_ATTR_IEEE_ETS, ets, sizeof(*ets), "set ets", e);
}

int dcb_nl_set_pfc(struct nl *nl, const char *ifname, const struct ieee_pfc *pfc, struct errbuf *e)
{
        return set_ieee_attr(nl, ifname, DCB_ATTR_IEEE_PFC, pfc, sizeof(*pfc), "set pfc", e);
}

int dcb_nl_set_buffer(struct nl *nl, const char *ifname, const struct dcbnl_buffer *b, struct errbuf *e)
{
        return set_ieee_attr(nl, ifname, DCB_ATTR_DCB_BUFFER, b, sizeof(*b), "set dcb buffer", e);
}

int dcb_nl_apps(struct nl *nl, const char *ifname, uint8_t cmd, const struct dcb_app *apps,
                unsigned n, struct errbuf *e)
{
        const char *what = cmd == DCB_CMD_IEEE_DEL ? "delete dcb app entries" : "add dcb app entries";
        struct nlmsghdr *nlh = dcb_msg(nl, RTM_SETDCB, cmd, ifname);
        struct nlattr *nest, *table;

        if (!nlh || !(nest = nl_nest_start(nlh, DCB_ATTR_IEEE)) ||
            !(table = nl_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE)))
                return errbuf_set(e, EMSGSIZE, NULL, "%s: request too large", what);
        for (unsigned i = 0; i < n; i++)
                if (nl_put(nlh, DCB_ATTR_IEEE_APP, sizeof(apps[i]), &apps[i]) < 0)
                        return errbuf_set(e, EMSGSIZE, NULL, "%s: request too large", what);
        nl_nest_end(nlh, table);
        nl_nest_end(nlh, nest);
        return talk_set(nl, nlh, cmd, what, e);
}

int dcb_nl_set_trust(struct nl *nl, const char *ifname, const uint8_t *sel, unsigned n, struct errbuf *e)
{
        const char *what = "set dcb app trust table";
        struct nlmsghdr *nlh = dcb_msg(nl, RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
        struct nlattr *nest, *table;

        if (!nlh || !(nest = nl_nest_start(nlh, DCB_ATTR_IEEE)) ||
            !(table = nl_nest_start(nlh, DCB_ATTR_DCB_APP_TRUST_TABLE)))
                return errbuf_set(e, EMSGSIZE, NULL, "%s: request too large", what);
        /* dcbnl_app_attr_type_get(): PCP is DCB_ATTR_DCB_APP, the IEEE selectors DCB_ATTR_IEEE_APP */
        for (unsigned i = 0; i < n; i++)
                if (nl_put_u8(nlh, sel[i] == DCB_NL_SEL_PCP ? DCB_NL_APP_ATTR_DCB : DCB_ATTR_IEEE_APP, sel[i]) < 0)
                        return errbuf_set(e, EMSGSIZE, NULL, "%s: request too large", what);
        nl_nest_end(nlh, table);
        nl_nest_end(nlh, nest);
        return talk_set(nl, nlh, DCB_CMD_IEEE_SET, what, e);
}

static int dcbx_cb(const struct nlmsghdr *nlh, void *data)
{
        const struct nlattr *tb[DCB_ATTR_MAX + 1];
        struct get_ctx *g = data;

        if (nlh->nlmsg_type != RTM_GETDCB || !dcb_header(nlh, DCB_CMD_GDCBX) ||
            nl_parse_msg(nlh, sizeof(struct dcbmsg), get_policy, DCB_ATTR_MAX, tb) < 0 ||
            !tb[DCB_ATTR_DCBX]) {
                errno = EBADMSG;
                return MNL_CB_ERROR;
        }
        *g->dcbx = mnl_attr_get_u8(tb[DCB_ATTR_DCBX]);
        g->found = true;
        return MNL_CB_OK;
}

int dcb_nl_get_dcbx(struct nl *nl, const char *ifname, uint8_t *ret, struct errbuf *e)
{
        struct nlmsghdr *nlh = dcb_msg(nl, RTM_GETDCB, DCB_CMD_GDCBX, ifname);
        uint8_t v = 0;
        struct get_ctx g = { .dcbx = &v };
        int r;

        if (!nlh)
                return errbuf_set(e, EMSGSIZE, NULL, "interface name too long");
        r = nl_talk(nl, nlh, dcbx_cb, &g, "read dcbx mode", e);
        if (r >= 0 && !g.found)
                r = errbuf_set(e, EBADMSG, NULL, "read dcbx mode: no reply");
        if (r >= 0)
                *ret = v;
        return r;
}

int dcb_nl_set_dcbx(struct nl *nl, const char *ifname, uint8_t mode, struct errbuf *e)
{
        struct nlmsghdr *nlh = dcb_msg(nl, RTM_SETDCB, DCB_CMD_SDCBX, ifname);

        if (!nlh || nl_put_u8(nlh, DCB_ATTR_DCBX, mode) < 0)
                return errbuf_set(e, EMSGSIZE, NULL, "set dcbx mode: request too large");
        return talk_set(nl, nlh, DCB_CMD_SDCBX, "set dcbx mode", e);
}
