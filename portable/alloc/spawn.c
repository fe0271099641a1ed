/*
 * From cores to a running job and back: the home maps the job onto the committed
 * cores nearest to it and spawns it; each micro-kernel starts its share (tasks
 * on its pico-kernels in real-task mode, through its home's penv_part_start; a
 * timer in partial simulation), frees the cores it committed beyond its share,
 * and tells the home when its share has ended; the home then reports to the
 * submitter.
 */
#include "portable/alloc/proto_env.h"

/* ---- the home: mapping and spawn ---- */

struct cand {
	uint16_t hops, dom, core, count;
};

static bool cand_before(const struct cand *a, const struct cand *b)
{
	return a->hops != b->hops ? a->hops < b->hops : a->core < b->core;
}

static void sift_down(struct cand *c, unsigned i, unsigned n)
{
	for (;;) {
		unsigned big = i, l = 2 * i + 1, r = l + 1;
		if (l < n && cand_before(&c[big], &c[l]))
			big = l;
		if (r < n && cand_before(&c[big], &c[r]))
			big = r;
		if (big == i)
			return;
		struct cand t = c[i];
		c[i] = c[big];
		c[big] = t;
		i = big;
	}
}

/* Heapsort: a whole-machine job of a 16,384-node simulation has that many candidates. The
 * order is total (hops, then core id: no two candidates share a core), so any sort gives the
 * same mapping. */
static void sort_cands(struct cand *c, unsigned n)
{
	for (unsigned i = n / 2; i-- > 0;)
		sift_down(c, i, n);
	for (unsigned end = n; end > 1; end--) {
		struct cand t = c[0];
		c[0] = c[end - 1];
		c[end - 1] = t;
		sift_down(c, 0, end - 1);
	}
}

/* The message spawning j: header, body, then per micro-kernel its count, then (real-task
 * mode) the cores in rank order. */
static uint8_t *build_spawn(struct mk *m, struct home_job *j, uint32_t nassign, const uint64_t *chosen,
			    uint32_t *len_out)
{
	uint32_t ncores = m->w->partial ? 0 : job_cores(&j->spec);
	uint32_t len = sizeof(struct alloc_hdr) + sizeof(struct spawn_body) + nassign * sizeof(struct spawn_assign) +
		       ncores * sizeof(uint16_t);
	uint8_t *msg = penv_alloc(len);
	if (!msg)
		penv_panic(m, "alloc: out of memory for a spawn message");
	__builtin_memset(msg, 0, len);
	struct alloc_hdr *h = (struct alloc_hdr *)msg;
	struct spawn_body *b = (struct spawn_body *)(h + 1);
	struct spawn_assign *a = (struct spawn_assign *)(b + 1);
	uint16_t *cores = (uint16_t *)(a + nassign);
	*h = (struct alloc_hdr){.kind = AK_SPAWN, .job = j->id, .home = m->dom, .attempt = j->attempt,
				.t_submit = j->t_submit, .need = job_cores(&j->spec)};
	__builtin_memcpy(b->program, j->spec.program, sizeof b->program);
	b->arg = j->spec.arg;
	b->args = j->spec.args;
	b->duration_us = j->spec.duration_us;
	b->cpu_ms = j->spec.cpu_ms;
	b->submitter = j->submitter;
	b->nassign = (uint16_t)nassign;
	b->ncores = (uint16_t)ncores;
	b->ntasks = (uint16_t)j->spec.ntasks; /* real-task jobs are kept below 2^16 tasks by their submitter */
	b->ep_first = j->spec.ep_first;
	b->place = j->spec.place;
	b->wait = j->spec.wait;
	__builtin_memcpy(a, j->assign, nassign * sizeof *a);
	for (unsigned k = 0, i = 0; k < m->w->ncores && i < ncores; k++)
		if (mask_has(chosen, k))
			cores[i++] = (uint16_t)k;
	*len_out = len;
	return msg;
}

/*
 * Task-to-core mapping: the committed cores nearest the home micro-kernel (XY
 * hops, ties to the lower core id), as many as the job needs; in partial
 * simulation a micro-kernel's virtual cores all sit at its tile.
 */
