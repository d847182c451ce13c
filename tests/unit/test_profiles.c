/* SPDX-License-Identifier: MIT */
/*
 * The vendor reference profiles (policies/profiles/vendor/): every one validates, cites
 * a source for every member of spec it declares, lists what nettune cannot manage, and
 * carries the values its sources print (the CNP DSCP drift between NCO 26.7 and 26.10).
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "policies/json/jsonv.h"
#include "policies/policy/policy.h"

#define VENDOR "policies/profiles/vendor/"

static const char *const shipped[] = {
        "nvue-roce-lossless-cl5", "nvue-roce-lossy-cl5", "nco-roce-optimized-26-7", "nco-roce-optimized-26-10",
        "sonic-default-lossless", "arista-avd-qos-test",
};

static bool cited(const json_t *src, const char *path)
{
        const char *key;
        json_t *v;
        size_t n = strlen(path);

        json_object_foreach((json_t *)src, key, v)
                if (!strncmp(key, path, n) && (!key[n] || key[n] == '.') && json_string_length(v) > 20)
                        return true;
        return false;
}

static void test_every_profile_valid_and_cited(void)
{
        DIR *d = opendir(VENDOR);
        struct dirent *de;
        unsigned n = 0;

        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        while ((de = readdir(d))) {
                char path[300], sub[96];
                struct policy *p = NULL;
                struct errbuf e = { 0 };
                json_error_t je;
                json_t *doc, *spec, *src, *val, *pv;
                const char *key, *k2;

                if (!strstr(de->d_name, ".json"))
                        continue;
                snprintf(path, sizeof(path), VENDOR "%s", de->d_name);
                CU_ASSERT_EQUAL(policy_load_file(path, &p, &e), 0);
                if (e.msg[0])
                        printf("\n%s: %s\n", e.where, e.msg);
                /* the file is named after the policy */
                if (p)
                        CU_ASSERT_EQUAL(strncmp(de->d_name, p->name, strlen(p->name)), 0);
                policy_free(p);
                doc = json_load_file(path, 0, &je);
                CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
                spec = json_object_get(doc, "spec");
                src = json_object_get(json_object_get(doc, "metadata"), "source");
                CU_ASSERT_TRUE(json_object_size(src) > 0);
                json_object_foreach(spec, key, val) {
                        snprintf(sub, sizeof(sub), "spec.%s", key);
                        if (streq(key, "pfc"))
                                json_object_foreach(val, k2, pv) {
                                        snprintf(sub, sizeof(sub), "spec.pfc.%s", k2);
                                        CU_ASSERT_TRUE(cited(src, sub) || cited(src, "spec.pfc"));
                                }
                        else
                                CU_ASSERT_TRUE(cited(src, sub));
                }
                /* what the vendor sets beyond nettune is listed, never dropped */
                CU_ASSERT_TRUE(json_array_size(json_object_get(json_object_get(doc, "metadata"), "unmanaged")) > 0);
                json_decref(doc);
                n++;
        }
        closedir(d);
        CU_ASSERT_EQUAL(n, ARRAY_SIZE(shipped));
        for (size_t i = 0; i < ARRAY_SIZE(shipped); i++) {
                char path[300];
                FILE *f;

                snprintf(path, sizeof(path), VENDOR "%s.json", shipped[i]);
                f = fopen(path, "r");
                CU_ASSERT_PTR_NOT_NULL(f);
                if (f)
                        fclose(f);
        }
}

static struct policy *load(const char *name)
{
        char path[300];
        struct policy *p = NULL;
        struct errbuf e = { 0 };

        snprintf(path, sizeof(path), VENDOR "%s.json", name);
        CU_ASSERT_EQUAL(policy_load_file(path, &p, &e), 0);
        return p;
}

static void test_values_as_published(void)
{
        struct policy *nco7 = load("nco-roce-optimized-26-7"), *nco10 = load("nco-roce-optimized-26-10");
        struct policy *nvue = load("nvue-roce-lossless-cl5"), *sonic = load("sonic-default-lossless");

        CU_ASSERT_PTR_NOT_NULL_FATAL(nco7);
        CU_ASSERT_PTR_NOT_NULL_FATAL(nco10);
        CU_ASSERT_PTR_NOT_NULL_FATAL(nvue);
        CU_ASSERT_PTR_NOT_NULL_FATAL(sonic);
        /* NCO: CNP DSCP 4 in the 26.7 docs, 48 in 26.10; priority 6 in both */
        CU_ASSERT_EQUAL(nco7->spec.host_ecn.cnp_dscp, 4);
        CU_ASSERT_EQUAL(nco10->spec.host_ecn.cnp_dscp, 48);
        CU_ASSERT_EQUAL(nco7->spec.host_ecn.cnp_prio, 6);
        CU_ASSERT_EQUAL(nco7->spec.pfc_enabled, 1u << 3);
        /* NVUE lossless: 48..55 -> 6, 26 -> 3, PFC on 3 */
        for (int d = 48; d <= 55; d++)
                CU_ASSERT_EQUAL(nvue->spec.dscp_prio[d], 6);
        CU_ASSERT_EQUAL(nvue->spec.dscp_prio[26], 3);
        CU_ASSERT_EQUAL(nvue->spec.dscp_prio[4], 0);
        CU_ASSERT_EQUAL(nvue->spec.pfc_enabled, 1u << 3);
        /* SONiC: PFC 3,4; AZURE map 3 -> 3, 4 -> 4, 48 -> 6, 8 -> 0 */
        CU_ASSERT_EQUAL(sonic->spec.pfc_enabled, (1u << 3) | (1u << 4));
        CU_ASSERT_EQUAL(sonic->spec.dscp_prio[48], 6);
        CU_ASSERT_EQUAL(sonic->spec.dscp_prio[8], 0);
        CU_ASSERT_EQUAL(sonic->spec.dscp_prio[26], 1);
        policy_free(nco7);
        policy_free(nco10);
        policy_free(nvue);
        policy_free(sonic);
}

int suite_profiles(void)
{
        CU_pSuite s = CU_add_suite("profiles", NULL, NULL);

        if (!s || !CU_add_test(s, "every_profile_valid_and_cited", test_every_profile_valid_and_cited) ||
            !CU_add_test(s, "values_as_published", test_values_as_published))
                return -1;
        return 0;
}
