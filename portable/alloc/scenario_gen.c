/*
 * Scenario generation (scenario_gen.h): one spec, the same jobs in the kernel and
 * in the simulator. Reads the spec in place as counted words (no copy, no heap),
 * numbers with lib/parse.h (the kernel's parse_u64), and never divides by zero
 * on the host where the kernel's RISC-V remainder would not trap (rem).
 */
#include "portable/alloc/scenario_gen.h"
#include "lib/parse.h" /* pure C, no kernel state: built for the host too */

const char *const scen_names[SCEN_NAMES] = {"fig22", "corners", "simul", "random"};
static const unsigned scen_nargs[SCEN_NAMES] = {0, 1, 2, 2};

struct word {
	const char *s;
	size_t n;
};

static bool num(struct word w, uint64_t *out) { return parse_u64_n(w.s, w.n, out); }

/* The first occurrence of c in w: its index, or w.n. */
static size_t find(struct word w, char c)
{
	size_t i = 0;
	while (i < w.n && w.s[i] != c)
		i++;
	return i;
}

/* Whether c separates a job's fields (or a name's numbers): a space, a tab or a comma. */
static bool field_sep(char c) { return c == ' ' || c == '\t' || c == ','; }
/* Whether c separates the jobs of an in-line list: ';' or '+' (the one needs no quoting in cmd=). */
static bool job_sep(char c) { return c == ';' || c == '+'; }

/* Splits s[0..len) at field separators into at most max words; how many it found (stopping at
 * max, so max + 1 reports "too many" to a caller that wants exactly max). */
static unsigned split(const char *s, size_t len, struct word *f, unsigned max)
{
	unsigned nf = 0;
	size_t i = 0;
	while (nf < max) {
		while (i < len && field_sep(s[i]))
			i++;
		if (i == len)
			break;
		f[nf].s = s + i;
		while (i < len && !field_sep(s[i]))
			i++;
		f[nf].n = (size_t)(s + i - f[nf].s);
		nf++;
	}
	return nf;
}

static size_t length(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

int scen_name_index(const char *word, size_t len)
{
	for (int i = 0; i < SCEN_NAMES; i++) {
		size_t n = length(scen_names[i]);
		if (n == len && !__builtin_memcmp(word, scen_names[i], n))
			return i;
	}
	return -1;
}

/* x % d with RISC-V's answer for d == 0 (x): the kernel always computed that, the host traps. */
static uint64_t rem(uint64_t x, uint64_t d) { return d ? x % d : x; }

static uint32_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*s >> 33);
}

static bool refuse(struct scen_error *e, enum scen_code code, unsigned job, uint64_t limit)
{
	*e = (struct scen_error){.code = code, .job = job, .limit = limit};
	return false;
}

/* A job's run time: partial simulation's, or a real-task job's when the home times them. */
static uint64_t run_time(const struct scen_machine *m, uint64_t partial_us, uint64_t task_us)
{
	return m->partial ? partial_us : m->timed_tasks ? task_us : 0;
}

/* Adds a job running program (NULL: compute; plen characters of it); its spec, or NULL when
 * the caller's arrays are full. */
static struct job_spec *add(const struct scen_machine *m, struct scen_jobs *out, unsigned home, uint32_t ntasks,
			    uint64_t dur_us, uint64_t at_us, const char *program, size_t plen, uint64_t arg)
{
	if (out->n >= out->max)
		return 0;
	struct job_spec *s = &out->jobs[out->n];
	*s = (struct job_spec){.home = (uint16_t)home, .ntasks = ntasks, .arg = arg, .duration_us = dur_us};
	if (m->partial || !program)
		program = m->partial ? ALLOC_SIM_PROGRAM : "compute", plen = length(program);
	if (plen > ALLOC_PROGRAM_MAX - 1)
		plen = ALLOC_PROGRAM_MAX - 1; /* cut as the kernel's strlcpy did */
	__builtin_memcpy(s->program, program, plen);
	out->offset_us[out->n++] = at_us;
	return s;
}

/* Digits only, but more than 64 bits hold. */
static bool too_big(struct word w)
{
	uint64_t v;
	for (size_t i = 0; i < w.n; i++)
		if (w.s[i] < '0' || w.s[i] > '9')
			return false;
	return w.n && !num(w, &v);
}

static uint32_t clamp32(uint64_t v) { return (uint32_t)(v > 0xffffffff ? 0xffffffff : v); }

