/* SPDX-License-Identifier: MIT */
/* Committed revisions parsed back into policies: the one place that turns a revision's text into a policy. */
#include "agent/journal/journal.h"

int journal_committed_policy(struct journal *j, int64_t rev, struct policy **ret_policy, char **ret_json,
                             struct errbuf *e)
{
        _cleanup_free_ char *json = NULL;
        struct policy *p = NULL;
        int r;

        r = rev > 0 ? journal_revision_get(j, rev, NULL, &json, e)
                    : journal_revision(j, (unsigned)-rev, NULL, NULL, &json, e);
        if (r < 0)
                return r;
        if (json && (r = policy_parse_committed(json, strlen(json), "committed revision", &p, e)) < 0)
                return r;
        *ret_policy = p;
        if (ret_json)
                *ret_json = TAKE_PTR(json);
        return 0;
}
