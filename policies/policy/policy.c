/* SPDX-License-Identifier: MIT */
/* Policy documents: the top-level tables, metadata, targets, verify, commit. */
#include <fnmatch.h>

#include "policies/json/jsonv.h"
#include "policies/policy/policy.h"
#include "policies/policy/policy_spec.h"

#define IFNAME_MAX 15           /* IFNAMSIZ - 1 */

static const char *const probe_names[] = { "auto", "verbs", "tcp", "none", NULL };
static const char *const baseline_names[] = { "fail", "skip_gate", NULL };
static const char *const inconclusive_names[] = { "fail", "retry", NULL };

const char *policy_probe_name(enum policy_probe p)
{
        return (unsigned)p < POLICY_PROBE_MAX ? probe_names[p] : "unknown";
}

const char *policy_baseline_name(enum policy_on_baseline_failure b)
{
        return (unsigned)b < POLICY_BASELINE_MAX ? baseline_names[b] : "unknown";
}

const char *policy_inconclusive_name(enum policy_on_inconclusive i)
{
        return (unsigned)i < POLICY_INCONCLUSIVE_MAX ? inconclusive_names[i] : "unknown";
}

static int check_label(struct jsonv *v, const char *key, const char *value)
{
        int r;

        if (!*key)
                return jsonv_error(v, "label key must not be empty");
        r = jsonv_check_chars(v, "label key", key, "-_./");
        return r < 0 ? r : jsonv_check_chars(v, "label value", value, "-_.");
}

int policy_labels_parse(struct jsonv *v, const json_t *j, struct policy_label *ret, unsigned *ret_n)
{
        const char *key;
        json_t *val;
        unsigned n = 0;
        int r = jsonv_check_type(v, j, JSONV_OBJECT);

        if (r < 0)
                return r;
        if (json_object_size(j) > POLICY_LABELS_MAX)
                return jsonv_error(v, "expected at most %u labels, found %zu", POLICY_LABELS_MAX,
                                   json_object_size(j));
        json_object_foreach((json_t *)j, key, val) {
                jsonv_push_key(v, key);
                r = jsonv_string(v, val, "label value", ret[n].value, sizeof(ret[n].value));
                if (r >= 0 && strlen(key) >= sizeof(ret[n].key))
                        r = jsonv_error(v, "label key is %zu bytes, longer than %zu", strlen(key),
                                        sizeof(ret[n].key) - 1);
                if (r >= 0)
                        r = check_label(v, key, ret[n].value);
                jsonv_pop(v);
                if (r < 0)
                        return r;
                snprintf(ret[n].key, sizeof(ret[n].key), "%s", key);
                n++;
        }
        *ret_n = n;
        return 0;
}

static int parse_labels(struct jsonv *v, const json_t *j, void *obj)
{
        struct policy *p = obj;

        return policy_labels_parse(v, j, p->labels, &p->n_labels);
}

static int parse_selector(struct jsonv *v, const json_t *j, void *obj)
{
        struct policy *p = obj;

        return policy_labels_parse(v, j, p->selector, &p->n_selector);
}

/* DNS label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters. */
static int check_policy_name(struct jsonv *v, const char *s)
{
        size_t len = strlen(s);
        char q[80];

        for (size_t i = 0; i < len; i++) {
                bool ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
                          (s[i] == '-' && i > 0 && i + 1 < len);

                if (!ok)
                        return jsonv_error(v, "name '%s' is not a DNS label: lowercase letters, digits and "
                                           "'-' inside, at most 63 characters", jsonv_quote(s, q, sizeof(q)));
        }
        return 0;
}

static int check_name(struct jsonv *v, const json_t *j, void *obj)
{
        (void)obj;
        return check_policy_name(v, json_string_value(j));
}

static int parse_overrides(struct jsonv *v, const json_t *j, void *obj)
{
        struct policy *p = obj;
        size_t n;
        int r = jsonv_string_array(v, j, "policy name", POLICY_OVERRIDES_MAX, p->overrides[0],
                                   sizeof(p->overrides[0]), &n, check_policy_name);

        p->n_overrides = r < 0 ? 0 : (unsigned)n;
        return r;
}

