/* SPDX-License-Identifier: MIT */
/*
 * The state directory's own record that a journal exists (<state_dir>/journal.marker),
 * so that a journal that vanished, or was reset to 0 bytes with its WAL gone, is told
 * apart from a first start: with the marker there and no journal to read, the
 * journal is refused (-ENODATA), naming what the marker knows of the transaction
 * that was in flight and the way to recover. The marker is written when a journal is
 * first opened (durably: file and directory), and again when a transaction begins
 * (its id, kind, policy and targets) and when it ends (in_flight null). Those two are
 * written in place, not synced: an apply's latency is its fsyncs, and what they
 * protect is a hint — a marker that still names a finished transaction only names
 * interfaces to check, and the marker's existence, which is what tells a lost
 * journal from a first start, is durable from the start. A JSON object:
 *   {"journal": "journal.db", "since_ms": N, "in_flight": null | {"tx": N, "kind": K,
 *    "policy": P, "targets": [NAME, ...], "started_ms": N}}
 */
#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>

#include "agent/journal/journal_internal.h"
#include "common/statedir.h"

#define MARKER_MAX 65536
#define TARGETS_MAX 64

static void sync_dir(const char *dir)
{
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd >= 0) {
                fsync(fd);
                close(fd);
        }
}

/*
 * Write the marker's text in place (over the old, then cut to its length: never an
 * empty file between): 0 or -errno with e. durable: sync the file and, for a new
 * entry, the directory. A marker torn by a crash still exists, which is what tells a
 * lost journal from a first start; its unreadable text is said so.
 */
static int marker_put(const char *dir, const char *text, bool durable, bool new_entry, struct errbuf *e)
{
        char path[512];
        size_t len = strlen(text);
        int fd = statedir_open(dir, JOURNAL_MARKER, path, sizeof(path), e), r = 0;

        if (fd < 0)
                return fd;
        if (pwrite(fd, text, len, 0) != (ssize_t)len || ftruncate(fd, (off_t)len) < 0 || (durable && fsync(fd) < 0))
                r = errno ? -errno : -EIO;
        close(fd);
        if (r < 0)
                return errbuf_set(e, -r, path, "cannot write the journal's marker: %s", strerror(-r));
        if (new_entry)
                sync_dir(dir);
        return 0;
}

static char *marker_text(int64_t since_ms, json_t *in_flight)
{
        json_t *j = json_pack("{s:s, s:I, s:o}", "journal", JOURNAL_FILE, "since_ms", (json_int_t)since_ms,
                              "in_flight", in_flight ? in_flight : json_null());
        char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

        json_decref(j);
        return s;
}

/* The marker as JSON; NULL when there is none (or it cannot be read: -errno in *err). */
static json_t *marker_read(const char *dir, int *err)
{
        char path[512];
        json_t *j;

        snprintf(path, sizeof(path), "%s/%s", dir, JOURNAL_MARKER);
        *err = 0;
        j = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
        if (!j)
                *err = access(path, F_OK) == 0 ? -EBADMSG : -ENOENT;
        return j;
}

/* Size of DIR/NAME, -1 when it does not exist. */
static long long size_of(const char *dir, const char *name)
{
        char path[512];
        struct stat st;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        return stat(path, &st) < 0 ? -1 : (long long)st.st_size;
}

/* "transaction N (KIND of policy 'P'), which may have left changed: 'a', 'b'", of the marker's in_flight. */
static const char *str_or(const json_t *v, const char *dflt)
{
        return json_is_string(v) ? json_string_value(v) : dflt;
}

static void in_flight_text(const json_t *f, char *buf, size_t size)
{
        const json_t *t = json_object_get(f, "targets"), *v;
        size_t used, i;

        used = (size_t)snprintf(buf, size, "transaction %" JSON_INTEGER_FORMAT " (%s of policy '%s'), which may have "
                                "left changed: ", json_integer_value(json_object_get(f, "tx")),
                                str_or(json_object_get(f, "kind"), "?"), str_or(json_object_get(f, "policy"), "?"));
        json_array_foreach(t, i, v)
                if (used < size)
                        used += (size_t)snprintf(buf + used, size - used, "%s'%s'", i ? ", " : "",
                                                 str_or(v, "?"));
        if (!json_array_size(t) && used < size)
                snprintf(buf + used, size - used, "(no target recorded)");
}

