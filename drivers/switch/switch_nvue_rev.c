/* SPDX-License-Identifier: MIT */
/*
 * NVUE revisions (NVREF Config-Commands: nv config revision, diff, detach, apply
 * --confirm / --confirm-status; CL 5.12 NVUE-CLI): which revision is whose.
 *
 * An `nv set` or `nv unset` opens a pending revision when none is open, and every later
 * edit joins it — whoever makes it, and also when it changes nothing (`nv config diff`
 * is empty then). `nv config apply` applies that revision; a failed apply, or an edit
 * that never reached its apply, leaves it open, and the next `nv config apply` by
 * anyone would push it. So nettune:
 *   - refuses to edit while a revision it did not open is open, naming it;
 *   - takes the revision its first edit opened as the one it staged (ledger);
 *   - detaches that revision on every path that ends without its apply;
 *   - confirms or cancels only the revision awaiting confirmation that is that one.
 * The `--confirm-status` text is documented by its meaning only: it is read
 * tolerantly, and a text that says neither "nothing pending" nor a time left is a
 * refusal, not a guess.
 */
#include <ctype.h>

#include "drivers/switch/switch_internal.h"

#define NV_REVISIONS "nv config revision -o json"
#define NV_STATUS "nv config apply --confirm-status"
#define NV_AUTO_SAVE "nv show system config auto-save -o json"

int nvue_load(const char *text, const char *where, const char *cmd, json_t **ret, struct errbuf *e)
{
        json_error_t err;
        json_t *j = json_loads(text ? text : "", JSON_REJECT_DUPLICATES, &err);

        if (!j || !json_is_object(j)) {
                json_decref(j);
                return errbuf_set(e, EBADMSG, where, "'%s' printed invalid JSON (line %d column %d: %s)",
                                  cmd, err.line, err.column, j ? "not an object" : err.text);
        }
        *ret = j;
        return 0;
}

int nvue_revisions(struct switch_session *s, struct nvue_revs *ret, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        json_t *j = NULL, *v;
        const char *k;
        uint64_t id;
        int r = switch_run(s, NV_REVISIONS, NULL, &out, e);

        if (r >= 0)
                r = nvue_load(out, s->where, NV_REVISIONS, &j, e);
        if (r < 0)
                return r;
        *ret = (struct nvue_revs){ .max = 0, .confirm = -1, .pending = -1 };
        json_object_foreach(j, k, v) {
                const char *state = json_string_value(switch_member(v, "state"));

                if (switch_parse_uint(k, 0, INT32_MAX, &id) < 0)
                        continue;       /* named revisions (applied, startup, ...) */
                if ((long long)id > ret->max)
                        ret->max = (long long)id;
                if (streq(state, "confirm"))
                        ret->confirm = (long long)id;
                if (streq(state, "pending") && (long long)id > ret->pending)
                        ret->pending = (long long)id;
        }
        json_decref(j);
        return 0;
}

/* ---- the confirm status and auto-save, as the switch says them ---- */

