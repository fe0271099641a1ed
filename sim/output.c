/*
 * What a run prints: one line per job and a summary (text), or one JSON document
 * (--json) with the same fields under the kernel's names (ALLOCJOB, ALLOCRUN:
 * wait_ns, alloc_ns, t_*_ns, msgs, hops, domain_cores), so that scripts read both
 * the same way. Nothing host-dependent goes to stdout: the same arguments print the
 * same bytes. The reproducer line comes last in text mode, first in JSON.
 */
#include <stdlib.h>
#include <string.h>
#include "sim/sim.h"

extern char sim_violation_text[][200];

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

typedef unsigned long long ull;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void print_job_text(FILE *f, unsigned i, const struct sim_job *j)
{
	if (!j->reported) {
		fprintf(f, "job %u: home %u ntasks %u: DID NOT END\n", i, j->spec.home, j->spec.ntasks);
		return;
	}
	fprintf(f, "job %u: id %u home %u ntasks %u %s submit %llu wait %llu alloc %llu start %llu end %llu msgs %u hops %u "
		   "cancels %u attempts %u parts %u",
		i, j->id, j->spec.home, j->spec.ntasks, j->global ? "global" : "local", (ull)j->t_submit,
		(ull)(j->t_start - j->t_submit), (ull)(j->t_alloc - j->t_submit), (ull)j->t_start, (ull)j->t_end, j->msgs,
		j->hops, j->cancels, j->attempts, j->nparts);
	if (!S.o->brief) {
		fprintf(f, " cores");
		for (unsigned k = 0; k < j->nparts; k++)
			fprintf(f, " d%u:%u", j->assign[k].mk, j->assign[k].count);
	}
	fputc('\n', f);
}

static void print_job_json(FILE *f, unsigned i, const struct sim_job *j)
{
	fprintf(f, "{\"tag\":%u,\"home\":%u,\"ntasks\":%u,\"ended\":%s", i, j->spec.home, j->spec.ntasks,
		j->reported ? "true" : "false");
	if (j->reported) {
		fprintf(f, ",\"job\":%u,\"global\":%s,\"duration_us\":%llu,\"t_submit_ns\":%llu,\"t_alloc_ns\":%llu,"
			   "\"t_start_ns\":%llu,\"t_end_ns\":%llu,\"wait_ns\":%llu,\"alloc_ns\":%llu,\"msgs\":%u,\"hops\":%u,"
			   "\"cancels\":%u,\"attempts\":%u,\"parts\":%u",
			j->id, j->global ? "true" : "false", (ull)j->spec.duration_us, (ull)j->t_submit, (ull)j->t_alloc,
			(ull)j->t_start, (ull)j->t_end, (ull)(j->t_start - j->t_submit), (ull)(j->t_alloc - j->t_submit),
			j->msgs, j->hops, j->cancels, j->attempts, j->nparts);
		if (!S.o->brief) {
			fprintf(f, ",\"cores\":[");
			for (unsigned c = 0, first = 1; c < PROTO_MASK_CORES; c++)
				if (mask_has(j->cores, c)) {
					fprintf(f, first ? "%u" : ",%u", c);
					first = 0;
				}
			fprintf(f, "],\"domain_cores\":[");
			for (unsigned k = 0; k < j->nparts; k++)
				fprintf(f, k ? ",[%u,%u]" : "[%u,%u]", j->assign[k].mk, j->assign[k].count);
			fprintf(f, "],\"holds\":[");
			for (unsigned k = 0; k < j->nholds; k++) {
				const struct job_hold *h = &j->holds[k];
				fprintf(f, k ? ",[%u," : "[%u,", h->mk);
				if (h->core == PROTO_HOLD_VIRTUAL)
					fprintf(f, "null");
				else
					fprintf(f, "%u", h->core);
				fprintf(f, ",%u,%llu,%llu]", h->count, (ull)h->t_taken, (ull)h->t_given);
			}
			fputc(']', f);
		}
	}
	fputc('}', f);
}