void home_satisfied(struct mk *m, struct home_job *j)
{
	const struct proto_world *w = m->w;
	unsigned ncand = 0;
	for (unsigned d = 0; d < w->ndomains; d++)
		if (j->commit_count[d])
			ncand += w->partial ? 1 : j->commit_count[d];
	struct cand *c = penv_alloc((ncand ? ncand : 1) * sizeof *c);
	uint16_t *take = penv_alloc(w->ndomains * sizeof *take);
	if (!c || !take)
		penv_panic(m, "alloc: out of memory mapping job %u", j->id);
	__builtin_memset(take, 0, w->ndomains * sizeof *take);
	unsigned n = 0;
	for (unsigned d = 0; d < w->ndomains; d++) {
		if (!j->commit_count[d])
			continue;
		if (w->partial) {
			c[n++] = (struct cand){(uint16_t)proto_hops(w, m->core, w->master[d]), (uint16_t)d,
					       w->master[d], j->commit_count[d]};
			continue;
		}
		for (MASK_EACH(j->commit_mask[d], k))
			if (n < ncand)
				c[n++] = (struct cand){(uint16_t)proto_hops(w, m->core, k), (uint16_t)d, (uint16_t)k, 1};
	}
	sort_cands(c, n);
	uint64_t chosen[PROTO_MASK_WORDS] = {0};
	uint32_t left = job_cores(&j->spec), nassign = 0;
	for (unsigned i = 0; i < n && left; i++) {
		uint32_t k = c[i].count < left ? c[i].count : left;
		if (!take[c[i].dom])
			nassign++;
		take[c[i].dom] = (uint16_t)(take[c[i].dom] + k);
		left -= k;
		if (!w->partial)
			mask_set(chosen, c[i].core);
	}
	penv_free(c);
	if (w->cfg->check && left)
		penv_fail(m, "job %u starts on %u cores, it asked for %u", j->id, job_cores(&j->spec) - left,
			  job_cores(&j->spec));
	penv_free(j->assign);
	j->assign = penv_alloc((nassign ? nassign : 1) * sizeof *j->assign);
	if (!j->assign)
		penv_panic(m, "alloc: out of memory mapping job %u", j->id);
	for (unsigned d = 0, i = 0; d < w->ndomains; d++)
		if (take[d])
			j->assign[i++] = (struct spawn_assign){(uint16_t)d, take[d]};
	penv_free(take);
	__builtin_memcpy(j->held, chosen, sizeof j->held); /* for the report: which cores it held */
	penv_free(j->holds);
	j->holds_cap = w->partial ? nassign : job_cores(&j->spec);
	j->nholds = 0;
	j->holds = penv_alloc((j->holds_cap ? j->holds_cap : 1) * sizeof *j->holds);
	if (!j->holds)
		penv_panic(m, "alloc: out of memory for the holds of job %u", j->id);
	uint32_t len;
	uint8_t *msg = build_spawn(m, j, nassign, chosen, &len);
	struct alloc_hdr *h = (struct alloc_hdr *)msg;
	j->t_alloc = penv_now(m);
	j->state = HJ_RUNNING;
	struct wq_entry *own = wq_find(m, j->id);
	if (own)
		own->need = own->committed; /* it wants no more here; its spawn frees what is not used */
	j->parts_pending = nassign;
	j->nparts = nassign;
	penv_trace(m, TR_SATISFIED, j->id, j->got, j->attempt);
	if (!j->global) {
		spawn_receive(m, h, len);
	} else if (w->cfg->policy == ALLOC_POLICY_AC) {
		prop_start(m, h, len);
		spawn_receive(m, h, len);
	} else {
		h->kind = AK_SEQ_ALLOC;
		if (w->sequencer == m->dom) {
			h->from = m->dom;
			ab_on_seq_alloc(m, h, len);
		} else {
			mk_send(m, w->sequencer, h, len);
		}
	}
	penv_free(msg);
}

/* ---- every micro-kernel: its share of a spawned job ---- */

void run_part_free(struct mk *m, struct run_part *p)
{
	penv_part_free(m, p);
	penv_free(p->holds);
	penv_free(p);
}

/* Tells the part's home that it ended (the home itself without a message). With `forget`,
 * the part is freed first (real-task mode, where no timer refers to it), so that whoever
 * the job's report reaches finds nothing of it left on this micro-kernel. */
