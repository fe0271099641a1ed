/*
 * Deadlock avoidance by active cancellation (thesis Section 2.3.2). The home of a
 * job that its domain cannot hold propagates a greedy request (every micro-kernel
 * is asked for all the cores the job needs) and counts the commitments that come
 * back. When a request older in the global order reaches a home that has younger
 * requests of its own out, it cancels them (BLOCKED): every micro-kernel frees the
 * cores it had committed to them, and gives them to the oldest request it knows.
 * A blocked job is renewed, with a new attempt number, once no older job from
 * elsewhere is left that still has to go first: no older request in its home's
 * wait queue, and no older request this home knows to be cancelled and not yet
 * renewed (a dormant job). Without the second condition every blocked job renewed
 * as soon as the oldest one spawned, and all but the next were cancelled again:
 * job k was cancelled about k times, n^2/2 cancellations for n jobs, where the
 * thesis counts n - 1 (Section 5.1.3). docs/allocation.md, "Cancellation storms".
 */
#include "portable/alloc/proto_env.h"

static bool older_foreign_request(struct mk *m, const struct home_job *j)
{
	for (unsigned i = 0; i < m->nwq; i++) {
		const struct wq_entry *e = &m->wq[i];
		if (!order_before(e->t_submit, e->home, e->job, j->t_submit, m->dom, j->id))
			break; /* the queue is in the global order: the rest are younger */
		if (!e->local && e->home != m->dom)
			return true;
	}
	/* the dormant list is in the global order too: its first entry is its oldest */
	return m->ndormant && order_before(m->dormant[0].t_submit, m->dormant[0].home, m->dormant[0].job,
					   j->t_submit, m->dom, j->id);
}

static struct wq_entry *dormant_find(struct mk *m, uint32_t job)
{
	for (unsigned i = 0; i < m->ndormant; i++)
		if (m->dormant[i].job == job)
			return &m->dormant[i];
	return 0;
}

/*
 * Remembers a cancelled foreign request until the job renews it or spawns. A copy that
 * comes late is not remembered: one of a job that has spawned here already (its tomb is
 * closed for good), or one older than a request of that job in the wait queue.
 */
void ac_note_cancel(struct mk *m, const struct alloc_hdr *h)
{
	struct wq_entry *q = wq_find(m, h->job);
	if (tomb_closed(m, h->job, 0xffff) || (q && q->attempt > h->attempt))
		return;
	struct wq_entry *d = dormant_find(m, h->job);
	if (d) {
		if (h->attempt > d->attempt)
			d->attempt = h->attempt;
		return;
	}
	struct wq_entry e = {.job = h->job, .home = h->home, .attempt = h->attempt, .t_submit = h->t_submit};
	entries_insert(m, &m->dormant, &m->ndormant, &m->dormant_cap, &e);
}

/* The job sent a request of a later attempt than the one cancelled, or spawned (0xffff). */
void ac_note_progress(struct mk *m, uint32_t job, uint16_t attempt)
{
	struct wq_entry *d = dormant_find(m, job);
	if (!d || d->attempt >= attempt)
		return;
	unsigned i = (unsigned)(d - m->dormant);
	__builtin_memmove(&m->dormant[i], &m->dormant[i + 1], (m->ndormant - i - 1) * sizeof *d);
	m->ndormant--;
	m->dirty = true; /* a blocked job here may renew now */
}

/*
 * Cancels every global request of this home that is still collecting and is
 * younger than (t_submit, home, job). The trigger is an older request reaching
 * this home: one from elsewhere, or one this home itself starts. The second case
 * matters because two jobs of one home can hold cores for each other too (a
 * younger one renewed or routed ahead of an older one takes cores the older one
 * waits for); no other micro-kernel would ever cancel them.
 */
static void cancel_younger(struct mk *m, uint64_t t_submit, unsigned home, uint32_t job)
{
	for (struct home_job *j = m->jobs; j; j = j->next) {
		if (j->state != HJ_REQUESTING || !j->global || j->id == job ||
		    !order_before(t_submit, home, job, j->t_submit, m->dom, j->id))
			continue;
		struct wq_entry *own = wq_find(m, j->id);
		if (own) {
			penv_hold(m, own->job, own->mask, own->committed, false);
			wq_remove(m, own, true);
		}
		j->state = HJ_BLOCKED;
		j->cancels++;
		penv_trace(m, TR_CANCEL, j->id, job, j->attempt);
		tomb_add(m, j->id, j->attempt);
		struct alloc_hdr c = {.kind = AK_CANCEL, .job = j->id, .home = m->dom, .attempt = j->attempt,
				      .t_submit = j->t_submit, .need = job_cores(&j->spec)};
		prop_start(m, &c, sizeof c);
	}
}

static void request(struct mk *m, struct home_job *j)
{
	j->state = HJ_REQUESTING;
	j->attempt++;
	j->attempts++;
	home_reset_commits(m, j);
	struct wq_entry e = {.job = j->id, .home = m->dom, .attempt = j->attempt, .t_submit = j->t_submit,
			     .need = job_cores(&j->spec)};
	wq_insert(m, &e);
	struct alloc_hdr h = {.kind = AK_REQ, .job = j->id, .home = m->dom, .attempt = j->attempt,
			      .t_submit = j->t_submit, .need = job_cores(&j->spec)};
	prop_start(m, &h, sizeof h);
	cancel_younger(m, j->t_submit, m->dom, j->id);
}

void ac_begin(struct mk *m, struct home_job *j)
{
	if (older_foreign_request(m, j)) {
		j->state = HJ_BLOCKED; /* it would be cancelled at once: wait for the older one */
		return;
	}
	request(m, j);
}

/* An older request from another home arrived: cancel this home's younger ones. */
void ac_on_request(struct mk *m, const struct alloc_hdr *h)
{
	if (h->home != m->dom)
		cancel_younger(m, h->t_submit, h->home, h->job);
}

/*
 * Renews blocked jobs oldest first, so that a home's requests leave it in the
 * global order (then they reach every micro-kernel in that order, and none of
 * them has to cancel another). The oldest blocked job that must still wait for
 * an older foreign request stops the walk: every younger one would wait too.
 */
void ac_periodic(struct mk *m)
{
	for (;;) {
		struct home_job *oldest = 0;
		for (struct home_job *j = m->jobs; j; j = j->next)
			if (j->state == HJ_BLOCKED &&
			    (!oldest || order_before(j->t_submit, m->dom, j->id, oldest->t_submit, m->dom, oldest->id)))
				oldest = j;
		if (!oldest || older_foreign_request(m, oldest))
			return;
		request(m, oldest);
	}
}
