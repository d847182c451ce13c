/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the doctor's facts (an agent's GET /v1/doctor answer, a
 * --facts file): any input must parse or fail cleanly with a message, every accepted
 * document must survive the round trip unchanged, and the rules, the report and the
 * proposal must run over it without crash, leak or undefined behaviour (every
 * proposal they write must be a policy the parser accepts).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policies/doctor/doctor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *text(const struct doctor_facts *f)
{
        json_t *j = doctor_facts_to_json(f);
        char *t;

        if (!j)
                abort();
        t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(j);
        if (!t)
                abort();
        return t;
}

static void judge(const struct doctor_facts *f)
{
        struct doctor_params p;
        struct doctor_report r;
        struct errbuf e = { 0 };
        char *doc = NULL;
        json_t *j;

        doctor_params_default(&p);
        doctor_report_init(&r);
        if (doctor_run(f, &p, &r) < 0)
                abort();
        j = doctor_report_to_json(&r, f);
        if (!j)
                abort();
        json_decref(j);
        if (doctor_proposal_policy(&r, "fuzz", NULL, 0, &doc, &e) < 0)
                abort();                /* a proposal the policy parser refuses */
        free(doc);
        doctor_report_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct doctor_facts f, again;
        struct errbuf e = { 0 };
        json_t *j, *k;
        char *a, *b;

        j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
        if (!j)
                return 0;
        if (doctor_facts_from_json(j, "fuzz", &f, &e) < 0) {
                if (!e.msg[0])
                        abort();        /* a refusal without a message */
                json_decref(j);
                return 0;
        }
        json_decref(j);
        a = text(&f);
        k = json_loads(a, 0, NULL);
        if (!k || doctor_facts_from_json(k, "again", &again, &e) < 0)
                abort();                /* our own output must be accepted */
        json_decref(k);
        b = text(&again);
        if (strcmp(a, b) != 0)
                abort();                /* and stable */
        judge(&f);
        free(a);
        free(b);
        doctor_facts_free(&f);
        doctor_facts_free(&again);
        return 0;
}
