/* SPDX-License-Identifier: MIT */
/* Subcommand tables: help, "did you mean", the y/N question (cli.h). */
#include <ctype.h>
#include <stdarg.h>
#include <strings.h>

#include "common/cli.h"

#define FLAG_COLUMN 26

const struct cli_command *cli_find(const struct cli_command *table, const char *name)
{
        for (const struct cli_command *c = table; c->name; c++)
                if (streq(c->name, name))
                        return c;
        return NULL;
}

bool cli_help_wanted(int argc, char *const *argv)
{
        for (int i = 0; i < argc; i++) {
                if (streq(argv[i], "--"))
                        return false;
                if (streq(argv[i], "--help") || streq(argv[i], "-h"))
                        return true;
        }
        return false;
}

static void print_flag(FILE *f, const char *name, const char *arg, const char *help)
{
        int n = fprintf(f, "  %s%s%s", name, arg ? " " : "", arg ? arg : "");

        if (n >= FLAG_COLUMN)
                fprintf(f, "\n%*s", FLAG_COLUMN, "");
        else
                fprintf(f, "%*s", FLAG_COLUMN - n, "");
        fprintf(f, "%s\n", help ? help : "");
}

static void print_flags(FILE *f, const struct cli_flag *flags)
{
        char alias[64];

        for (const struct cli_flag *x = flags; x && x->name; x++) {
                print_flag(f, x->name, x->arg, x->help);
                if (!x->alias)
                        continue;
                snprintf(alias, sizeof(alias), "the same as %s", x->name);
                print_flag(f, x->alias, x->arg, alias);
        }
}

void cli_help(FILE *f, const char *prog, const char *common_usage, const struct cli_command *c,
              const struct cli_flag *common, const char *exits)
{
        bool flags = c->flags && c->flags->name;
        const char *text = c->text ? c->text : c->summary ? c->summary : "";

        fprintf(f, "usage: %s %s%s%s%s%s%s\n", prog, common_usage ? common_usage : "", common_usage ? " " : "",
                c->name, flags ? " [OPTIONS]" : "", c->args ? " " : "", c->args ? c->args : "");
        fprintf(f, "\n%s%s", text, text[0] && text[strlen(text) - 1] == '\n' ? "" : "\n");
        if (flags) {
                fprintf(f, "\noptions:\n");
                print_flags(f, c->flags);
        }
        if (common && common->name) {
                fprintf(f, "\ncommon options:\n");
                print_flags(f, common);
        }
        fprintf(f, "\nexit codes: %s\n", c->exits ? c->exits : exits);
}

void cli_list(FILE *f, const struct cli_command *table)
{
        for (const struct cli_command *c = table; c->name; c++)
                if (c->summary)
                        fprintf(f, "  %-13s %s\n", c->name, c->summary);
}

/* "--x" or "--x=V" names x. */
static bool names(const char *flag, const char *arg)
{
        size_t n = flag ? strlen(flag) : 0;

        return n && !strncmp(arg, flag, n) && (arg[n] == '\0' || arg[n] == '=');
}

const struct cli_flag *cli_flag_of(const struct cli_command *c, const struct cli_flag *common, const char *arg)
{
        const struct cli_flag *sets[2] = { c ? c->flags : NULL, common };

        for (size_t s = 0; s < ARRAY_SIZE(sets); s++)
                for (const struct cli_flag *x = sets[s]; x && x->name; x++)
                        if (names(x->name, arg) || names(x->alias, arg))
                                return x;
        return NULL;
}

void cli_unknown_command(const char *prog, const struct cli_command *table, const char *word)
{
        struct cli_suggest s;
        const char *best;

        cli_suggest_init(&s, word);
        for (const struct cli_command *c = table; c->name; c++)
                if (c->summary)
                        cli_suggest_offer(&s, c->name);
        best = cli_suggest_best(&s);
        fprintf(stderr, "%s: unknown command '%s'%s%s%s; see '%s --help'\n", prog, word,
                best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "", prog);
}

