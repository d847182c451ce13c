/* SPDX-License-Identifier: MIT */
#include "agent/measure/measure.h"

static void run_done(void *userdata, unsigned i, unsigned runs, const struct probe_result *res, int r)
{
        struct progress *pg = userdata;

        if (r < 0)
                progress_note(pg, "run %u failed", i + 1);
        else
                progress_note(pg, "run %u: %.2f Gb/s", i + 1, res->gbps);
        progress_item(pg, r < 0, "run %u/%u: %s", i + 1, runs, r < 0 ? "failed" : "done");
}

void probe_progress_begin(struct progress *pg, const char *tag, const struct probe_params *p,
                          enum probe_mode mode, unsigned runs, struct probe_observer *ret)
{
        *ret = (struct probe_observer) { .run_done = run_done, .userdata = pg };
        if (pg->mode == PROGRESS_OFF)
                return;
        progress_begin(pg, tag, runs, "run", "%s (%s)", p->peer, probe_mode_name(mode));
}

void probe_progress_end(struct progress *pg, const struct probe_measurement *m)
{
        if (m->ok)
                progress_note(pg, "median %.2f Gb/s", m->median_gbps);
        else
                progress_note(pg, "%u of %u runs failed", m->n_runs - m->n_ok, m->n_runs);
        progress_end(pg);
}