void output_run(FILE *f, const char *repro, uint64_t wall_ns)
{
	(void)wall_ns;
	const struct sim_scenario *sc = S.sc;
	unsigned n = sc->n, ended = 0;
	uint64_t first = ~0ULL, last = 0, sum = 0, msgs = 0, hops = 0, cancels = 0;
	uint64_t *waits = calloc(n ? n : 1, sizeof *waits);
	for (unsigned i = 0; i < n; i++) {
		const struct sim_job *j = &S.jobs[i];
		if (!j->reported)
			continue;
		waits[ended++] = j->t_start - j->t_submit;
		sum += j->t_start - j->t_submit;
		cancels += j->cancels;
		if (j->t_submit < first)
			first = j->t_submit;
		if (j->t_end > last)
			last = j->t_end;
	}
	for (unsigned k = 1; k < AK_KINDS; k++)
		msgs += S.kind_msgs[k], hops += S.kind_hops[k];
	qsort(waits, ended, sizeof *waits, cmp_u64);
	uint64_t span = last > first && ended ? last - first : 0, mean = ended ? sum / ended : 0,
		 median = ended ? waits[ended / 2] : 0, maxw = ended ? waits[ended - 1] : 0;
	const char *pol = alloc_policy_name(S.sw->cfg.policy), *sch = alloc_scheme_name(S.sw->cfg.scheme);
	if (S.o->json) {
		fprintf(f, "{\"reproducer\":");
		json_str(f, repro);
		fprintf(f, ",\"scenario\":");
		json_str(f, sc->name);
		fprintf(f, ",\"spec\":");
		json_str(f, S.o->scenario);
		fprintf(f, ",\"mesh\":\"%ux%u\",\"mode\":\"%s\",\"domains\":%u,\"grid\":\"%ux%u\",\"policy\":\"%s\","
			   "\"scheme\":\"%s\",\"sequencer\":%u,\"machine_cores\":%u,\"jobs\":[",
			S.o->w, S.o->h, S.o->partial ? "partial" : "real", S.sw->pw.ndomains, S.sw->pw.dx, S.sw->pw.dy, pol, sch,
			S.sw->pw.sequencer, S.sw->machine_cores);
		for (unsigned i = 0; i < n; i++) {
			if (i)
				fputc(',', f);
			print_job_json(f, i, &S.jobs[i]);
		}
		fprintf(f, "],\"summary\":{\"jobs\":%u,\"ended\":%u,\"makespan_ns\":%llu,\"mean_wait_ns\":%llu,"
			   "\"median_wait_ns\":%llu,\"max_wait_ns\":%llu,\"cancels\":%llu,\"events\":%llu,\"msgs\":{",
			n, ended, (ull)span, (ull)mean, (ull)median, (ull)maxw, (ull)cancels, (ull)S.events);
		for (unsigned k = 1, first_k = 1; k < AK_KINDS; k++)
			if (S.kind_msgs[k]) {
				fprintf(f, "%s\"%s\":%llu", first_k ? "" : ",", alloc_kind_name(k), (ull)S.kind_msgs[k]);
				first_k = 0;
			}
		fprintf(f, "},\"total_msgs\":%llu,\"total_hops\":%llu,\"violations\":%llu,\"violation_texts\":[", (ull)msgs,
			(ull)hops, (ull)S.violations);
		for (unsigned i = 0; i < S.violations && i < 20; i++) {
			if (i)
				fputc(',', f);
			json_str(f, sim_violation_text[i]);
		}
		fprintf(f, "]}}\n");
	} else {
		fprintf(f, "mosaic-sim: mesh %ux%u, %s, %u micro-kernels (%ux%u), %u cores for jobs, policy %s, scheme %s, "
			   "sequencer %u, scenario %s (%u jobs)\n",
			S.o->w, S.o->h, S.o->partial ? "partial simulation" : "real-task mode", S.sw->pw.ndomains, S.sw->pw.dx,
			S.sw->pw.dy, S.sw->machine_cores, pol, sch, S.sw->pw.sequencer, sc->name, n);
		for (unsigned i = 0; i < n; i++)
			print_job_text(f, i, &S.jobs[i]);
		fprintf(f, "summary: %u of %u jobs ended, makespan %llu ns, wait mean %llu median %llu max %llu ns, "
			   "cancels %llu, msgs %llu (",
			ended, n, (ull)span, (ull)mean, (ull)median, (ull)maxw, (ull)cancels, (ull)msgs);
		for (unsigned k = 1, first_k = 1; k < AK_KINDS; k++)
			if (S.kind_msgs[k]) {
				fprintf(f, "%s%s %llu", first_k ? "" : ", ", alloc_kind_name(k), (ull)S.kind_msgs[k]);
				first_k = 0;
			}
		fprintf(f, "), hops %llu, events %llu, violations %llu\n", (ull)hops, (ull)S.events, (ull)S.violations);
		for (unsigned i = 0; i < S.violations && i < 20; i++)
			fprintf(f, "VIOLATION: %s\n", sim_violation_text[i]);
		fprintf(f, "reproduce: %s\n", repro);
	}
	free(waits);
}

void output_propbench(FILE *f, const char *repro, const uint64_t *ns, const uint64_t *msgs, unsigned reps,
		      uint32_t reached)
{
	const char *sch = alloc_scheme_name(S.sw->cfg.scheme);
	unsigned w = S.o->prop_w, h = S.o->prop_h;
	if (S.o->json) {
		fprintf(f, "{\"reproducer\":");
		json_str(f, repro);
		fprintf(f, ",\"mesh\":\"%ux%u\",\"scheme\":\"%s\",\"w\":%u,\"h\":%u,\"nodes\":%u,\"reached\":%u,\"reps\":[", S.o->w,
			S.o->h, sch, w, h, w * h, reached);
		for (unsigned r = 0; r < reps; r++)
			fprintf(f, "%s{\"ns\":%llu,\"msgs\":%llu}", r ? "," : "", (ull)ns[r], (ull)msgs[r]);
		fprintf(f, "],\"violations\":%llu}\n", (ull)S.violations);
	} else {
		for (unsigned r = 0; r < reps; r++)
			fprintf(f, "propbench: scheme %s region %ux%u (%u nodes) rep %u: %llu ns, %llu msgs, reached %u\n", sch,
				w, h, w * h, r, (ull)ns[r], (ull)msgs[r], reached);
		fprintf(f, "reproduce: %s\n", repro);
	}
}