/* One job of a list, "T HOME NTASKS[/C] WHAT" (WHAT: a run time in us, or PROGRAM[:ARG]). */
static bool list_job(const struct scen_machine *m, struct scen_jobs *out, struct word job, struct scen_error *e)
{
	struct word f[5] = {{0}};
	unsigned nf = split(job.s, job.n, f, 5), no = out->n + 1;
	uint64_t t, home, n, dur = 0, arg = 0, cores = 0;
	size_t colon = nf == 4 ? find(f[3], ':') : 0, slash = nf == 4 ? find(f[2], '/') : 0;
	bool has_arg = nf == 4 && colon < f[3].n, has_cores = nf == 4 && slash < f[2].n;
	struct word what = {f[3].s, colon}, ntasks = {f[2].s, slash};
	for (unsigned i = 0; i < nf && i < 4; i++)
		if (too_big(i == 2 ? ntasks : i == 3 ? what : f[i]))
			return refuse(e, SCEN_JOB_NUMBER, no, 0);
	if (nf != 4 || !num(f[0], &t) || !num(f[1], &home) || !num(ntasks, &n) ||
	    (has_arg && !num((struct word){what.s + colon + 1, f[3].n - colon - 1}, &arg)) ||
	    (has_cores && !num((struct word){ntasks.s + slash + 1, f[2].n - slash - 1}, &cores)))
		return refuse(e, SCEN_JOB_SYNTAX, no, 0);
	bool numeric = num(what, &dur);
	if (m->partial != numeric)
		return refuse(e, m->partial ? SCEN_JOB_WANT_RUN : SCEN_JOB_WANT_PROGRAM, no, 0);
	if (has_cores && m->partial)
		return refuse(e, SCEN_JOB_OVERSUB_PARTIAL, no, 0);
	if (has_cores && (cores == 0 || cores > n))
		return refuse(e, SCEN_JOB_CORES, no, n);
	if (m->early_refusals && !numeric && what.n >= ALLOC_PROGRAM_MAX)
		return refuse(e, SCEN_JOB_PROGRAM_LONG, no, ALLOC_PROGRAM_MAX - 1);
	if (m->early_refusals && (home > 0xffff || t > 3600000000ULL))
		return refuse(e, SCEN_JOB_RANGE, no, 0);
	struct job_spec *s = add(m, out, (unsigned)home, clamp32(n), run_time(m, dur, m->list_task_us), t, what.s,
				 what.n, arg);
	if (s)
		s->cores = clamp32(cores); /* 0: one per task; clamped as n is */
	return true;
}

/* An in-line list: its jobs separated by job_sep. */
static bool parse_list(const struct scen_machine *m, const char *spec, struct scen_jobs *out, struct scen_error *e)
{
	const char *p = spec;
	while (*p) {
		struct word job = {p, 0};
		while (p[job.n] && !job_sep(p[job.n]))
			job.n++;
		if (!list_job(m, out, job, e))
			return false;
		p += job.n + (p[job.n] != 0);
		if (out->n >= out->max && *p)
			return refuse(e, SCEN_TOO_MANY, 0, out->max);
	}
	if (!out->n)
		return refuse(e, SCEN_NO_JOBS, 0, 0);
	return true;
}

static bool refuse_line(struct scen_error *e, enum scen_code code, unsigned line, uint64_t limit)
{
	refuse(e, code, 0, limit);
	e->line = line;
	return false;
}

/* A file from the host (untrusted): lines of ASCII text, each a job as in a list or blank,
 * '#' beginning a comment; every refusal names its line. */
static bool parse_file(const struct scen_machine *m, struct scen_jobs *out, struct scen_error *e)
{
	const char *text = m->file_text;
	size_t len = m->file_len, i = 0;
	if (len > SCEN_FILE_MAX) {
		refuse(e, SCEN_FILE_BIG, 0, SCEN_FILE_MAX);
		e->value = len;
		return false;
	}
	for (unsigned line = 1; i < len; line++) {
		size_t start = i;
		while (i < len && text[i] != '\n')
			i++;
		bool newline = i < len;
		size_t n = i - start;
		if (newline && n && text[i - 1] == '\r')
			n--; /* a CRLF line end */
		i += newline;
		for (size_t k = 0; k < n; k++) {
			unsigned char c = (unsigned char)text[start + k];
			if (c != '\t' && (c < 0x20 || c > 0x7e)) {
				refuse_line(e, SCEN_FILE_BINARY, line, 0);
				e->value = c;
				e->column = (unsigned)(k + 1);
				return false;
			}
		}
		if (n > SCEN_LINE_MAX)
			return refuse_line(e, SCEN_LINE_LONG, line, SCEN_LINE_MAX);
		if (!newline)
			return refuse_line(e, SCEN_FILE_NO_NEWLINE, line, 0);
		struct word job = {text + start, find((struct word){text + start, n}, '#')};
		struct word f[1];
		if (!split(job.s, job.n, f, 1))
			continue; /* blank, or only a comment */
		if (out->n >= out->max)
			return refuse_line(e, SCEN_TOO_MANY, line, out->max);
		if (out->line)
			out->line[out->n] = line;
		if (!list_job(m, out, job, e)) {
			e->line = line;
			return false;
		}
	}
	if (!out->n)
		return refuse(e, SCEN_FILE_EMPTY, 0, 0);
	return true;
}