static const struct jsonv_field metadata_fields[] = {
        { .key = "name", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY,
          JSONV_MEMBER(struct policy, name), .parse = check_name },
        JSONV_CUSTOM("labels", JSONV_OBJECT, 0, parse_labels),
        JSONV_CUSTOM("overrides", JSONV_ARRAY, 0, parse_overrides),
        JSONV_CUSTOM("source", JSONV_OBJECT, 0, policy_source_parse),
        JSONV_CUSTOM("unmanaged", JSONV_ARRAY, 0, policy_unmanaged_parse),
        JSONV_CUSTOM("not_found", JSONV_ARRAY, 0, policy_not_found_parse),
        { 0 },
};

static int parse_metadata(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, metadata_fields, obj);
}

static int check_ifname(struct jsonv *v, const char *s)
{
        return jsonv_check_glob(v, "interface name", s, IFNAME_MAX);
}

static int check_switch_name(struct jsonv *v, const char *s)
{
        return jsonv_check_glob(v, "switch name", s, STATE_NAME_MAX - 1);
}

static int parse_interfaces(struct jsonv *v, const json_t *j, void *obj)
{
        struct policy *p = obj;
        size_t n;
        int r = jsonv_string_array(v, j, "interface name", POLICY_TARGETS_MAX, p->interfaces[0],
                                   sizeof(p->interfaces[0]), &n, check_ifname);

        p->n_interfaces = r < 0 ? 0 : (unsigned)n;
        return r;
}

static int parse_switches(struct jsonv *v, const json_t *j, void *obj)
{
        struct policy *p = obj;
        size_t n;
        int r = jsonv_string_array(v, j, "switch name", POLICY_TARGETS_MAX, p->switches[0],
                                   sizeof(p->switches[0]), &n, check_switch_name);

        p->n_switches = r < 0 ? 0 : (unsigned)n;
        return r;
}

static const struct jsonv_field targets_fields[] = {
        JSONV_CUSTOM("interfaces", JSONV_ARRAY, 0, parse_interfaces),
        JSONV_CUSTOM("switches", JSONV_ARRAY, 0, parse_switches),
        { 0 },
};

static int parse_targets(struct jsonv *v, const json_t *j, void *obj)
{
        struct policy *p = obj;
        int r = jsonv_object(v, j, targets_fields, obj);

        if (r >= 0 && p->n_interfaces + p->n_switches == 0)
                r = jsonv_error(v, "no interface and no switch given; a policy needs at least one target");
        return r;
}

static int parse_spec(struct jsonv *v, const json_t *j, void *obj)
{
        struct policy *p = obj;

        policy_lossless_positions(j, &p->pos);
        return policy_spec_parse(v, j, &p->spec);
}

static int check_peer(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_hostport(v, "peer", json_string_value(j));
}

static int check_device(struct jsonv *v, const json_t *j, void *obj)
{
        const char *s = json_string_value(j);
        char q[80];

        if (strpbrk(s, "*?["))
                return jsonv_error(v, "device '%s' is a pattern; name one interface", jsonv_quote(s, q, sizeof(q)));
        return jsonv_check_glob(v, "interface name", s, IFNAME_MAX);
}

static int parse_fabric(struct jsonv *v, const json_t *j, void *obj)
{
        return policy_fabric_parse(v, j, &((struct policy_verify *)obj)->fabric);
}

