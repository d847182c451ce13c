/* SPDX-License-Identifier: MIT */
/* The doctor's report: findings, notes, and the report as JSON and text (doctor_run.c runs the rules into it). */
#include <stdarg.h>

#include "policies/doctor/doctor.h"
#include "policies/doctor/doctor_internal.h"
#include "policies/state/spec_json.h"

static const char *const severity_names[DOCTOR_SEVERITY_MAX] = { "info", "warning", "critical" };

const char *doctor_severity_name(enum doctor_severity s)
{
        return (unsigned)s < DOCTOR_SEVERITY_MAX ? severity_names[s] : "unknown";
}

void doctor_report_init(struct doctor_report *r)
{
        memset(r, 0, sizeof(*r));
        state_init(&r->prop.spec);
}

void doctor_report_free(struct doctor_report *r)
{
        if (!r)
                return;
        free(r->v);
        free(r->notes);
        doctor_report_init(r);
}

struct doctor_finding *doctor_finding_add(struct doctor_report *r, const struct doctor_rule *rule)
{
        struct doctor_finding *x = rule ? doctor_append(&r->v, &r->n, sizeof(*x)) : NULL;

        if (x) {
                x->rule = rule;
                x->severity = rule->severity;
        }
        return x;
}

struct doctor_finding *doctor_finding_group(struct doctor_report *r, const struct doctor_rule *rule,
                                            const char *group)
{
        for (unsigned i = 0; i < r->n; i++)
                if (r->v[i].rule == rule && streq(r->v[i].group, group))
                        return &r->v[i];
        return NULL;
}

void doctor_finding_node(struct doctor_finding *x, const char *node)
{
        for (unsigned i = 0; i < x->n_nodes; i++)
                if (streq(x->nodes[i], node))
                        return;
        if (x->n_nodes < DOCTOR_SUBJECTS_MAX)
                snprintf(x->nodes[x->n_nodes++], DOCTOR_NAME_MAX, "%s", node);
}

void doctor_finding_port(struct doctor_finding *x, const char *a, const char *b)
{
        char name[2 * DOCTOR_NAME_MAX];

        snprintf(name, sizeof(name), "%s:%s", a, b);
        for (unsigned i = 0; i < x->n_ports; i++)
                if (streq(x->ports[i], name))
                        return;
        if (x->n_ports < DOCTOR_SUBJECTS_MAX)
                memcpy(x->ports[x->n_ports++], name, sizeof(name));
}

struct doctor_finding *doctor_finding_path(struct doctor_report *r, const struct doctor_rule *rule,
                                           const struct doctor_path *p)
{
        struct doctor_finding *x = doctor_finding_add(r, rule);

        if (!x)
                return NULL;
        doctor_finding_node(x, p->node->name);
        doctor_finding_node(x, p->sw_node->name);
        doctor_finding_port(x, p->node->name, p->iface->name);
        doctor_finding_port(x, p->sw_name, p->linux_port ? p->linux_port->name : p->port->name);
        return x;
}

static struct doctor_evidence *ev_slot(struct doctor_finding *x, const char *key)
{
        for (unsigned i = 0; i < x->n_ev; i++)
                if (streq(x->ev[i].key, key))
                        return &x->ev[i];
        if (x->n_ev >= DOCTOR_EVIDENCE_MAX)
                return NULL;
        snprintf(x->ev[x->n_ev].key, sizeof(x->ev[0].key), "%s", key);
        return &x->ev[x->n_ev++];
}

void doctor_ev_num(struct doctor_finding *x, const char *key, double v)
{
        struct doctor_evidence *e = ev_slot(x, key);

        if (e) {
                e->is_num = true;
                e->num = v;
        }
}

void doctor_ev_max(struct doctor_finding *x, const char *key, double v)
{
        for (unsigned i = 0; i < x->n_ev; i++)
                if (streq(x->ev[i].key, key) && x->ev[i].is_num) {
                        if (v > x->ev[i].num)
                                x->ev[i].num = v;
                        return;
                }
        doctor_ev_num(x, key, v);
}

