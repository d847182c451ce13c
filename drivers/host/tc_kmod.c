/* SPDX-License-Identifier: MIT */
/* Kernel support for a qdisc kind, read-only: sysfs, modules.builtin/.dep, config.gz (see tc_kmod.h). */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "tc_kmod.h"
#include "util.h"

#define CACHE_MAX 8
#define LINE_MAX_ 4096

struct cached {
        char key[512];
        enum tc_kmod_answer answer;
        char why[1024];
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
        gzFile g = gzopen(file, "rb");
        char line[LINE_MAX_];
        size_t n = strlen(config);
        int v = 'n';

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
        char path[512], c = '0';
        FILE *f;

        snprintf(path, sizeof(path), "%s/sys/kernel/modules_disabled", proc);
        f = fopen(path, "re");
        if (f) {
                c = (char)fgetc(f);
                fclose(f);
        }
        return c == '1';
}

static enum tc_kmod_answer answer(const char *sys, const char *proc, const char *mods, const char *rel,
                                  const char *module, const char *config, char *why, size_t size)
{
        char path[512];
        int builtin, dep, cfg;

        snprintf(path, sizeof(path), "%s/module/%s", sys, module);
        if (is_dir(path))
                return snprintf(why, size, "%s is loaded (%s)", module, path), TC_KMOD_PRESENT;
        snprintf(path, sizeof(path), "%s/%s/modules.builtin", mods, rel);
        builtin = list_names(path, module, false);
        if (builtin > 0)
                return snprintf(why, size, "%s is built in (%s)", module, path), TC_KMOD_PRESENT;
        snprintf(path, sizeof(path), "%s/%s/modules.dep", mods, rel);
        dep = modules_disabled(proc) ? 0 : list_names(path, module, true);
        if (dep > 0)
                return snprintf(why, size, "%s can be loaded (%s)", module, path), TC_KMOD_PRESENT;
        snprintf(path, sizeof(path), "%s/config.gz", proc);
        cfg = config_value(path, config);
        if (cfg == 'y')
                return snprintf(why, size, "%s=y (%s)", config, path), TC_KMOD_PRESENT;
        if (cfg == 'm')
                return snprintf(why, size, "%s=m (%s) but no loadable %s.ko under %s/%s", config, path, module,
                                mods, rel), TC_KMOD_ABSENT;
        if (cfg == 'n')
                return snprintf(why, size, "%s is not set (%s)", config, path), TC_KMOD_ABSENT;
        if (builtin == 0 || dep == 0)
                return snprintf(why, size, "no %s.ko under %s/%s and it is not loaded", module, mods, rel),
                       TC_KMOD_ABSENT;
        snprintf(why, size, "cannot tell: no %s/module/%s, no %s/%s, no %s/config.gz", sys, module, mods, rel, proc);
        return TC_KMOD_UNKNOWN;
}

enum tc_kmod_answer tc_kmod_have(const struct tc_kmod_roots *roots, const char *module, const char *config,
                                 char *why, size_t why_size)
{
        const struct tc_kmod_roots none = { 0 };
        struct utsname u;
        const char *rel;
        char key[512], buf[1024];
        enum tc_kmod_answer a;

        if (!roots)
                roots = &none;
        rel = roots->release;
        if (!rel) {
                rel = uname(&u) == 0 ? u.release : "unknown";
        }
        snprintf(key, sizeof(key), "%s|%s|%s|%s|%s", roots->sys ? roots->sys : "/sys",
                 roots->proc ? roots->proc : "/proc", roots->modules ? roots->modules : "/lib/modules", rel, module);
        pthread_mutex_lock(&cache_lock);
        for (unsigned i = 0; i < n_cache; i++)
                if (streq(cache[i].key, key)) {
                        a = cache[i].answer;
                        if (why)
                                snprintf(why, why_size, "%s", cache[i].why);
                        pthread_mutex_unlock(&cache_lock);
                        return a;
                }
        pthread_mutex_unlock(&cache_lock);
        a = answer(roots->sys ? roots->sys : "/sys", roots->proc ? roots->proc : "/proc",
                   roots->modules ? roots->modules : "/lib/modules", rel, module, config, buf, sizeof(buf));
        pthread_mutex_lock(&cache_lock);
        if (n_cache < CACHE_MAX) {
                snprintf(cache[n_cache].key, sizeof(cache[n_cache].key), "%s", key);
                snprintf(cache[n_cache].why, sizeof(cache[n_cache].why), "%s", buf);
                cache[n_cache++].answer = a;
        }
        pthread_mutex_unlock(&cache_lock);
        if (why)
                snprintf(why, why_size, "%s", buf);
        return a;
}