static void part_finished(struct mk *m, struct run_part *p, bool forget)
{
	uint32_t len = sizeof(struct alloc_hdr) + p->nholds * sizeof(struct job_hold);
	uint8_t *msg = penv_alloc(len);
	if (!msg)
		penv_panic(m, "alloc: out of memory for the end of a part of job %u", p->job);
	struct alloc_hdr *h = (struct alloc_hdr *)msg;
	*h = (struct alloc_hdr){.kind = AK_PART_DONE, .job = p->job, .home = p->home, .count = p->count,
				.failed = p->failed, .value = p->exit_code, .t_event = p->t_start};
	__builtin_memcpy(h + 1, p->holds, p->nholds * sizeof(struct job_hold));
	if (forget) {
		struct run_part **pp = &m->parts;
		while (*pp != p)
			pp = &(*pp)->next;
		*pp = p->next;
		run_part_free(m, p);
	}
	if (h->home == m->dom) {
		h->from = m->dom;
		run_part_done(m, h, len);
	} else {
		mk_send(m, h->home, h, len);
	}
	penv_free(msg);
	m->dirty = true;
}

/* Partial simulation: the part's run time is over; its virtual cores are free. */
void run_part_timer(struct mk *m, struct run_part *p)
{
	m->nfree += p->count;
	penv_hold(m, p->job, p->mask, p->count, false);
	p->holds[0].t_given = penv_now(m);
	p->done = p->count;
	penv_trace(m, TR_END, p->job, p->count, 0);
	part_finished(m, p, false); /* its timer's record is the home's until it is done: freed by run_reap */
}

static void start_part(struct mk *m, const struct alloc_hdr *h, const struct spawn_body *b, const uint16_t *cores,
		       const uint64_t *mine, uint32_t x)
{
	struct run_part *p = penv_alloc(sizeof *p);
	if (!p)
		penv_panic(m, "alloc: out of memory for a running job");
	__builtin_memset(p, 0, sizeof *p);
	p->job = h->job;
	p->home = h->home;
	p->submitter = b->submitter;
	p->count = x;
	__builtin_memcpy(p->mask, mine, sizeof p->mask);
	p->arg = b->arg;
	p->args = b->args;
	__builtin_memcpy(p->program, b->program, sizeof p->program);
	p->program[ALLOC_PROGRAM_MAX - 1] = 0;
	p->t_start = penv_now(m);
	/* the cores are the job's from here until each is given back (struct job_hold) */
	p->nholds = m->w->partial ? 1 : x;
	p->holds = penv_alloc(p->nholds * sizeof *p->holds);
	if (!p->holds)
		penv_panic(m, "alloc: out of memory for a running job");
	if (m->w->partial) {
		p->holds[0] = (struct job_hold){.mk = m->dom, .core = PROTO_HOLD_VIRTUAL, .count = x, .t_taken = p->t_start};
	} else {
		uint32_t i = 0;
		for (MASK_EACH(mine, c))
			if (i < x)
				p->holds[i++] = (struct job_hold){.mk = m->dom, .core = (uint16_t)c, .count = 1,
								  .t_taken = p->t_start};
		p->nholds = i;
	}
	p->next = m->parts;
	m->parts = p;
	penv_trace(m, TR_START, p->job, x, h->home);
	if (m->w->partial) {
		p->timer = (struct proto_timer){.kind = PT_PART_END, .obj = p};
		p->timer.armed = penv_timer(m, &p->timer, p->t_start + b->duration_us * 1000);
		PROTO_ASSERT(m, p->timer.armed);
		return;
	}
	penv_part_start(m, p, b, cores);
}