void doctor_ev_str(struct doctor_finding *x, const char *key, const char *fmt, ...)
{
        struct doctor_evidence *e = ev_slot(x, key);
        va_list ap;

        if (!e)
                return;
        e->is_num = false;
        va_start(ap, fmt);
        vsnprintf(e->str, sizeof(e->str), fmt, ap);
        va_end(ap);
}

void doctor_report_note(struct doctor_report *r, const char *fmt, ...)
{
        char *note = r->n_notes < 4096 ? doctor_append(&r->notes, &r->n_notes, sizeof(*r->notes)) : NULL;
        va_list ap;

        if (!note)
                return;
        va_start(ap, fmt);
        vsnprintf(note, DOCTOR_NOTE_MAX, fmt, ap);
        va_end(ap);
}

/* ---- evidence: the words findings share ---- */

const char *doctor_prio_list(uint8_t bits, char *buf, size_t size)
{
        size_t o = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < 8 && o < size; i++)
                if (bits & (1u << i))
                        o += (size_t)snprintf(buf + o, size - o, "%s%u", o ? "," : "", i);
        if (!o)
                snprintf(buf, size, "none");
        return buf;
}

/* ---- JSON ---- */

static json_t *names_json(const char (*v)[DOCTOR_NAME_MAX], unsigned n, bool *ok)
{
        json_t *a = json_array();

        for (unsigned i = 0; i < n; i++)
                spec_json_append(a, json_string(v[i]), ok);
        return a;
}

static json_t *finding_json(const struct doctor_finding *x, bool *ok)
{
        json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:b}", "code", x->rule->code, "severity",
                              doctor_severity_name(x->severity), "summary", x->summary, "fix", x->fix,
                              "fixed_by_proposal", x->fixed);
        json_t *ports = json_array(), *ev = json_object();

        for (unsigned i = 0; i < x->n_ports; i++)
                spec_json_append(ports, json_string(x->ports[i]), ok);
        for (unsigned i = 0; i < x->n_ev; i++)
                spec_json_set(ev, x->ev[i].key, x->ev[i].is_num ? json_real(x->ev[i].num) : json_string(x->ev[i].str),
                              ok);
        spec_json_set(o, "nodes", names_json(x->nodes, x->n_nodes, ok), ok);
        spec_json_set(o, "ports", ports, ok);
        spec_json_set(o, "evidence", ev, ok);
        spec_json_set(o, "threshold", json_string(x->rule->threshold), ok);
        spec_json_set(o, "source", json_string(x->rule->source), ok);
        return o;
}

static void count_severity(const struct doctor_report *r, unsigned ret[DOCTOR_SEVERITY_MAX], unsigned *ret_fixed)
{
        memset(ret, 0, DOCTOR_SEVERITY_MAX * sizeof(*ret));
        *ret_fixed = 0;
        for (unsigned i = 0; i < r->n; i++) {
                ret[r->v[i].severity]++;
                *ret_fixed += r->v[i].fixed;
        }
}

static json_t *proposal_json(const struct doctor_report *r, bool *ok)
{
        const struct doctor_proposal *pr = &r->prop;
        json_t *fields = json_array(), *fixes = json_array(), *not_fixed = json_array();

        if (!pr->spec.present) {
                json_decref(fields);
                json_decref(fixes);
                json_decref(not_fixed);
                return json_null();
        }
        for (int f = 0; f < STATE_FIELD_MAX; f++)
                if (state_has(&pr->spec, f))
                        spec_json_append(fields, json_string(state_field_name(f)), ok);
        for (unsigned i = 0; i < r->n; i++)
                spec_json_append(r->v[i].fixed ? fixes : not_fixed, json_string(r->v[i].rule->code), ok);
        return json_pack("{s:s,s:o,s:o,s:o,s:o,s:o}", "targets_kind", pr->linux_ports ? "interfaces" : "switches",
                         "targets", names_json(pr->targets, pr->n_targets, ok), "nodes",
                         names_json(pr->nodes, pr->n_nodes, ok), "fields", fields, "fixes", fixes, "not_fixed",
                         not_fixed);
}