/* "K" micro-kernels' worth of cores: K times the average domain, at most the machine. */
static uint32_t mks_worth(const struct scen_machine *m, uint64_t k)
{
	uint64_t n = k * m->machine_cores / m->ndomains;
	return n > m->machine_cores ? m->machine_cores : n ? (uint32_t)n : 1;
}

static unsigned corner(const struct scen_machine *m, unsigned i)
{
	unsigned x = (i & 1) ? m->dx - 1 : 0, y = (i & 2) ? m->dy - 1 : 0;
	return y * m->dx + x;
}

/* random: every draw in the order the kernel always made them (its compiler evaluated
 * add()'s arguments left to right), so a seed means the same jobs everywhere. */
static void random_jobs(const struct scen_machine *m, struct scen_jobs *out, uint64_t seed_arg, uint64_t njobs,
			uint64_t run)
{
	uint64_t seed = seed_arg * 2654435761u + 1;
	for (unsigned i = 0; i < njobs; i++) {
		unsigned home = lcg(&seed) % m->ndomains;
		uint32_t all = m->machine_cores, cap = m->domain_cores[home], n;
		n = lcg(&seed) % 2 ? 1 + (uint32_t)rem(lcg(&seed), cap) : 1 + (uint32_t)rem(lcg(&seed), all);
		if (!cap)
			n = 1 + (uint32_t)rem(lcg(&seed), all);
		uint64_t dur = run / 4 + rem(lcg(&seed), run + 1);
		uint64_t at = lcg(&seed) % 3000;
		const char *prog = m->programs[lcg(&seed) % m->nprograms];
		add(m, out, home, n, run_time(m, dur, run), at, prog, length(prog), 0);
	}
}

/* A scenario by name: words[0] its name, then its numbers and optional RUN_US. */
static bool named(const struct scen_machine *m, int which, const struct word *w, unsigned nw, struct scen_jobs *out,
		  struct scen_error *e)
{
	uint64_t a = 0, b = 0, run = 1000;
	unsigned want = scen_nargs[which], nd = m->ndomains;
	if (nw < 1 + want || nw > 2 + want || (want >= 1 && !num(w[1], &a)) || (want >= 2 && !num(w[2], &b)) ||
	    (nw == 2 + want && !num(w[1 + want], &run)))
		return refuse(e, SCEN_USAGE, 0, 0);
	if (m->early_refusals && (run == 0 || run > ALLOC_DURATION_MAX_US))
		return refuse(e, SCEN_RUN_RANGE, 0, ALLOC_DURATION_MAX_US);
	if (which == SCEN_FIG22) {
		if (nd < 2)
			return refuse(e, SCEN_FIG22_DOMAINS, 0, 0);
		add(m, out, 0, 12, run_time(m, run, run), 0, 0, 0, 0);
		add(m, out, 1, 16, run_time(m, run, run), 0, 0, 0, 0);
	} else if (which == SCEN_CORNERS) {
		for (unsigned i = 0; i < 4; i++)
			add(m, out, corner(m, i), mks_worth(m, a), run_time(m, run, run), 0, 0, 0, 0);
	} else if (which == SCEN_SIMUL) {
		if (a == 0 || a > nd)
			return refuse(e, SCEN_SIMUL_N, 0, nd);
		for (unsigned i = 0; i < a; i++)
			add(m, out, (unsigned)(i * nd / a), mks_worth(m, b), run_time(m, run, run), 0, 0, 0, 0);
	} else {
		if (m->early_refusals && !m->machine_cores)
			return refuse(e, SCEN_RANDOM_NO_CORES, 0, 0);
		if (b == 0 || b > out->max)
			return refuse(e, SCEN_RANDOM_N, 0, out->max);
		random_jobs(m, out, a, b, run);
	}
	return true;
}

bool scen_generate(const char *spec, const struct scen_machine *m, struct scen_jobs *out, struct scen_error *e)
{
	struct word w[5];
	unsigned nw = split(spec, length(spec), w, 5); /* a name and at most 3 numbers: 5 words are too many */
	int which = nw ? scen_name_index(w[0].s, w[0].n) : -1;
	out->n = 0;
	*e = (struct scen_error){.code = SCEN_OK};
	if (which >= 0) {
		out->name = scen_names[which];
		return named(m, which, w, nw, out, e);
	}
	if (nw && w[0].n == 4 && !__builtin_memcmp(w[0].s, "file", 4)) {
		out->name = "file";
		if (nw > 1)
			return refuse(e, SCEN_FILE_USAGE, 0, 0);
		if (!m->file_text)
			return refuse(e, SCEN_NO_FILE, 0, 0);
		return parse_file(m, out, e);
	}
	/* a list starts with a number (its first job's time); anything else was meant as a name */
	struct word first = {nw ? w[0].s : spec, 0};
	while (nw && first.n < w[0].n && !job_sep(first.s[first.n]))
		first.n++;
	uint64_t t;
	if (first.n == 0 || first.n >= 24 || !num(first, &t)) {
		*e = (struct scen_error){.code = SCEN_UNKNOWN, .word = first.s, .word_len = (unsigned)first.n};
		return false;
	}
	out->name = "list";
	return parse_list(m, spec, out, e);
}