void spawn_receive(struct mk *m, const struct alloc_hdr *h, uint32_t len)
{
	const struct spawn_body *b = (const struct spawn_body *)(h + 1);
	if (len < sizeof *h + sizeof *b ||
	    len != sizeof *h + sizeof *b + b->nassign * sizeof(struct spawn_assign) + b->ncores * sizeof(uint16_t)) {
		penv_fail(m, "micro-kernel %u: malformed spawn of job %u (%u bytes)", m->dom, h->job, len);
		return;
	}
	const struct spawn_assign *a = (const struct spawn_assign *)(b + 1);
	const uint16_t *cores = (const uint16_t *)(a + b->nassign);
	/* home_satisfied lists the micro-kernels in ascending order: a binary search, since a
	 * whole-machine job of a 16,384-node simulation lists them all, at every node */
	uint32_t x = 0;
	for (unsigned lo = 0, hi = b->nassign; lo < hi;) {
		unsigned mid = lo + (hi - lo) / 2;
		if (a[mid].mk == m->dom) {
			x = a[mid].count;
			break;
		}
		if (a[mid].mk < m->dom)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t mine[PROTO_MASK_WORDS] = {0};
	for (unsigned i = 0; i < b->ncores; i++)
		if (cores[i] < m->w->ncores && m->w->core_dom[cores[i]] == m->dom)
			mask_set(mine, cores[i]);
	struct wq_entry *e = wq_find(m, h->job);
	if (e) {
		bool foreign = false;
		for (unsigned w = 0; w < PROTO_MASK_WORDS; w++)
			foreign |= (mine[w] & ~e->mask[w]) != 0;
		if (x > e->committed || foreign)
			penv_fail(m, "micro-kernel %u: job %u spawned on %u cores here, %u committed", m->dom, h->job,
				  x, e->committed);
		uint64_t rest[PROTO_MASK_WORDS];
		for (unsigned w = 0; w < PROTO_MASK_WORDS; w++) {
			rest[w] = e->mask[w] & ~mine[w];
			m->freemask[w] |= rest[w];
		}
		m->nfree += e->committed - x;
		penv_hold(m, h->job, rest, e->committed - x, false);
		wq_remove(m, e, false);
	} else if (x) {
		penv_fail(m, "micro-kernel %u: job %u spawned on %u cores here without a request", m->dom, h->job, x);
	}
	tomb_add(m, h->job, 0xffff);
	if (m->w->cfg->policy == ALLOC_POLICY_AC)
		ac_note_progress(m, h->job, 0xffff);
	m->dirty = true;
	if (x)
		start_part(m, h, b, cores, mine, x);
}

void run_task_done(struct mk *m, const struct alloc_hdr *h)
{
	unsigned core = h->from;
	struct run_part *p = m->parts;
	while (p && !(p->job == h->job && core < PROTO_MASK_CORES && mask_has(p->mask, core) && p->done < p->count))
		p = p->next;
	if (!p) {
		penv_fail(m, "micro-kernel %u: task end from core %u for job %u it does not run", m->dom, core, h->job);
		return;
	}
	p->done++;
	if (h->flags & AF_FAILED)
		p->failed += h->failed ? h->failed : 1; /* an oversubscribed core tells how many of its tasks */
	if (h->value && !p->exit_code)
		p->exit_code = h->value;
	if (h->t_event > p->t_start)
		p->t_start = h->t_event;
	for (uint32_t i = 0; i < p->nholds; i++)
		if (p->holds[i].core == core)
			p->holds[i].t_given = penv_now(m);
	uint64_t one[PROTO_MASK_WORDS] = {0};
	mask_set(one, core);
	penv_hold(m, h->job, one, 1, false);
	mask_set(m->freemask, core);
	m->nfree++;
	m->dirty = true;
	if (p->done == p->count) {
		penv_trace(m, TR_END, p->job, p->count, p->failed);
		part_finished(m, p, true);
	}
}

/* At the home: one micro-kernel's share of the job ended; the last one ends the job. */
void run_part_done(struct mk *m, const struct alloc_hdr *h, uint32_t len)
{
	struct home_job *j = home_find(m, h->job), **pp;
	if (!j || j->state != HJ_RUNNING || !j->parts_pending) {
		penv_fail(m, "home %u: end of a part of job %u it does not run", m->dom, h->job);
		return;
	}
	uint32_t n = (len - sizeof *h) / sizeof(struct job_hold);
	if ((len - sizeof *h) % sizeof(struct job_hold) || n > j->holds_cap - j->nholds) {
		penv_fail(m, "home %u: the end of a part of job %u has %u bytes of holds", m->dom, h->job,
			  len - (uint32_t)sizeof *h);
	} else {
		__builtin_memcpy(j->holds + j->nholds, h + 1, n * sizeof(struct job_hold));
		j->nholds += n;
	}
	j->failed_tasks += h->failed;
	if (h->value && !j->exit_code)
		j->exit_code = h->value;
	if (h->t_event > j->t_start)
		j->t_start = h->t_event;
	if (--j->parts_pending)
		return;
	j->t_end = penv_now(m);
	penv_trace(m, TR_REPORT, j->id, j->submitter, j->failed_tasks != 0);
	penv_report(m, j);
	for (pp = &m->jobs; *pp != j; pp = &(*pp)->next)
		;
	*pp = j->next;
	m->njobs--;
	home_job_free(j);
}

/* Frees the shares that ended (a partial simulation's once its timer has fired). */
void run_reap(struct mk *m)
{
	for (struct run_part **pp = &m->parts; *pp;) {
		struct run_part *p = *pp;
		bool over = p->done == p->count && (!p->timer.armed || p->timer.fired);
		if (!over) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		run_part_free(m, p);
	}
}
