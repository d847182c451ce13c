/* SPDX-License-Identifier: MIT */
/*
 * metadata.source, metadata.unmanaged and metadata.not_found: where a profile's values
 * come from. A policy that names sources names one for every member it declares in
 * `spec` (a vendor profile carries its citations: document, version, page or file);
 * `unmanaged` lists what the published profile sets that nettune cannot manage (the
 * setting, its value, the source, why) and `not_found` what the sources available did
 * not say. Neither changes what the policy manages: they are its documentation, kept
 * in the document the agents take and read back by `nettunectl conform`.
 */
#include "policies/json/jsonv.h"
#include "policies/policy/policy.h"
#include "policies/policy/policy_spec.h"

#define SOURCE_TEXT_MAX 1200    /* one citation */
#define SOURCE_KEYS_MAX 64
#define UNMANAGED_MAX 32

static int check_text(struct jsonv *v, const json_t *j, const char *what)
{
        const char *s = json_string_value(j);

        if (!json_is_string(j))
                return jsonv_error(v, "expected %s as a string, found %s", what, jsonv_type_name(j));
        if (!*s)
                return jsonv_error(v, "%s must not be empty", what);
        if (strlen(s) >= SOURCE_TEXT_MAX)
                return jsonv_error(v, "%s is %zu bytes, longer than %d", what, strlen(s), SOURCE_TEXT_MAX - 1);
        return 0;
}

int policy_source_parse(struct jsonv *v, const json_t *j, void *obj)
{
        const char *key;
        json_t *val;
        int r = 0;

        (void)obj;
        if (json_object_size(j) > SOURCE_KEYS_MAX)
                return jsonv_error(v, "expected at most %d sources, found %zu", SOURCE_KEYS_MAX, json_object_size(j));
        json_object_foreach((json_t *)j, key, val) {
                jsonv_push_key(v, key);
                if (strncmp(key, "spec.", 5) != 0 || !key[5])
                        r = jsonv_error(v, "a source names a member of spec ('spec.mtu', 'spec.pfc.priorities'), "
                                        "not '%.80s'", key);
                else
                        r = check_text(v, val, "a source");
                jsonv_pop(v);
                if (r < 0)
                        return r;
        }
        return 0;
}

static const struct jsonv_field unmanaged_fields[] = {
        { .key = "setting", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY },
        { .key = "value", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY },
        { .key = "source", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY },
        { .key = "why", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY },
        { 0 },
};

static const struct jsonv_field not_found_fields[] = {
        { .key = "setting", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY },
        { .key = "why", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY },
        { 0 },
};

static int one_unmanaged(struct jsonv *v, const json_t *el, size_t i, void *ctx)
{
        (void)i;
        (void)ctx;
        return jsonv_object(v, el, unmanaged_fields, NULL);
}

static int one_not_found(struct jsonv *v, const json_t *el, size_t i, void *ctx)
{
        (void)i;
        (void)ctx;
        return jsonv_object(v, el, not_found_fields, NULL);
}

int policy_unmanaged_parse(struct jsonv *v, const json_t *j, void *obj)
{
        (void)obj;
        return jsonv_object_array(v, j, "unmanaged setting", "unmanaged settings", 0, UNMANAGED_MAX, one_unmanaged,
                                  NULL);
}

int policy_not_found_parse(struct jsonv *v, const json_t *j, void *obj)
{
        (void)obj;
        return jsonv_object_array(v, j, "setting not found", "settings not found", 0, UNMANAGED_MAX, one_not_found,
                                  NULL);
}

/* Some key of sources is path or lies under it ("spec.pfc" is cited by "spec.pfc" or "spec.pfc.priorities"). */
static bool cited(const json_t *sources, const char *path)
{
        size_t n = strlen(path);
        const char *key;
        json_t *val;

        json_object_foreach((json_t *)sources, key, val)
                if (!strncmp(key, path, n) && (key[n] == '\0' || key[n] == '.'))
                        return true;
        return false;
}

/* Is path (a source's key) a member spec declares? Every key names something the policy sets. */
static bool declared(const json_t *spec, const char *key)
{
        char buf[160], *save = NULL, *part;
        const json_t *at = spec;

        snprintf(buf, sizeof(buf), "%s", key + 5);
        for (part = strtok_r(buf, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
                if (!json_is_object(at))
                        return true;    /* inside a value (a DSCP of the map): its member is cited */
                at = json_object_get(at, part);
                if (!at)
                        return false;
        }
        return true;
}

int policy_sources_check(struct jsonv *v, const json_t *root)
{
        const json_t *md = json_object_get(root, "metadata"), *sources = json_object_get(md, "source");
        const json_t *spec = json_object_get(root, "spec");
        const char *key;
        json_t *val;
        char path[96];
        int r = 0;

        if (!sources)
                return 0;
        jsonv_push_key(v, "metadata");
        jsonv_push_key(v, "source");
        json_object_foreach((json_t *)spec, key, val) {
                snprintf(path, sizeof(path), "spec.%s", key);
                if (streq(key, "pfc") && json_is_object(val)) {
                        const char *sub;
                        json_t *sv;

                        json_object_foreach(val, sub, sv) {
                                snprintf(path, sizeof(path), "spec.pfc.%s", sub);
                                if (!cited(sources, path) && !cited(sources, "spec.pfc"))
                                        r = jsonv_error(v, "'%s' is declared but has no source: every member of "
                                                        "spec needs one when the policy names sources", path);
                                if (r < 0)
                                        break;
                        }
                } else if (!cited(sources, path)) {
                        r = jsonv_error(v, "'%s' is declared but has no source: every member of spec needs one "
                                        "when the policy names sources", path);
                }
                if (r < 0)
                        break;
        }
        json_object_foreach((json_t *)sources, key, val) {
                if (r < 0)
                        break;
                if (!declared(spec, key)) {
                        jsonv_push_key(v, key);
                        r = jsonv_error(v, "'%s' is not declared in spec: a source cites a value the policy sets",
                                        key);
                        jsonv_pop(v);
                }
        }
        jsonv_pop(v);
        jsonv_pop(v);
        return r;
}