int cli_unknown(const char *prog, const struct cli_command *c, const struct cli_flag *common, const char *arg)
{
        const struct cli_flag *sets[2] = { c ? c->flags : NULL, common };
        char word[64];
        struct cli_suggest s;
        const char *best;

        snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg, "="), arg);
        if (arg[0] != '-' || !arg[1]) {
                fprintf(stderr, "%s %s: unexpected argument '%s'; see '%s %s --help'\n", prog, c->name, arg, prog,
                        c->name);
                return -EINVAL;
        }
        cli_suggest_init(&s, word);
        for (size_t k = 0; k < ARRAY_SIZE(sets); k++)
                for (const struct cli_flag *x = sets[k]; x && x->name; x++) {
                        cli_suggest_offer(&s, x->name);
                        if (x->alias)
                                cli_suggest_offer(&s, x->alias);
                }
        best = cli_suggest_best(&s);
        if (cli_flag_of(c, common, arg))
                fprintf(stderr, "%s %s: option '%s' needs a value; see '%s %s --help'\n", prog, c->name, word,
                        prog, c->name);
        else
                fprintf(stderr, "%s %s: unknown option '%s'%s%s%s; see '%s %s --help'\n", prog, c->name, word,
                        best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "", prog, c->name);
        return -EINVAL;
}

/* ---- the closest name ---- */

unsigned cli_edit_distance(const char *a, const char *b)
{
        enum { N = 64 };
        unsigned d[N + 1][N + 1];
        size_t n = strlen(a), m = strlen(b);

        if (n > N || m > N)
                return 255;
        for (size_t i = 0; i <= n; i++)
                d[i][0] = (unsigned)i;
        for (size_t k = 0; k <= m; k++)
                d[0][k] = (unsigned)k;
        for (size_t i = 1; i <= n; i++)
                for (size_t k = 1; k <= m; k++) {
                        unsigned cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[k - 1]);
                        unsigned v = d[i - 1][k] + 1;

                        if (d[i][k - 1] + 1 < v)
                                v = d[i][k - 1] + 1;
                        if (d[i - 1][k - 1] + cost < v)
                                v = d[i - 1][k - 1] + cost;
                        if (i > 1 && k > 1 && a[i - 1] == b[k - 2] && a[i - 2] == b[k - 1] && d[i - 2][k - 2] + 1 < v)
                                v = d[i - 2][k - 2] + 1;
                        d[i][k] = v;
                }
        return d[n][m] < 255 ? d[n][m] : 255;
}

void cli_suggest_init(struct cli_suggest *s, const char *word)
{
        *s = (struct cli_suggest){ .word = word, .best = NULL, .dist = 255 };
}

void cli_suggest_offer(struct cli_suggest *s, const char *candidate)
{
        unsigned d = cli_edit_distance(s->word, candidate);

        if (d < s->dist) {
                s->dist = d;
                s->best = candidate;
        }
}

const char *cli_suggest_best(const struct cli_suggest *s)
{
        size_t len = strlen(s->word);
        /* a typo: a third of the word at most ("--conifg", "aply", "mtuu"), and never all of it */
        unsigned limit = len < 6 ? 1 : len < 9 ? 2 : 3;

        if (!s->best || s->dist == 0 || s->dist > limit || s->dist >= len)
                return NULL;
        return s->best;
}

/* ---- asking before a change ---- */

bool cli_confirm(bool yes, const char *fmt, ...)
{
        char answer[16] = "";
        va_list ap;

        if (yes || !isatty(STDIN_FILENO))
                return true;
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, " [y/N] ");
        fflush(stderr);
        if (!fgets(answer, sizeof(answer), stdin))
                return false;
        answer[strcspn(answer, "\r\n")] = '\0';
        return !strcasecmp(answer, "y") || !strcasecmp(answer, "yes");
}