void scen_error_text(const struct scen_error *e, char *buf, size_t size, scen_printf_fn pf)
{
	unsigned job = e->job;
	unsigned long limit = (unsigned long)e->limit;
	if (e->line && size) { /* a file's refusal names its line first */
		int n = pf(buf, size, "line %u: ", e->line);
		if (n < 0 || (size_t)n >= size)
			return;
		buf += n, size -= (size_t)n;
	}
	switch (e->code) {
	case SCEN_OK: pf(buf, size, "no error"); break;
	case SCEN_UNKNOWN: {
		int len = pf(buf, size, "unknown scenario '%.*s' (known: ", e->word_len > 24 ? 24 : (int)e->word_len,
			     e->word);
		for (int i = 0; i < SCEN_NAMES && len > 0 && (size_t)len < size; i++)
			len += pf(buf + len, size - (size_t)len, "%s%s", i ? ", " : "", scen_names[i]);
		if (len > 0 && (size_t)len < size)
			pf(buf + len, size - (size_t)len, ", file; or a list 'T_US,HOME,NTASKS[/C],WHAT+...')");
		break;
	}
	case SCEN_USAGE:
		pf(buf, size, "usage: fig22 [RUN_US] | corners K [RUN_US] | simul N K [RUN_US] | random SEED N [RUN_US]");
		break;
	case SCEN_RUN_RANGE: pf(buf, size, "RUN_US must be 1..%lu", limit); break;
	case SCEN_FIG22_DOMAINS: pf(buf, size, "fig22 needs two domains"); break;
	case SCEN_SIMUL_N: pf(buf, size, "simul: N must be 1..%lu (one job per micro-kernel)", limit); break;
	case SCEN_RANDOM_NO_CORES: pf(buf, size, "random: the machine has no cores for jobs"); break;
	case SCEN_RANDOM_N: pf(buf, size, "random: N must be 1..%lu", limit); break;
	case SCEN_JOB_SYNTAX: pf(buf, size, "job %u: expected 'T_US HOME NTASKS[/C] RUN_US|PROGRAM[:ARG]'", job); break;
	case SCEN_JOB_NUMBER: pf(buf, size, "job %u: a number larger than 64 bits hold", job); break;
	case SCEN_JOB_WANT_RUN: pf(buf, size, "job %u: partial simulation wants a run time in us", job); break;
	case SCEN_JOB_WANT_PROGRAM: pf(buf, size, "job %u: real-task mode wants a program name", job); break;
	case SCEN_JOB_OVERSUB_PARTIAL:
		pf(buf, size, "job %u: NTASKS/C is for real tasks: partial simulation has no oversubscription", job);
		break;
	case SCEN_JOB_CORES: pf(buf, size, "job %u: cores C must be 1..NTASKS (%lu)", job, limit); break;
	case SCEN_JOB_PROGRAM_LONG: pf(buf, size, "job %u: a program name has at most %lu characters", job, limit); break;
	case SCEN_JOB_RANGE: pf(buf, size, "job %u: home or time out of range", job); break;
	case SCEN_TOO_MANY: pf(buf, size, "more than %lu jobs (the most a scenario holds)", limit); break;
	case SCEN_NO_JOBS: pf(buf, size, "no jobs"); break;
	case SCEN_FILE_EMPTY: pf(buf, size, "no jobs in the file (only blank lines and comments)"); break;
	case SCEN_FILE_USAGE: pf(buf, size, "usage: file (the jobs of the scenario file given at boot)"); break;
	case SCEN_NO_FILE:
		pf(buf, size, "none was given (scripts/mosaic-run --scenario FILE loads one at boot; "
		   "mosaic-sim --scenario-file FILE)");
		break;
	case SCEN_FILE_BIG:
		pf(buf, size, "the scenario file has %lu bytes, more than %lu", (unsigned long)e->value, limit);
		break;
	case SCEN_FILE_BINARY:
		pf(buf, size, "column %u: byte 0x%02lx is not text (a scenario file is lines of ASCII text)", e->column,
		   (unsigned long)e->value);
		break;
	case SCEN_LINE_LONG: pf(buf, size, "longer than %lu characters", limit); break;
	case SCEN_FILE_NO_NEWLINE: pf(buf, size, "the file ends inside this line (no newline after it): truncated?"); break;
	}
}
