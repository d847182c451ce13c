/* SPDX-License-Identifier: MIT */
/*
 * --profile NAME: a vendor reference profile by name (conform, apply). NAME is a file
 * when it holds a '/' or ends in .json/.yaml; else NAME.json is looked for in each
 * directory of $NETTUNE_PROFILE_PATH (':'-separated), then in the installed profile
 * directories (vendor/ first) and the source tree's policies/profiles/vendor.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"

static const char *const profile_dirs[] = {
        "/usr/share/nettune/profiles/vendor", "/usr/share/nettune/profiles",
        "/usr/local/share/nettune/profiles/vendor", "/usr/local/share/nettune/profiles",
        "policies/profiles/vendor", "policies/profiles",
};

static bool ends_with(const char *s, const char *suffix)
{
        size_t n = strlen(s), m = strlen(suffix);

        return n >= m && streq(s + n - m, suffix);
}

static bool try_dir(const char *dir, size_t dir_len, const char *name, char *path, size_t size)
{
        if (!dir_len || (size_t)snprintf(path, size, "%.*s/%s.json", (int)dir_len, dir, name) >= size)
                return false;
        return access(path, R_OK) == 0;
}

int ctl_profile_find(const char *name, char *path, size_t size)
{
        const char *env = getenv("NETTUNE_PROFILE_PATH");

        if (!*name) {
                log_err("--profile: empty name");
                return -EINVAL;
        }
        if (strchr(name, '/') || ends_with(name, ".json") || ends_with(name, ".yaml") || ends_with(name, ".yml")) {
                snprintf(path, size, "%s", name);
                return 0;
        }
        for (const char *p = env; p && *p;) {
                const char *end = strchr(p, ':');
                size_t len = end ? (size_t)(end - p) : strlen(p);

                if (try_dir(p, len, name, path, size))
                        return 0;
                p = end ? end + 1 : NULL;
        }
        for (size_t i = 0; i < ARRAY_SIZE(profile_dirs); i++)
                if (try_dir(profile_dirs[i], strlen(profile_dirs[i]), name, path, size))
                        return 0;
        log_err("--profile: no profile '%s' (looked for %s.json in $NETTUNE_PROFILE_PATH, "
                "/usr/share/nettune/profiles/vendor, /usr/local/share/nettune/profiles/vendor and "
                "policies/profiles/vendor); nothing was changed", name, name);
        return -ENOENT;
}