int journal_lost(const char *state_dir, char *what, size_t size)
{
        long long db = size_of(state_dir, JOURNAL_FILE), wal = size_of(state_dir, JOURNAL_FILE "-wal");
        const json_t *f;
        json_t *m;
        int err;

        what[0] = '\0';
        if (db > 0 || wal > 0)
                return 0;
        m = marker_read(state_dir, &err);
        if (!m && err == -ENOENT)
                return 0;               /* no journal, no marker: a first start */
        f = json_object_get(m, "in_flight");
        if (json_is_object(f))
                in_flight_text(f, what, size);
        else if (m)
                snprintf(what, size, "no transaction was recorded in flight");
        else
                snprintf(what, size, "the marker is unreadable: whether a transaction was in flight is unknown");
        json_decref(m);
        return 1;
}

int journal_marker_check(const char *state_dir, struct errbuf *e)
{
        char what[768], path[512];

        if (journal_lost(state_dir, what, sizeof(what)) == 0)
                return 0;
        snprintf(path, sizeof(path), "%s/%s", state_dir, JOURNAL_FILE);
        return errbuf_set(e, ENODATA, path, "the journal is lost: %s, but %s/%s records that a journal existed; the "
                          "last transaction it recorded in flight: %s; check those interfaces (nettune-agent state) "
                          "and set them as they should be, then run 'nettune-agent --config FILE journal-recover' "
                          "to start a new journal (docs/operations.md, \"A lost journal\")",
                          size_of(state_dir, JOURNAL_FILE) < 0 ? "it is missing" : "it is empty (0 bytes, no WAL)",
                          state_dir, JOURNAL_MARKER, what);
}

int journal_marker_create(const char *state_dir, struct errbuf *e)
{
        _cleanup_free_ char *text = NULL;
        int err;
        json_t *m = marker_read(state_dir, &err);

        json_decref(m);
        if (m || err != -ENOENT)
                return 0;
        text = marker_text(journal_now_ms(), NULL);
        if (!text)
                return errbuf_set(e, ENOMEM, state_dir, "out of memory");
        return marker_put(state_dir, text, true, true, e);
}

int journal_marker_forget(const char *state_dir, char *kept, size_t size, struct errbuf *e)
{
        char from[512], to[512];

        snprintf(from, sizeof(from), "%s/%s", state_dir, JOURNAL_MARKER);
        snprintf(to, sizeof(to), "%s/%s.lost-%lld", state_dir, JOURNAL_MARKER, (long long)journal_now_ms());
        if (rename(from, to) < 0)
                return errbuf_set(e, errno, from, "cannot keep the lost journal's marker as '%s': %s", to,
                                  strerror(errno));
        sync_dir(state_dir);
        snprintf(kept, size, "%s", to);
        return 0;
}

void journal_marker_begin(const char *state_dir, int64_t tx, const char *kind, const char *policy,
                          const char *changes_json)
{
        json_t *changes = changes_json ? json_loads(changes_json, 0, NULL) : NULL, *targets = json_array(), *v, *m;
        _cleanup_free_ char *text = NULL;
        int64_t since = journal_now_ms();
        size_t i;
        int err;

        json_array_foreach(changes, i, v) {
                const char *t = json_string_value(json_object_get(v, "target"));
                bool seen = false;
                size_t k;
                json_t *w;

                json_array_foreach(targets, k, w)
                        seen |= t && streq(json_string_value(w), t);
                if (t && !seen && json_array_size(targets) < TARGETS_MAX)
                        json_array_append_new(targets, json_string(t));
        }
        json_decref(changes);
        m = marker_read(state_dir, &err);
        if (json_is_integer(json_object_get(m, "since_ms")))
                since = json_integer_value(json_object_get(m, "since_ms"));
        json_decref(m);
        text = marker_text(since, json_pack("{s:I, s:s, s:s, s:o, s:I}", "tx", (json_int_t)tx, "kind", kind,
                                            "policy", policy ? policy : "", "targets", targets,
                                            "started_ms", (json_int_t)journal_now_ms()));
        if (text && strlen(text) < MARKER_MAX)
                marker_put(state_dir, text, false, false, NULL);
}

void journal_marker_end(const char *state_dir, int64_t tx)
{
        _cleanup_free_ char *text = NULL;
        int err;
        json_t *m = marker_read(state_dir, &err);
        const json_t *f = json_object_get(m, "in_flight");

        if (json_is_object(f) && json_integer_value(json_object_get(f, "tx")) == tx &&
            json_is_integer(json_object_get(m, "since_ms")))
                text = marker_text(json_integer_value(json_object_get(m, "since_ms")), NULL);
        json_decref(m);
        if (text)
                marker_put(state_dir, text, false, false, NULL);
}
