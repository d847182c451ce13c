/* SPDX-License-Identifier: MIT */
/* The "nccl-conf" driver: NCCL's configuration file (see nccl_conf.h). */
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>

#include "common/util.h"
#include "drivers/host/nccl_conf.h"
#include "drivers/host/roce_tos.h"

static const char *conf_of(const struct target *t)
{
        return t->env && t->env->nccl_conf[0] ? t->env->nccl_conf : NCCL_CONF_DEFAULT;
}

/* The managed name a line sets (NCCL's rule: not a comment, the bytes before the first '='), or -1. */
static int line_key(const char *line, size_t len)
{
        const char *eq = line[0] != '#' ? memchr(line, '=', len) : NULL;

        for (unsigned k = 0; eq && k < STATE_NCCL_KEYS; k++)
                if ((size_t)(eq - line) == strlen(state_nccl_env_names[k]) &&
                    !memcmp(line, state_nccl_env_names[k], (size_t)(eq - line)))
                        return (int)k;
        return -1;
}

static bool printable(const char *s, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\r') || (unsigned char)s[i] >= 0x7f)
                        return false;
        return true;
}

/* ncclLoadParam(): strtoll(value, NULL, 0); an error (out of range) is the default, 0. */
static uint8_t nccl_value(const char *value)
{
        long long v;

        errno = 0;
        v = strtoll(value, NULL, 0);
        return errno ? 0 : (uint8_t)v;
}

int nccl_conf_parse(const char *text, size_t len, struct state_nccl *ret, struct errbuf *e)
{
        unsigned lineno = 0;

        memset(ret, 0, sizeof(*ret));
        ret->read = true;
        ret->exists = true;
        ret->empty = len == 0;
        ret->eol = len == 0 || text[len - 1] == '\n';
        for (size_t pos = 0; pos < len; lineno++) {
                const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - line) : len - pos;
                int k = line_key(line, n);
                char value[STATE_NCCL_LINE_MAX];

                pos += n + (nl ? 1 : 0);
                if (k < 0 || ret->line[k][0])
                        continue;
                if (n >= STATE_NCCL_LINE_MAX || !printable(line, n))
                        return errbuf_set(e, EINVAL, NULL, "line %u (%s) is longer than %d bytes or holds bytes "
                                          "other than printable ASCII; nettune leaves such a line alone", lineno + 1,
                                          state_nccl_env_names[k], STATE_NCCL_LINE_MAX - 1);
                memcpy(ret->line[k], line, n);
                ret->line[k][n] = '\0';
                snprintf(value, sizeof(value), "%s", ret->line[k] + strlen(state_nccl_env_names[k]) + 1);
                if (!value[0])
                        continue;       /* set, but empty: NCCL's default (ncclLoadParam: strlen(str) > 0) */
                ret->has |= (uint8_t)(1u << k);
                ret->value[k] = nccl_value(value);
        }
        return 0;
}

struct outbuf {
        char *p;
        size_t n, cap;
        bool failed;
};

static void put(struct outbuf *o, const char *s, size_t n)
{
        if (o->failed)
                return;
        if (o->n + n + 1 > o->cap) {
                size_t cap = (o->n + n + 1) * 2;
                char *p = realloc(o->p, cap);

                if (!p) {
                        o->failed = true;
                        return;
                }
                o->p = p;
                o->cap = cap;
        }
        memcpy(o->p + o->n, s, n);
        o->n += n;
        o->p[o->n] = '\0';
}

/* The line a key is to have: "NAME=V" (a policy) or the line read (a snapshot; "" none). */
static void wanted_line(const struct state_nccl *want, unsigned k, char *buf, size_t size)
{
        if (want->read)
                snprintf(buf, size, "%s", want->line[k]);
        else
                snprintf(buf, size, "%s=%u", state_nccl_env_names[k], want->value[k]);
}