static const struct jsonv_field verify_fields[] = {
        JSONV_ENUM("probe", struct policy_verify, probe, probe_names, 0),
        { .key = "peer", .type = JSONV_STRING, .flags = JSONV_NONEMPTY,
          JSONV_MEMBER(struct policy_verify, peer), .parse = check_peer },
        JSONV_UINT("duration_ms", struct policy_verify, duration_ms, 100, 60000),
        JSONV_UINT("message_size", struct policy_verify, message_size, 1, 16777216),
        JSONV_UINT("max_regression_pct", struct policy_verify, max_regression_pct, 0, 100),
        JSONV_NUM("min_gbps", struct policy_verify, min_gbps, 0, POLICY_GBPS_MAX),
        JSONV_UINT("settle_ms", struct policy_verify, settle_ms, 0, 120000),
        JSONV_UINT("runs", struct policy_verify, runs, 1, 15),
        JSONV_UINT("streams", struct policy_verify, streams, 1, 16),
        JSONV_ENUM("on_baseline_failure", struct policy_verify, on_baseline_failure, baseline_names, 0),
        JSONV_UINT("dscp", struct policy_verify, dscp, 0, 63),
        { .key = "device", .type = JSONV_STRING, .flags = JSONV_NONEMPTY,
          JSONV_MEMBER(struct policy_verify, device), .parse = check_device },
        JSONV_ENUM("on_inconclusive", struct policy_verify, on_inconclusive, inconclusive_names, 0),
        JSONV_CUSTOM("fabric", JSONV_OBJECT, 0, parse_fabric),
        { 0 },
};

static int parse_verify(struct jsonv *v, const json_t *j, void *obj)
{
        struct policy_verify *vf = &((struct policy *)obj)->verify;
        int r;

        vf->present = true;
        vf->probe = POLICY_PROBE_AUTO;
        r = jsonv_object(v, j, verify_fields, vf);
        /* A verify that names only the fabric gate measures nothing per node. */
        if (r >= 0 && vf->fabric.present && !vf->peer[0] && !json_object_get(j, "probe"))
                vf->probe = POLICY_PROBE_NONE;
        if (r >= 0 && vf->probe != POLICY_PROBE_NONE && !vf->peer[0])
                r = jsonv_error(v, "missing required key 'peer' (probe '%s' needs a peer)",
                                policy_probe_name(vf->probe));
        return r;
}

static const struct jsonv_field commit_fields[] = {
        JSONV_UINT("confirm_timeout_s", struct policy, confirm_timeout_s, 0, 86400),
        { 0 },
};

static int parse_commit(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, commit_fields, obj);
}

static int check_api_version(struct jsonv *v, const json_t *j, void *obj)
{
        char q[80];

        if (streq(json_string_value(j), "nettune/v1"))
                return 0;
        return jsonv_error(v, "apiVersion '%s' is not supported, expected 'nettune/v1'",
                           jsonv_quote(json_string_value(j), q, sizeof(q)));
}

static int check_kind(struct jsonv *v, const json_t *j, void *obj)
{
        char q[80];

        if (streq(json_string_value(j), "Policy"))
                return 0;
        return jsonv_error(v, "kind '%s' is not supported, expected 'Policy'",
                           jsonv_quote(json_string_value(j), q, sizeof(q)));
}

static const struct jsonv_field policy_fields[] = {
        JSONV_CUSTOM("apiVersion", JSONV_STRING, JSONV_REQUIRED, check_api_version),
        JSONV_CUSTOM("kind", JSONV_STRING, JSONV_REQUIRED, check_kind),
        JSONV_CUSTOM("metadata", JSONV_OBJECT, JSONV_REQUIRED, parse_metadata),
        JSONV_CUSTOM("selector", JSONV_OBJECT, 0, parse_selector),
        JSONV_CUSTOM("targets", JSONV_OBJECT, JSONV_REQUIRED, parse_targets),
        JSONV_CUSTOM("spec", JSONV_OBJECT, JSONV_REQUIRED, parse_spec),
        JSONV_CUSTOM("verify", JSONV_OBJECT, 0, parse_verify),
        JSONV_CUSTOM("commit", JSONV_OBJECT, 0, parse_commit),
        JSONV_CUSTOM("checks", JSONV_OBJECT, 0, policy_checks_parse),
        { 0 },
};

