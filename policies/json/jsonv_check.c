/* SPDX-License-Identifier: MIT */
/* Value checks shared by documents: names, globs, "host:port" addresses. */
#include <ctype.h>

#include "policies/json/jsonv.h"

int jsonv_check_chars(struct jsonv *v, const char *what, const char *s, const char *extra)
{
        char q[80];

        for (const char *p = s; *p; p++) {
                unsigned char c = (unsigned char)*p;

                if (isalnum(c) || (extra && strchr(extra, c)))
                        continue;
                if (c < 0x20 || c >= 0x7f)
                        return jsonv_error(v, "%s '%s' has character \\x%02x; allowed: letters, digits and '%s'",
                                           what, jsonv_quote(s, q, sizeof(q)), c, extra ? extra : "");
                return jsonv_error(v, "%s '%s' has character '%c'; allowed: letters, digits and '%s'",
                                   what, jsonv_quote(s, q, sizeof(q)), c, extra ? extra : "");
        }
        return 0;
}

#define IFNAME_CHARS "-_.@+"
#define GLOB_CHARS "*?[]!^"

int jsonv_check_ifname(struct jsonv *v, const char *s)
{
        return jsonv_check_chars(v, "interface name", s, IFNAME_CHARS);
}

int jsonv_check_switch_name(struct jsonv *v, const char *s)
{
        return jsonv_check_chars(v, "switch name", s, "-_.");
}

int jsonv_check_port_name(struct jsonv *v, const char *s)
{
        return jsonv_check_chars(v, "port name", s, "-_./:");
}

/* fnmatch(3) brackets: every '[' closed by a later ']' with something between, no nesting. */
static int check_brackets(struct jsonv *v, const char *what, const char *s)
{
        char q[80];
        const char *open = NULL;

        for (const char *p = s; *p; p++) {
                if (*p == '[' && open)
                        return jsonv_error(v, "%s '%s' has a '[' inside brackets", what, jsonv_quote(s, q, sizeof(q)));
                if (*p == '[')
                        open = p;
                else if (*p == ']' && !open)
                        return jsonv_error(v, "%s '%s' has a ']' without '['", what, jsonv_quote(s, q, sizeof(q)));
                else if (*p == ']' && p == open + 1)
                        return jsonv_error(v, "%s '%s' has an empty '[]'", what, jsonv_quote(s, q, sizeof(q)));
                else if (*p == ']')
                        open = NULL;
        }
        if (open)
                return jsonv_error(v, "%s '%s' has an unclosed '['", what, jsonv_quote(s, q, sizeof(q)));
        return 0;
}

/* The shortest name a glob can match: '*' counts 0, '?' and a [...] set count 1. Brackets checked before. */
static size_t glob_min_len(const char *s)
{
        size_t n = 0;

        for (const char *p = s; *p; p++) {
                if (*p == '*')
                        continue;
                if (*p == '[')
                        p = strchr(p + 1, ']');
                n++;
        }
        return n;
}

int jsonv_check_glob(struct jsonv *v, const char *what, const char *s, size_t max_len)
{
        bool glob = strpbrk(s, "*?[") != NULL;
        size_t len = strlen(s);
        char q[80];
        int r;

        if (streq(s, ".") || streq(s, ".."))
                return jsonv_error(v, "%s '%s' is not a valid name", what, s);
        r = jsonv_check_chars(v, what, s, IFNAME_CHARS GLOB_CHARS);
        if (r >= 0)
                r = check_brackets(v, what, s);
        if (r < 0)
                return r;
        if (!glob && len > max_len)
                return jsonv_error(v, "%s '%s' is %zu characters, longer than %zu", what,
                                   jsonv_quote(s, q, sizeof(q)), len, max_len);
        if (glob && glob_min_len(s) > max_len)
                return jsonv_error(v, "%s '%s' only matches names longer than %zu characters", what,
                                   jsonv_quote(s, q, sizeof(q)), max_len);
        return 0;
}

static int check_port(struct jsonv *v, const char *what, const char *s, const char *port)
{
        char q[80];
        long x = 0;

        if (!*port || strlen(port) > 5)
                return jsonv_error(v, "%s '%s' has no valid port; expected host:port with port 1-65535",
                                   what, jsonv_quote(s, q, sizeof(q)));
        for (const char *p = port; *p; p++) {
                if (!isdigit((unsigned char)*p))
                        return jsonv_error(v, "%s '%s' has no valid port; expected host:port with port 1-65535",
                                           what, jsonv_quote(s, q, sizeof(q)));
                x = x * 10 + (*p - '0');
        }
        if (x < 1 || x > 65535)
                return jsonv_error(v, "%s port %ld out of range 1-65535", what, x);
        return 0;
}

int jsonv_check_hostport(struct jsonv *v, const char *what, const char *s)
{
        const char *colon = strrchr(s, ':');
        char q[80];
        size_t host_len;

        if (!colon)
                return jsonv_error(v, "%s '%s' is not host:port", what, jsonv_quote(s, q, sizeof(q)));
        host_len = (size_t)(colon - s);
        if (s[0] == '[' && (host_len < 3 || s[host_len - 1] != ']'))
                return jsonv_error(v, "%s '%s' has an unclosed '[' around the address", what,
                                   jsonv_quote(s, q, sizeof(q)));
        if (s[0] != '[' && memchr(s, ':', host_len))
                return jsonv_error(v, "%s '%s': write IPv6 addresses as [addr]:port", what,
                                   jsonv_quote(s, q, sizeof(q)));
        if (host_len == 0)
                return jsonv_error(v, "%s '%s' has an empty host", what, jsonv_quote(s, q, sizeof(q)));
        for (size_t i = 0; i < host_len; i++)
                if (!isalnum((unsigned char)s[i]) && !strchr("-_.:[]%", s[i]))
                        return jsonv_error(v, "%s '%s' has an invalid host", what, jsonv_quote(s, q, sizeof(q)));
        return check_port(v, what, s, colon + 1);
}
