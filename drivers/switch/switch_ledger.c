/* SPDX-License-Identifier: MIT */
/*
 * The ownership ledger: while a native change of nettune's is pending on a switch
 * (an NVUE revision awaiting confirmation, an EOS session with a commit timer, a
 * SONiC checkpoint), <state_dir>/switch-<name>.own says which one it is:
 *   {"txid": "nettune-...", "rev": "7", "base_rev": 6}
 * so that an agent restarted after a crash takes over (and aborts) that change and
 * nothing else. Written with fsync before the switch can hold the change; removed
 * when it is committed or undone. Without a state_dir the session's memory is all
 * there is (a crash then leaves the change to the switch's own timer).
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "drivers/switch/switch.h"

static int ledger_path(const struct switch_session *s, char *buf, size_t size)
{
        int n;

        if (!s->env || !s->env->state_dir[0])
                return -ENOENT;
        n = snprintf(buf, size, "%s/switch-%s.own", s->env->state_dir, s->sw->name);
        return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

static int write_all(int fd, const char *text)
{
        size_t len = strlen(text), off = 0;

        while (off < len) {
                ssize_t n = write(fd, text + off, len - off);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                off += (size_t)n;
        }
        return 0;
}

int switch_ledger_write(const struct switch_session *s, const struct switch_own *own, struct errbuf *e)
{
        char path[512], tmp[520];
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -1;
        json_t *j;
        int r;

        if (ledger_path(s, path, sizeof(path)) < 0)
                return 0;
        j = json_pack("{s:s,s:s,s:I}", "txid", own->txid, "rev", own->rev, "base_rev", (json_int_t)own->base_rev);
        text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        if (!text)
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        snprintf(tmp, sizeof(tmp), "%s.tmp", path);
        (void)mkdir(s->env->state_dir, 0700);
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0)
                return errbuf_set(e, errno, s->where, "cannot record the pending change in '%s': %s; nothing was "
                                  "changed", tmp, strerror(errno));
        r = write_all(fd, text);
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (r >= 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                unlink(tmp);
                return errbuf_set(e, -r, s->where, "cannot record the pending change in '%s': %s; nothing was "
                                  "changed", path, strerror(-r));
        }
        return 0;
}

int switch_ledger_read(const struct switch_session *s, struct switch_own *ret)
{
        char path[512];
        json_error_t err;
        json_t *j;
        const char *txid, *rev;

        if (ledger_path(s, path, sizeof(path)) < 0)
                return 0;
        j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
        txid = json_string_value(switch_member(j, "txid"));
        rev = json_string_value(switch_member(j, "rev"));
        if (!txid || !rev || !json_is_integer(switch_member(j, "base_rev")) || strlen(txid) >= sizeof(ret->txid) ||
            strlen(rev) >= sizeof(ret->rev)) {
                json_decref(j);
                return 0;
        }
        snprintf(ret->txid, sizeof(ret->txid), "%s", txid);
        snprintf(ret->rev, sizeof(ret->rev), "%s", rev);
        ret->base_rev = (long long)json_integer_value(switch_member(j, "base_rev"));
        json_decref(j);
        return 1;
}

void switch_ledger_clear(const struct switch_session *s)
{
        char path[512];

        if (ledger_path(s, path, sizeof(path)) >= 0)
                unlink(path);
}