void policy_defaults(struct policy *p)
{
        memset(p, 0, sizeof(*p));
        memset(&p->pos, -1, sizeof(p->pos));
        state_init(&p->spec);
        p->verify = (struct policy_verify){
                .present = false,
                .probe = POLICY_PROBE_NONE,
                .duration_ms = 3000,
                .message_size = 65536,
                .max_regression_pct = 20,
                .min_gbps = 0,
                .settle_ms = 3000,
                .runs = 3,
                .streams = 1,
                .on_baseline_failure = POLICY_BASELINE_FAIL,
                .dscp = -1,
                .on_inconclusive = POLICY_INCONCLUSIVE_RETRY,
                .fabric = { .present = false, .duration_ms = 2000, .max_regression_pct = 20, .dscp = -1,
                            .streams = 1 },
        };
}

static int parse(const char *buf, size_t len, const char *name, bool rules, struct policy **ret, struct errbuf *e)
{
        json_auto_t *root = NULL;
        _cleanup_free_ struct policy *p = NULL;
        struct jsonv_locs *locs = NULL;
        struct jsonv v;
        int r;

        r = jsonv_parse_doc(buf, len, name, POLICY_DOC_MAX, &root, &locs, e);
        if (r < 0)
                return r;
        jsonv_init(&v, name, e);
        v.locs = locs;
        p = malloc(sizeof(*p));
        r = p ? 0 : errbuf_set(e, ENOMEM, name, "out of memory");
        if (r >= 0) {
                policy_defaults(p);
                r = jsonv_object(&v, root, policy_fields, p);
        }
        if (r >= 0)
                r = policy_sources_check(&v, root);
        jsonv_locs_free(locs);
        if (r >= 0 && rules)
                r = policy_lossless_validate(p, name, e);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}

int policy_parse_buffer(const char *buf, size_t len, const char *name, struct policy **ret, struct errbuf *e)
{
        return parse(buf, len, name, true, ret, e);
}

int policy_parse_committed(const char *buf, size_t len, const char *name, struct policy **ret, struct errbuf *e)
{
        return parse(buf, len, name, false, ret, e);
}

int policy_doc_json(const char *buf, size_t len, const char *name, char **ret, size_t *ret_len, struct errbuf *e)
{
        json_auto_t *root = NULL;
        struct jsonv_locs *locs = NULL;
        char *text;
        int r;

        if (!jsonv_is_yaml(name, buf, len))
                text = strndup(buf, len);
        else if ((r = jsonv_parse_yaml(buf, len, name, POLICY_DOC_MAX, &root, &locs, e)) < 0)
                return r;
        else
                text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        jsonv_locs_free(locs);
        if (!text)
                return errbuf_set(e, ENOMEM, name, "out of memory");
        *ret = text;
        *ret_len = strlen(text);
        return 0;
}

int policy_load_file(const char *path, struct policy **ret, struct errbuf *e)
{
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r;

        r = jsonv_read_file(path, POLICY_DOC_MAX, &buf, &len, e);
        if (r < 0)
                return r;
        return policy_parse_buffer(buf, len, path, ret, e);
}

void policy_free(struct policy *p)
{
        free(p);
}

static const char *label_value(const struct policy_label *labels, unsigned n, const char *key)
{
        for (unsigned i = 0; i < n; i++)
                if (streq(labels[i].key, key))
                        return labels[i].value;
        return NULL;
}

bool policy_selects(const struct policy *p, const struct policy_label *labels, unsigned n)
{
        for (unsigned i = 0; i < p->n_selector; i++)
                if (!streq(label_value(labels, n, p->selector[i].key), p->selector[i].value))
                        return false;
        return true;
}

bool policy_targets_interface(const struct policy *p, const char *ifname)
{
        for (unsigned i = 0; i < p->n_interfaces; i++)
                if (fnmatch(p->interfaces[i], ifname, 0) == 0)
                        return true;
        return false;
}

bool policy_targets_switch(const struct policy *p, const char *name)
{
        for (unsigned i = 0; i < p->n_switches; i++)
                if (fnmatch(p->switches[i], name, 0) == 0)
                        return true;
        return false;
}