/* Seconds of a unit word ("s", "sec", "seconds", "m", "min", "minutes", "h", "hours"); 0 not a unit. */
static unsigned long unit_of(const char *w, size_t n)
{
        static const struct {
                const char *word;
                unsigned long s;
        } units[] = {
                { "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 }, { "seconds", 1 },
                { "m", 60 }, { "min", 60 }, { "mins", 60 }, { "minute", 60 }, { "minutes", 60 },
                { "h", 3600 }, { "hour", 3600 }, { "hours", 3600 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(units); i++)
                if (strlen(units[i].word) == n && !strncmp(units[i].word, w, n))
                        return units[i].s;
        return 0;
}

/* Every "N unit" of the text summed ("9m 58s", "598 seconds left"); false when none. */
static bool time_left(const char *t, unsigned long *ret)
{
        unsigned long sum = 0;
        bool any = false;

        while (*t) {
                unsigned long v = 0, u;
                const char *w;

                if (!isdigit((unsigned char)*t)) {
                        t++;
                        continue;
                }
                while (isdigit((unsigned char)*t) && v < 100000000)
                        v = v * 10 + (unsigned long)(*t++ - '0');
                while (*t == ' ')
                        t++;
                for (w = t; isalpha((unsigned char)*t); t++)
                        ;
                if ((u = unit_of(w, (size_t)(t - w)))) {
                        sum += v * u;
                        any = true;
                }
        }
        *ret = sum;
        return any;
}

int switch_nvue_confirm_status(const char *text, unsigned long *ret_left)
{
        static const char *const none[] = { "no pending", "not pending", "nothing", "no confirm", "no apply" };
        char t[512];
        size_t n = 0;

        for (const char *p = text ? text : ""; *p && n + 1 < sizeof(t); p++)
                t[n++] = (char)tolower((unsigned char)*p);
        t[n] = '\0';
        while (n && isspace((unsigned char)t[n - 1]))
                t[--n] = '\0';
        *ret_left = 0;
        for (size_t i = 0; i < ARRAY_SIZE(none); i++)
                if (strstr(t, none[i]))
                        return 0;
        if (time_left(t, ret_left))
                return 1;
        return strstr(t, "pending") || strstr(t, "await") || strstr(t, "remaining") ? 1 : -EBADMSG;
}

int switch_nvue_parse_auto_save(const char *text, bool *ret_on)
{
        json_t *j = json_loads(text ? text : "", 0, NULL);
        const char *en = json_string_value(switch_member(j, "enable")), *st = json_string_value(switch_member(j, "state"));
        int r = 0;

        if (streq(en, "on") || streq(st, "enabled"))
                *ret_on = true;
        else if (streq(en, "off") || streq(st, "disabled"))
                *ret_on = false;
        else
                r = -EBADMSG;
        json_decref(j);
        return r;
}

/*
 * Cumulus Linux 5.9 and later save on every apply by default (NVREF "nv config apply";
 * 5.10 spells it `state enabled`, 5.9 `enable on`); 5.8 and earlier do not. Unreadable
 * (a release without the command): taken as off, and said.
 */
void nvue_read_auto_save(struct switch_session *s)
{
        _cleanup_free_ char *out = NULL;
        struct errbuf ignore;
        bool on = false;
        int r = switch_run(s, NV_AUTO_SAVE, NULL, &out, &ignore);

        if (r >= 0)
                r = switch_nvue_parse_auto_save(out, &on);
        if (r < 0 && ssh_session_alive(s->ssh))
                switch_note(s, "auto-save is not readable here ('%s'): taken as off, as before Cumulus Linux 5.9",
                            NV_AUTO_SAVE);
        if (!s->extra)
                s->extra = json_object();
        json_object_set_new(s->extra, "auto_save", json_boolean(on));
}

bool nvue_auto_save(const struct switch_session *s)
{
        return json_is_true(switch_member(s->extra, "auto_save"));
}

/* ---- whose ---- */

static bool is_id(const char *rev, long long id)
{
        char s[24];

        snprintf(s, sizeof(s), "%lld", id);
        return rev[0] && id >= 0 && streq(rev, s);
}

/*
 * The revision `id` (awaiting confirmation, or open) is the one nettune staged: the one
 * recorded, or — when the reply was lost before it could be recorded — the one
 * revision after the base nettune recorded before its first edit.
 */
static bool is_ours(const char *rev, long long base, long long max, long long id)
{
        if (id < 0)
                return false;
        return rev[0] ? is_id(rev, id) : base >= 0 && id == base + 1 && max == id;
}

static char *first_line(char *text)
{
        text[strcspn(text, "\n")] = '\0';
        return text;
}

/* `nv config diff -o json` with nothing pending: empty output, [], {} or null. */
static bool blank(const char *text)
{
        static const char *const empty[] = { "", "[]", "{}", "null" };
        const char *p = text ? text : "";
        size_t n;

        while (isspace((unsigned char)*p))
                p++;
        n = strlen(p);
        while (n && isspace((unsigned char)p[n - 1]))
                n--;
        for (size_t i = 0; i < ARRAY_SIZE(empty); i++)
                if (n == strlen(empty[i]) && !strncmp(p, empty[i], n))
                        return true;
        return false;
}

/* What --confirm-status says: 0 nothing, 1 pending; a text it does not understand is refused. */
static int status(struct switch_session *s, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        unsigned long left;
        int r = switch_run(s, NV_STATUS, NULL, &out, e);

        if (r < 0)
                return r;
        r = switch_nvue_confirm_status(out, &left);
        if (r < 0)
                return errbuf_set(e, EBADMSG, s->where, "'%s' printed '%.60s', which says neither that nothing awaits "
                                  "confirmation nor how long an apply has left; nettune does not guess; nothing was "
                                  "changed", NV_STATUS, first_line(out));
        return r;
}

int nvue_check_foreign(struct switch_session *s, struct errbuf *e)
{
        _cleanup_free_ char *diff = NULL;
        struct nvue_revs rv;
        int r = nvue_revisions(s, &rv, e), st = r >= 0 ? status(s, e) : r;

        if (st < 0)
                return st;
        if (rv.confirm >= 0 || st > 0) {
                char which[48] = "--confirm-status says so";

                if (rv.confirm >= 0)
                        snprintf(which, sizeof(which), "revision %lld", rv.confirm);
                return errbuf_set(e, EBUSY, s->where, "an apply awaits confirmation on the switch (%s) and nettune did "
                                  "not make it; confirm or cancel it first (nv config apply --confirm-status); nothing "
                                  "was changed", which);
        }
        if (rv.pending >= 0 && !(s->staged && is_id(s->rev, rv.pending)))
                return errbuf_set(e, EBUSY, s->where, "revision %lld is open (edits set but not applied, perhaps ones that "
                                  "changed nothing) and nettune did not open it; its edits would join nettune's and "
                                  "nettune would apply them; apply or detach it first (nv config detach); nothing was "
                                  "changed", rv.pending);
        r = switch_run(s, "nv config diff -o json", NULL, &diff, e);
        if (r >= 0 && !blank(diff))
                r = errbuf_set(e, EBUSY, s->where, "the switch has changes that were set but not applied "
                               "(nv config diff); nettune would apply them too; apply or detach them first; "
                               "nothing was changed");
        return r;
}

int nvue_record(struct switch_session *s, struct errbuf *e)
{
        struct switch_own own = { .base_rev = s->base_rev };

        snprintf(own.txid, sizeof(own.txid), "%s", s->txid);
        snprintf(own.rev, sizeof(own.rev), "%s", s->rev);
        return switch_ledger_write(s, &own, e);
}

int nvue_take_staged(struct switch_session *s, struct errbuf *e)
{
        struct nvue_revs rv;
        int r = nvue_revisions(s, &rv, e);

        if (r < 0)
                return r;
        if (rv.pending <= s->base_rev)
                return errbuf_set(e, EBUSY, s->where, "nettune's first edit did not open a revision of its own (open: %lld, "
                                  "newest before the edit: %lld): someone opened one at the same time and nettune's "
                                  "edit joined it; neither applied nor detached by nettune: check it by hand",
                                  rv.pending, s->base_rev);
        snprintf(s->rev, sizeof(s->rev), "%lld", rv.pending);
        s->staged = true;
        return nvue_record(s, e);
}

int nvue_detach_staged(struct switch_session *s, struct errbuf *e)
{
        struct nvue_revs rv;
        int r;

        if (!s->staged)
                return 0;
        r = nvue_revisions(s, &rv, e);
        if (r < 0)
                return r;
        if (!is_id(s->rev, rv.pending)) {
                s->staged = false;              /* applied, detached or gone meanwhile: nothing of ours is open */
                return 0;
        }
        r = switch_run(s, "nv config detach", NULL, NULL, e);
        if (r >= 0)
                r = nvue_revisions(s, &rv, e);
        if (r >= 0 && is_id(s->rev, rv.pending))
                r = errbuf_set(e, EIO, s->where, "revision %s nettune staged is still open after 'nv config detach'",
                               s->rev);
        if (r >= 0)
                s->staged = false;
        return r;
}

/*
 * When the switch's commit timer runs out, by its own count: `--confirm-status` "shows
 * the amount of time left before the automatic rollback" (NVREF Config-Commands, "nv
 * config apply"), and the timer started when the switch took the apply, not when
 * nettune sent it or gave up on it. Unreadable: the switch took the apply before it
 * answered, so its timer ends at the latest timer_s from now (said in a note).
 */
static void read_timer(struct switch_session *s)
{
        _cleanup_free_ char *out = NULL;
        struct errbuf ignore;
        unsigned long left = 0;
        int64_t now = switch_now_ms();

        if (switch_run(s, NV_STATUS, NULL, &out, &ignore) >= 0 && switch_nvue_confirm_status(out, &left) > 0 &&
            left) {
                s->timer_end_ms = now + (int64_t)left * 1000;
                return;
        }
        s->timer_end_ms = now + (int64_t)s->timer_s * 1000;
        if (ssh_session_alive(s->ssh))
                switch_note(s, "'%s' did not say how long the commit timer has left: taken as at most %u s from "
                            "now", NV_STATUS, s->timer_s);
}

int nvue_take_applied(struct switch_session *s, struct errbuf *e)
{
        struct nvue_revs rv;
        int r = nvue_revisions(s, &rv, e);

        if (r < 0)
                return r;
        if (!is_id(s->rev, rv.confirm))
                return errbuf_set(e, EPROTO, s->where, "'nv config apply --confirm' left revision %lld awaiting "
                                  "confirmation, not revision %s that nettune staged", rv.confirm, s->rev);
        s->staged = false;
        read_timer(s);
        return nvue_record(s, e);
}

int nvue_untaken(struct switch_session *s, struct errbuf *e)
{
        struct nvue_revs rv;
        int r = nvue_revisions(s, &rv, e);

        if (r < 0)
                return r;
        if (!is_id(s->rev, rv.pending))
                return 0;               /* taken (awaiting confirmation, applied) or gone */
        r = nvue_detach_staged(s, e);
        return r < 0 ? r : 1;
}

int nvue_ours(struct switch_session *s, const char *what, struct errbuf *e)
{
        struct nvue_revs rv;
        int r = nvue_revisions(s, &rv, e);

        if (r < 0)
                return r;
        if (rv.confirm < 0)
                return errbuf_set(e, ESTALE, s->where, "revision %s nettune applied no longer awaits confirmation "
                                  "(its timer may have expired); nothing to %s", s->rev[0] ? s->rev : "?", what);
        if (!is_ours(s->rev, s->base_rev, rv.max, rv.confirm))
                return errbuf_set(e, EBUSY, s->where, "revision %lld awaits confirmation and nettune did not apply "
                                  "it; not %s", rv.confirm, streq(what, "confirm") ? "confirmed" : "cancelled");
        snprintf(s->rev, sizeof(s->rev), "%lld", rv.confirm);
        return 0;
}

int nvue_adopt_revision(struct switch_session *s, const struct switch_own *own, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        struct nvue_revs rv;
        unsigned long left;
        int r = nvue_revisions(s, &rv, e);

        if (r < 0)
                return r;
        snprintf(s->txid, sizeof(s->txid), "%s", own->txid);
        s->base_rev = own->base_rev;
        if (is_ours(own->rev, own->base_rev, rv.max, rv.pending)) {
                snprintf(s->rev, sizeof(s->rev), "%lld", rv.pending);
                s->staged = true;               /* edited, never applied: the undo detaches it */
                return 0;
        }
        if (!is_ours(own->rev, own->base_rev, rv.max, rv.confirm))
                return 0;
        snprintf(s->rev, sizeof(s->rev), "%lld", rv.confirm);
        s->pending = s->timer = true;
        if (switch_run(s, NV_STATUS, NULL, &out, e) >= 0 && switch_nvue_confirm_status(out, &left) > 0 && left) {
                s->timer_s = (unsigned)left;
                s->timer_end_ms = switch_now_ms() + (int64_t)left * 1000;
        }
        return 0;
}
