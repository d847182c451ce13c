/* SPDX-License-Identifier: MIT */
/*
 * Reading and parsing documents for the validator: bounded file reads, syntax
 * errors as FILE:LINE:COL, and the JSON path of a duplicate key (jansson reports
 * only the position, so the text up to it is scanned once more).
 */
#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "policies/json/jsonv.h"

struct scan_frame {
        bool object;
        bool want_key;
        size_t index;
        char key[64];
};

struct scan {
        struct scan_frame f[JSONV_DEPTH_MAX];
        size_t depth;           /* may exceed JSONV_DEPTH_MAX: deeper frames are not kept */
};

/* Read a string token starting after the quote; returns the offset after the closing quote. */
static size_t scan_string(const char *buf, size_t i, size_t end, char *out, size_t size)
{
        size_t o = 0;

        for (; i < end && buf[i] != '"'; i++) {
                if (buf[i] == '\\' && i + 1 < end)
                        i++;
                if (out && o + 1 < size)
                        out[o++] = buf[i];
        }
        if (out && size)
                out[o] = '\0';
        return i + 1;
}

static void scan_open(struct scan *s, bool object)
{
        if (s->depth < JSONV_DEPTH_MAX)
                s->f[s->depth] = (struct scan_frame){ .object = object, .want_key = object };
        s->depth++;
}

static void scan_token(struct scan *s, const char *buf, size_t *i, size_t end)
{
        struct scan_frame *top = s->depth && s->depth <= JSONV_DEPTH_MAX ? &s->f[s->depth - 1] : NULL;
        char c = buf[*i];

        if (c == '{' || c == '[') {
                scan_open(s, c == '{');
        } else if ((c == '}' || c == ']') && s->depth) {
                s->depth--;
        } else if (c == ',' && top) {
                top->index++;
                top->want_key = top->object;
        } else if (c == ':' && top) {
                top->want_key = false;
        } else if (c == '"') {
                bool key = top && top->object && top->want_key;

                *i = scan_string(buf, *i + 1, end, key ? top->key : NULL, sizeof(top->key));
                return;
        }
        (*i)++;
}

/* The path of the key whose string ends at `pos` (the duplicate jansson stopped at). */
static void duplicate_path(const char *buf, size_t pos, struct jsonv *v, char *ret_key, size_t size)
{
        struct scan s = { .depth = 0 };
        size_t i = 0, n;

        while (i < pos)
                scan_token(&s, buf, &i, pos);
        n = s.depth < JSONV_DEPTH_MAX ? s.depth : JSONV_DEPTH_MAX;
        for (size_t k = 0; k < n; k++) {
                if (k + 1 == n)
                        break;
                if (s.f[k].object)
                        jsonv_push_key(v, s.f[k].key);
                else
                        jsonv_push_index(v, s.f[k].index);
        }
        snprintf(ret_key, size, "%s", n ? s.f[n - 1].key : "");
}

static int syntax_error(const char *buf, size_t len, const char *file, const json_error_t *je,
                        struct errbuf *e)
{
        char where[sizeof(e->where)], q[80], key[64];
        struct jsonv v;

        snprintf(where, sizeof(where), "%s:%d:%d", file ? file : "<input>", je->line, je->column);
        if (json_error_code(je) != json_error_duplicate_key || (size_t)je->position > len)
                return errbuf_set(e, EINVAL, where, "%s", je->text);
        jsonv_init(&v, NULL, NULL);
        duplicate_path(buf, (size_t)je->position, &v, key, sizeof(key));
        jsonv_push_key(&v, key);
        return errbuf_set(e, EINVAL, where, "%s: duplicate key '%s'", v.path, jsonv_quote(key, q, sizeof(q)));
}

int jsonv_parse(const char *buf, size_t len, const char *file, size_t max, json_t **ret,
                struct errbuf *e)
{
        json_error_t je;
        json_t *j;

        if (len > max)
                return errbuf_set(e, EINVAL, file, "document is %zu bytes, larger than the limit of %zu bytes",
                                  len, max);
        if (len == 0)
                return errbuf_set(e, EINVAL, file, "document is empty");
        j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
        if (!j)
                return syntax_error(buf, len, file, &je, e);
        *ret = j;
        return 0;
}

static int io_error(struct errbuf *e, int err, const char *path)
{
        char msg[128];

        snprintf(msg, sizeof(msg), "%s", strerror(err));
        msg[0] = (char)tolower((unsigned char)msg[0]);
        return errbuf_set(e, err, path, "cannot read: %s", msg);
}

/*
 * The whole file into *buf (size bytes to start with, grown as it comes, up to max + 1
 * to tell a document over the limit), NUL-terminated.
 */
static int read_all(int fd, const char *path, size_t max, size_t size, char **buf, size_t *ret_len,
                    struct errbuf *e)
{
        size_t len = 0;

        for (;;) {
                ssize_t n;

                if (len + 1 >= size && size < max + 2) {
                        size_t grown = size * 2 < max + 2 ? size * 2 : max + 2;
                        char *more = realloc(*buf, grown);

                        if (!more)
                                return errbuf_set(e, ENOMEM, path, "out of memory");
                        *buf = more;
                        size = grown;
                }
                n = read(fd, *buf + len, size - 1 - len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return io_error(e, errno, path);
                if (n == 0)
                        break;
                len += (size_t)n;
                if (len > max)
                        return errbuf_set(e, EINVAL, path,
                                          "document is larger than the limit of %zu bytes", max);
        }
        (*buf)[len] = '\0';
        *ret_len = len;
        return 0;
}

int jsonv_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len, struct errbuf *e)
{
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t size;
        int r;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return io_error(e, errno, path);
        if (fstat(fd, &st) < 0)
                return io_error(e, errno, path);
        if (S_ISDIR(st.st_mode))
                return io_error(e, EISDIR, path);
        if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max)
                return errbuf_set(e, EINVAL, path, "document is %lld bytes, larger than the limit of %zu bytes",
                                  (long long)st.st_size, max);
        /* The file's size and a little (it may grow): not the limit's megabyte every time. */
        size = S_ISREG(st.st_mode) ? (size_t)st.st_size + 64 : 4096;
        if (size > max + 2)
                size = max + 2;
        buf = malloc(size);
        if (!buf)
                return errbuf_set(e, ENOMEM, path, "out of memory");
        r = read_all(fd, path, max, size, &buf, ret_len, e);
        if (r < 0)
                return r;
        *ret_buf = TAKE_PTR(buf);
        return 0;
}
