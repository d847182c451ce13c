/* SPDX-License-Identifier: MIT */
/*
 * --output json: a command that fails without an answer of its own on stdout
 * answers one JSON object there, {"error": {"code", "message", "path", "target"}},
 * made from its first error line; the exit code is the command's. stdout is counted
 * through a stream of its own, so that an answer already printed (a halted
 * rollout's report, an invalid plan) stands alone.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "common/outcome.h"
#include "controller/cmd/ctl.h"

static struct {
        bool on;
        FILE *real;                     /* the process's stdout */
        unsigned long long written;     /* bytes the command wrote to stdout */
        char first[2048];               /* its first error line, "" = none */
} ej;

static ssize_t counted_write(void *cookie, const char *buf, size_t size)
{
        size_t n = fwrite(buf, 1, size, ej.real);

        (void)cookie;
        ej.written += n;
        fflush(ej.real);
        return n == size ? (ssize_t)n : -1;
}

static void tap(enum log_level level, const char *msg, void *ud)
{
        (void)ud;
        if (level == LOG_LEVEL_ERR && !ej.first[0])
                snprintf(ej.first, sizeof(ej.first), "%s", msg);
}

static bool json_asked(int argc, char **argv)
{
        bool json = false;

        for (int i = 1; i < argc; i++) {
                if (streq(argv[i], "--"))
                        break;
                if (streq(argv[i], "--output") && i + 1 < argc)
                        json = streq(argv[++i], "json");
                else if (!strncmp(argv[i], "--output=", 9))
                        json = streq(argv[i] + 9, "json");
        }
        return json;
}

void ctl_errjson_begin(int argc, char **argv)
{
        cookie_io_functions_t io = { .write = counted_write };
        FILE *f;

        if (!json_asked(argc, argv))
                return;
        f = fopencookie(NULL, "w", io);
        if (!f)
                return;
        ej.real = stdout;
        ej.on = true;
        setvbuf(f, NULL, _IOFBF, 1 << 16);
        stdout = f;
        log_set_tap(tap, NULL);
}

static const char *code_of(int rc)
{
        switch (rc) {
        case OUTCOME_INVALID:
                return "invalid";
        case OUTCOME_RUNTIME:
                return "runtime";
        case OUTCOME_ROLLED_BACK:
                return "halted";
        default:
                return "failed";
        }
}

/*
 * The parts of a message: the JSON path it names ("$.spec.mtu", up to the next ": ")
 * and what it concerns (its first part, a file or a command, when that is not the path).
 */
static void parts(const char *msg, char *path, size_t psize, char *target, size_t tsize)
{
        const char *p = strstr(msg, "$."), *colon = strstr(msg, ": ");

        path[0] = target[0] = '\0';
        if (!p && (p = strstr(msg, "$")) && p[1] != '[' && p[1] != ':' && p[1] != ' ')
                p = NULL;
        if (p && (p == msg || p[-1] == ' ' || p[-1] == '\''))
                snprintf(path, psize, "%.*s", (int)strcspn(p, ": '"), p);
        if (colon && colon != msg && (!p || colon < p) && !memchr(msg, ' ', (size_t)(colon - msg)))
                snprintf(target, tsize, "%.*s", (int)(colon - msg), msg);
}

int ctl_errjson_end(int rc)
{
        char path[256], target[256];
        json_t *j;
        char *text;

        if (!ej.on)
                return rc;
        fflush(stdout);
        if (rc != OUTCOME_OK && ej.written == 0 && ej.first[0]) {
                parts(ej.first, path, sizeof(path), target, sizeof(target));
                j = json_pack("{s:{s:s, s:s, s:s?, s:s?, s:i}}", "error", "code", code_of(rc), "message", ej.first,
                              "path", path[0] ? path : NULL, "target", target[0] ? target : NULL, "exit_code", rc);
                text = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
                if (text)
                        fprintf(ej.real, "%s\n", text);
                free(text);
                json_decref(j);
        }
        log_set_tap(NULL, NULL);
        fclose(stdout);
        stdout = ej.real;
        fflush(stdout);
        ej.on = false;
        return rc;
}