int nccl_conf_edit(const char *text, size_t len, const struct state_nccl *want, unsigned keys, char **ret,
                   size_t *ret_len)
{
        struct outbuf o = { 0 };
        unsigned done = 0;
        char line[STATE_NCCL_LINE_MAX + 32];

        put(&o, "", 0);
        for (size_t pos = 0; pos < len;) {
                const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - l) : len - pos;
                int k = line_key(l, n);

                pos += n + (nl ? 1 : 0);
                if (k < 0 || !(keys & (1u << k)) || (done & (1u << k))) {
                        put(&o, l, n + (nl ? 1 : 0));
                        continue;
                }
                done |= 1u << k;
                wanted_line(want, (unsigned)k, line, sizeof(line));
                if (line[0]) {
                        put(&o, line, strlen(line));
                        put(&o, "\n", nl ? 1 : 0);
                }
        }
        for (unsigned k = 0; k < STATE_NCCL_KEYS; k++) {
                if (!(keys & (1u << k)) || (done & (1u << k)))
                        continue;
                wanted_line(want, k, line, sizeof(line));
                if (!line[0])
                        continue;
                if (o.n && o.p[o.n - 1] != '\n')
                        put(&o, "\n", 1);
                put(&o, line, strlen(line));
                put(&o, "\n", 1);
        }
        if (!o.failed && want->read && !want->eol && o.n && o.p[o.n - 1] == '\n')
                o.p[--o.n] = '\0';
        if (o.failed) {
                free(o.p);
                return -ENOMEM;
        }
        *ret = o.p;
        *ret_len = o.n;
        return 0;
}

/* ---- the file ---- */

/* The whole file into *ret (NUL-terminated); -ENOENT when there is none. */
static int read_file(const char *path, char **ret, size_t *ret_len)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct stat st;
        char *p;
        size_t n = 0;

        if (fd < 0)
                return errno == ELOOP ? -EINVAL : -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        if ((uint64_t)st.st_size > NCCL_CONF_MAX)
                return -EFBIG;
        if (!(p = malloc((size_t)st.st_size + 1)))
                return -ENOMEM;
        for (;;) {
                ssize_t k = read(fd, p + n, (size_t)st.st_size - n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0) {
                        free(p);
                        return -errno;
                }
                if (k == 0 || (n += (size_t)k) == (size_t)st.st_size)
                        break;
        }
        p[n] = '\0';
        *ret = p;
        *ret_len = n;
        return 0;
}

static int read_conf(const struct target *t, struct state_nccl *ret, struct errbuf *e)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_file(conf_of(t), &text, &len);

        if (r == -ENOENT) {
                *ret = (struct state_nccl){ .read = true, .exists = false, .eol = true, .empty = true };
                return 0;
        }
        if (r == -EACCES)       /* a permission this user lacks: refused as a write it may not make (exit 2) */
                return errbuf_set(e, EPERM, NULL, "NCCL configuration '%s' cannot be read by this user (uid %u); "
                                  "nothing was changed", conf_of(t), (unsigned)geteuid());
        if (r < 0)
                return errbuf_set(e, -r, NULL, "NCCL configuration '%s' %s; nothing was changed", conf_of(t),
                                  r == -EINVAL ? "is not a regular file (a link?): nettune manages a regular file only"
                                  : r == -EFBIG ? "is larger than 1 MiB" : strerror(-r));
        r = nccl_conf_parse(text, len, ret, e);
        if (r < 0)
                errbuf_prefix(e, "NCCL configuration '%s'", conf_of(t));
        return r;
}

static void dir_of(const char *path, char *buf, size_t size)
{
        char copy[PATH_MAX];

        snprintf(copy, sizeof(copy), "%s", path);
        snprintf(buf, size, "%s", dirname(copy));
}

