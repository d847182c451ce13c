/* SPDX-License-Identifier: MIT */
/* Kernel support for a qdisc kind, read-only: sysfs, modules.builtin/.dep, config.gz (see tc_kmod.h). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "common/lazylib.h"
#include "common/util.h"
#include "drivers/host/tc_kmod.h"

#define CACHE_MAX 8
#define LINE_MAX_ 4096

struct kmod_why {
        char buf[1024];
};

struct cached {
        char key[512];
        enum tc_kmod_answer answer;
        struct kmod_why why;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cached cache[CACHE_MAX];
static unsigned n_cache;

void tc_kmod_forget(void)
{
        pthread_mutex_lock(&cache_lock);
        n_cache = 0;
        pthread_mutex_unlock(&cache_lock);
}

/* "kernel/net/sched/sch_ets.ko" (or .ko.xz, ...) ends a path? exact file name match. */
static bool names_module(const char *path, size_t len, const char *module)
{
        static const char *const ext[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
        size_t m = strlen(module);

        for (size_t i = 0; i < ARRAY_SIZE(ext); i++) {
                size_t e = strlen(ext[i]), n = m + e;

                if (len >= n + 1 && path[len - n - 1] == '/' && !strncmp(path + len - n, module, m) &&
                    !strncmp(path + len - e, ext[i], e))
                        return true;
        }
        return false;
}

/* 1 when a line of FILE (up to ':' for modules.dep) names the module, 0 if not, -errno if unreadable. */
static int list_names(const char *file, const char *module, bool dep)
{
        _cleanup_fclose_ FILE *f = fopen(file, "re");
        char line[LINE_MAX_];

        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f)) {
                size_t len = dep ? strcspn(line, ":") : strcspn(line, "\r\n");

                if (names_module(line, len, module))
                        return 1;
        }
        return 0;
}

/* 'y', 'm', 'n' (not set or absent), or -errno when config.gz cannot be read. */
static int config_value(const char *file, const char *config)
{
        char line[LINE_MAX_];
        size_t n = strlen(config);
        int v = 'n';
        gzFile g;

        if (lazylib_open(&zlib_lib, NULL) < 0)
                return -ENOENT;         /* no zlib: config.gz cannot be read, like a missing one */
        g = gzopen(file, "rb");
        if (!g)
                return errno ? -errno : -EIO;
        while (gzgets(g, line, sizeof(line))) {
                if (!strncmp(line, config, n) && line[n] == '=') {
                        v = line[n + 1] == 'y' || line[n + 1] == 'm' ? line[n + 1] : 'n';
                        break;
                }
        }
        gzclose(g);
        return v;
}

static bool is_dir(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool modules_disabled(const char *proc)
{
        char path[512];
        _cleanup_fclose_ FILE *f = NULL;

        snprintf(path, sizeof(path), "%s/sys/kernel/modules_disabled", proc);
        f = fopen(path, "re");
        return f && fgetc(f) == '1';
}

_printf_(3, 4)
static enum tc_kmod_answer said(enum tc_kmod_answer a, struct kmod_why *w, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(w->buf, sizeof(w->buf), fmt, ap);
        va_end(ap);
        return a;
}

static enum tc_kmod_answer answer(const char *sys, const char *proc, const char *mods, const char *rel,
                                  const char *module, const char *config, struct kmod_why *w)
{
        char path[512];
        int builtin, dep, cfg;

        snprintf(path, sizeof(path), "%s/module/%s", sys, module);
        if (is_dir(path))
                return said(TC_KMOD_PRESENT, w, "%s is loaded (%s)", module, path);
        snprintf(path, sizeof(path), "%s/%s/modules.builtin", mods, rel);
        builtin = list_names(path, module, false);
        if (builtin > 0)
                return said(TC_KMOD_PRESENT, w, "%s is built in (%s)", module, path);
        snprintf(path, sizeof(path), "%s/%s/modules.dep", mods, rel);
        dep = modules_disabled(proc) ? 0 : list_names(path, module, true);
        if (dep > 0)
                return said(TC_KMOD_PRESENT, w, "%s can be loaded (%s)", module, path);
        snprintf(path, sizeof(path), "%s/config.gz", proc);
        cfg = config_value(path, config);
        if (cfg == 'y')
                return said(TC_KMOD_PRESENT, w, "%s=y (%s)", config, path);
        if (cfg == 'm')
                return said(TC_KMOD_ABSENT, w, "%s=m (%s) but no loadable %s.ko under %s/%s", config, path,
                            module, mods, rel);
        if (cfg == 'n')
                return said(TC_KMOD_ABSENT, w, "%s is not set (%s)", config, path);
        if (builtin == 0 || dep == 0)
                return said(TC_KMOD_ABSENT, w, "no %s.ko under %s/%s and it is not loaded", module, mods, rel);
        return said(TC_KMOD_UNKNOWN, w, "cannot tell: no %s/module/%s, no %s/%s, no %s/config.gz", sys, module,
                    mods, rel, proc);
}

enum tc_kmod_answer tc_kmod_have(const struct tc_kmod_roots *roots, const char *module, const char *config,
                                 char *why, size_t why_size)
{
        const struct tc_kmod_roots none = { 0 };
        struct utsname u;
        const char *rel;
        struct kmod_why w;
        char key[512];
        enum tc_kmod_answer a;

        if (!roots)
                roots = &none;
        rel = roots->release;
        if (!rel)
                rel = uname(&u) == 0 ? u.release : "unknown";
        snprintf(key, sizeof(key), "%s|%s|%s|%s|%s", roots->sys ? roots->sys : "/sys",
                 roots->proc ? roots->proc : "/proc", roots->modules ? roots->modules : "/lib/modules", rel, module);
        pthread_mutex_lock(&cache_lock);
        for (unsigned i = 0; i < n_cache; i++)
                if (streq(cache[i].key, key)) {
                        a = cache[i].answer;
                        if (why)
                                snprintf(why, why_size, "%s", cache[i].why.buf);
                        pthread_mutex_unlock(&cache_lock);
                        return a;
                }
        pthread_mutex_unlock(&cache_lock);
        a = answer(roots->sys ? roots->sys : "/sys", roots->proc ? roots->proc : "/proc",
                   roots->modules ? roots->modules : "/lib/modules", rel, module, config, &w);
        pthread_mutex_lock(&cache_lock);
        if (n_cache < CACHE_MAX) {
                snprintf(cache[n_cache].key, sizeof(cache[n_cache].key), "%s", key);
                cache[n_cache].why = w;
                cache[n_cache++].answer = a;
        }
        pthread_mutex_unlock(&cache_lock);
        if (why)
                snprintf(why, why_size, "%s", w.buf);
        return a;
}