static json_t *probes_json(const struct doctor_facts *f, bool *ok)
{
        json_t *o = json_object();

        for (unsigned k = 0; k < DOCTOR_PROBE_KINDS; k++)
                if (f->probes[k].kind[0])
                        spec_json_set(o, f->probes[k].kind, doctor_probes_to_json(&f->probes[k]), ok);
        return o;
}

json_t *doctor_report_to_json(const struct doctor_report *r, const struct doctor_facts *f)
{
        unsigned sev[DOCTOR_SEVERITY_MAX], fixed;
        json_t *findings = json_array(), *notes = json_array(), *nodes = json_array(), *o;
        bool ok = true;

        count_severity(r, sev, &fixed);
        for (unsigned i = 0; i < r->n; i++)
                spec_json_append(findings, finding_json(&r->v[i], &ok), &ok);
        for (unsigned i = 0; i < r->n_notes; i++)
                spec_json_append(notes, json_string(r->notes[i]), &ok);
        for (unsigned i = 0; i < f->n_nodes; i++) {
                json_t *n = json_pack("{s:s,s:b,s:f}", "name", f->nodes[i].name, "collected", !f->nodes[i].error[0],
                                      "window_s", f->nodes[i].window_s);

                if (f->nodes[i].error[0])
                        spec_json_set(n, "error", json_string(f->nodes[i].error), &ok);
                spec_json_append(nodes, n, &ok);
        }
        o = json_pack("{s:{s:i,s:i,s:i,s:i,s:i,s:i,s:i}}", "summary", "nodes", (int)r->n_nodes, "collected",
                      (int)r->n_collected, "findings", (int)r->n, "critical", (int)sev[DOCTOR_CRITICAL], "warning",
                      (int)sev[DOCTOR_WARNING], "info", (int)sev[DOCTOR_INFO], "fixed_by_proposal", (int)fixed);
        spec_json_set(o, "findings", findings, &ok);
        spec_json_set(o, "notes", notes, &ok);
        spec_json_set(o, "proposal", proposal_json(r, &ok), &ok);
        spec_json_set(o, "probes", probes_json(f, &ok), &ok);
        spec_json_set(o, "nodes", nodes, &ok);
        if (!ok) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* ---- text ---- */

static void print_evidence(FILE *out, const struct doctor_finding *x)
{
        if (!x->n_ev)
                return;
        fprintf(out, "  evidence:");
        for (unsigned i = 0; i < x->n_ev; i++) {
                if (x->ev[i].is_num)
                        fprintf(out, " %s=%.10g", x->ev[i].key, x->ev[i].num);
                else
                        fprintf(out, " %s=%s", x->ev[i].key, x->ev[i].str);
        }
        fputc('\n', out);
}

static void print_list(FILE *out, const char *label, const char (*v)[DOCTOR_NAME_MAX], unsigned n)
{
        fprintf(out, "%s", label);
        for (unsigned i = 0; i < n; i++)
                fprintf(out, "%s%s", i ? ", " : " ", v[i]);
}

static void print_finding(FILE *out, const struct doctor_finding *x)
{
        char sev[16];

        snprintf(sev, sizeof(sev), "%s", doctor_severity_name(x->severity));
        for (char *c = sev; *c; c++)
                *c = (char)(*c - 'a' + 'A');
        fprintf(out, "%s %s: %s\n", sev, x->rule->code, x->summary);
        print_list(out, "  nodes:", x->nodes, x->n_nodes);
        fputc('\n', out);
        if (x->n_ports) {
                fprintf(out, "  ports:");
                for (unsigned i = 0; i < x->n_ports; i++)
                        fprintf(out, "%s%s", i ? ", " : " ", x->ports[i]);
                fputc('\n', out);
        }
        print_evidence(out, x);
        fprintf(out, "  fix: %s%s\n", x->fix, x->fixed ? " [in the proposal]" : "");
}

static void print_probes(FILE *out, const struct doctor_probes *p)
{
        if (!p->kind[0])
                return;
        fprintf(out, "%s bandwidth:%s\n", p->kind, p->n ? "" : " no pair measured");
        for (unsigned i = 0; i < p->n; i++) {
                if (p->v[i].ok && p->v[i].rtt_ms > 0)
                        fprintf(out, "  %s -> %s: %.3f Gb/s, round trip %.2f ms\n", p->v[i].from, p->v[i].to,
                                p->v[i].gbps, p->v[i].rtt_ms);
                else if (p->v[i].ok)
                        fprintf(out, "  %s -> %s: %.3f Gb/s\n", p->v[i].from, p->v[i].to, p->v[i].gbps);
                else
                        fprintf(out, "  %s -> %s: failed: %s\n", p->v[i].from, p->v[i].to, p->v[i].error);
        }
}

static void print_proposal(FILE *out, const struct doctor_report *r)
{
        const struct doctor_proposal *pr = &r->prop;
        unsigned not_fixed = 0;

        for (unsigned i = 0; i < r->n; i++)
                not_fixed += !r->v[i].fixed;
        if (pr->spec.present) {
                fprintf(out, "proposal: a policy for %s", pr->linux_ports ? "interfaces" : "switches");
                for (unsigned i = 0; i < pr->n_targets; i++)
                        fprintf(out, "%s%s", i ? ", " : " ", pr->targets[i]);
                print_list(out, " (configured by", pr->nodes, pr->n_nodes);
                fprintf(out, ") setting");
                for (int f = 0, k = 0; f < STATE_FIELD_MAX; f++)
                        if (state_has(&pr->spec, f))
                                fprintf(out, "%s%s", k++ ? ", " : " ", state_field_name(f));
                fputc('\n', out);
        }
        if (!not_fixed || !r->n)
                return;
        fprintf(out, "not fixed by %s:", pr->spec.present ? "the proposal" : "a policy");
        for (unsigned i = 0; i < r->n; i++)
                if (!r->v[i].fixed)
                        fprintf(out, " %s (%s)", r->v[i].rule->code, r->v[i].n_ports ? r->v[i].ports[0] : r->v[i].nodes[0]);
        fputc('\n', out);
}

void doctor_report_print(FILE *out, const struct doctor_report *r, const struct doctor_facts *f)
{
        unsigned sev[DOCTOR_SEVERITY_MAX], fixed;

        count_severity(r, sev, &fixed);
        fprintf(out, "doctor: %u node%s (%u collected): ", r->n_nodes, r->n_nodes == 1 ? "" : "s", r->n_collected);
        if (!r->n)
                fprintf(out, "no findings\n");
        else
                fprintf(out, "%u finding%s (%u critical, %u warning, %u info)\n", r->n, r->n == 1 ? "" : "s",
                        sev[DOCTOR_CRITICAL], sev[DOCTOR_WARNING], sev[DOCTOR_INFO]);
        for (unsigned i = 0; i < r->n; i++)
                print_finding(out, &r->v[i]);
        for (unsigned k = 0; k < DOCTOR_PROBE_KINDS; k++)
                print_probes(out, &f->probes[k]);
        for (unsigned i = 0; i < r->n_notes; i++)
                fprintf(out, "note: %s\n", r->notes[i]);
        print_proposal(out, r);
}

int doctor_exit_code(const struct doctor_facts *f, const struct doctor_report *r)
{
        for (unsigned i = 0; i < f->n_nodes; i++) {
                if (f->nodes[i].error[0])
                        return 3;
                for (unsigned s = 0; s < f->nodes[i].n_switches; s++)
                        if (f->nodes[i].switches[s].error[0])
                                return 3;
        }
        return r->n ? 1 : 0;
}