/* The file writable here: a regular file (not a link) or none, in a directory this user may write. */
static int check_conf(const struct target *t, struct errbuf *e)
{
        const char *path = conf_of(t);
        char dir[PATH_MAX];
        struct stat st;

        dir_of(path, dir, sizeof(dir));
        if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
                return errbuf_set(e, EINVAL, NULL, "NCCL configuration '%s' is not a regular file (a link?): "
                                  "nettune replaces regular files only; nothing was changed", path);
        if (access(dir, W_OK) < 0)
                return errbuf_set(e, errno == EACCES ? EPERM : errno, NULL, "NCCL configuration '%s': its directory '%s' is not writable "
                                  "(%s); nothing was changed", path, dir, strerror(errno));
        return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
        while (n) {
                ssize_t k = write(fd, p, n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                p += k;
                n -= (size_t)k;
        }
        return 0;
}

/* text over path: a temporary file beside it with the old one's mode and owner, synced, renamed. */
static int replace_file(const char *path, const char *text, size_t len, struct errbuf *e)
{
        char dir[PATH_MAX], tmp[PATH_MAX + 32];
        _cleanup_close_ int fd = -1;
        _cleanup_close_ int dfd = -1;
        struct stat st;
        bool old = stat(path, &st) == 0;
        int r;

        dir_of(path, dir, sizeof(dir));
        snprintf(tmp, sizeof(tmp), "%s/.nccl.conf.nettune-XXXXXX", dir);
        if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
                return errbuf_set(e, errno, NULL, "NCCL configuration '%s': cannot create a file in '%s': %s",
                                  path, dir, strerror(errno));
        r = write_all(fd, text, len);
        if (r >= 0 && fchmod(fd, old ? st.st_mode & 07777 : 0644) < 0)
                r = -errno;
        if (r >= 0 && old && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
            fchown(fd, st.st_uid, st.st_gid) < 0)
                r = -errno;
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (r >= 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                (void)unlink(tmp);
                return errbuf_set(e, -r, NULL, "NCCL configuration '%s': write failed: %s; the file is as it was",
                                  path, strerror(-r));
        }
        if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
                (void)fsync(dfd);
        return 0;
}

/* ---- the driver ---- */

static int nccl_caps(struct target *t, uint32_t *ret_fields, struct errbuf *e)
{
        (void)e;
        /* NCCL's traffic class is a RoCE host's: an interface with RDMA ports behind it */
        *ret_fields = t->kind == TARGET_INTERFACE && roce_tos_port_count(t) ? STATE_BIT(STATE_FIELD_NCCL) : 0;
        return 0;
}

static int nccl_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        if (!(c->fields & STATE_BIT(STATE_FIELD_NCCL)))
                return 0;
        return check_conf(t, e);
}

static int nccl_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        int r;

        if (!(fields & STATE_BIT(STATE_FIELD_NCCL)))
                return 0;
        r = read_conf(t, &ret[0].nccl, e);
        if (r >= 0)
                ret[0].present |= STATE_BIT(STATE_FIELD_NCCL);
        return r;
}

static int nccl_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        const struct state_nccl *want = &c->desired[0].nccl;
        const char *path = conf_of(t);
        _cleanup_free_ char *text = NULL;
        _cleanup_free_ char *out = NULL;
        size_t len = 0, out_len = 0;
        unsigned keys = want->read ? (1u << STATE_NCCL_KEYS) - 1 : want->has;
        int r;

        if (!(c->delta[0] & STATE_BIT(STATE_FIELD_NCCL)) || !state_has(&c->desired[0], STATE_FIELD_NCCL))
                return 0;
        r = check_conf(t, e);
        if (r < 0)
                return r;
        r = read_file(path, &text, &len);
        if (r < 0 && r != -ENOENT)
                return errbuf_set(e, -r, NULL, "NCCL configuration '%s': %s; nothing was changed", path,
                                  strerror(-r));
        if (r == -ENOENT && want->read && !want->exists)
                return 0;       /* a restore of a file that was not there: nothing of nettune's is left */
        r = nccl_conf_edit(text ? text : "", len, want, keys, &out, &out_len);
        if (r < 0)
                return errbuf_set(e, -r, NULL, "out of memory");
        if (want->read && !want->exists && out_len == 0) {
                if (unlink(path) < 0 && errno != ENOENT)
                        return errbuf_set(e, errno, NULL, "NCCL configuration '%s': cannot remove the file "
                                          "nettune created: %s", path, strerror(errno));
                return 0;
        }
        if (text && out_len == len && !memcmp(out, text, len))
                return 0;
        return replace_file(path, out, out_len, e);
}

const struct driver_ops nccl_conf_driver = {
        .name = "nccl-conf",
        .kind = TARGET_INTERFACE,
        .fields = STATE_BIT(STATE_FIELD_NCCL),
        .caps = nccl_caps,
        .check = nccl_check,
        .read = nccl_read,
        .apply = nccl_apply,
};
