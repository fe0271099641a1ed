/*
 * Deadlock avoidance by sequencer-based atomic broadcast (thesis Section 2.3.3).
 * Every job that needs more than its home domain is submitted to one sequencer
 * (the micro-kernel nearest the mesh centre: sequencer_dom), which keeps them in
 * the global order and lets one at a time collect cores: it propagates the job's
 * request, the micro-kernels commit cores to the home as they free up, and when
 * the home has them all it hands the job's mapping back; the sequencer then
 * propagates the spawn and, behind it on the same paths, the next request. With
 * one request collecting at a time no two jobs hold parts of what both need.
 */
#include "portable/alloc/proto_env.h"


void ab_begin(struct mk *m, struct home_job *j)
{
	j->state = HJ_SEQ_WAIT;
	j->attempt = 1;
	j->attempts = 1;
	struct alloc_hdr h = {.kind = AK_SEQ_SUBMIT, .job = j->id, .home = m->dom, .attempt = 1,
			      .t_submit = j->t_submit, .need = job_cores(&j->spec)};
	unsigned s = m->w->sequencer;
	if (s == m->dom) {
		h.from = m->dom;
		ab_on_seq_submit(m, &h);
	} else {
		mk_send(m, s, &h, sizeof h);
	}
}

void ab_on_seq_submit(struct mk *m, const struct alloc_hdr *h)
{
	struct wq_entry e = {.job = h->job, .home = h->home, .attempt = h->attempt, .t_submit = h->t_submit,
			     .need = h->need};
	sq_insert(m, &e);
}

/* The home has its cores: spawn it on the same paths as its request, then release the next. */
void ab_on_seq_alloc(struct mk *m, struct alloc_hdr *h, uint32_t len)
{
	if (h->job != m->seq_current)
		penv_fail(m, "sequencer %u: SEQ_ALLOC for job %u while job %u is current", m->dom, h->job,
			   m->seq_current);
	h->kind = AK_SPAWN;
	prop_start(m, h, len);
	spawn_receive(m, h, len);
	m->seq_current = 0;
	m->dirty = true;
}

void ab_periodic(struct mk *m)
{
	if (m->dom != m->w->sequencer || m->seq_current || !m->nsq)
		return;
	struct wq_entry next = m->sq[0];
	__builtin_memmove(&m->sq[0], &m->sq[1], (m->nsq - 1) * sizeof next);
	m->nsq--;
	m->seq_current = next.job;
	struct alloc_hdr h = {.kind = AK_REQ, .job = next.job, .home = next.home, .attempt = next.attempt,
			      .t_submit = next.t_submit, .need = next.need};
	prop_start(m, &h, sizeof h);
	/* the sequencer is a micro-kernel with cores too: its own copy of the request */
	struct wq_entry e = next;
	e.committed = 0;
	e.mask[0] = e.mask[1] = 0;
	if (!tomb_closed(m, e.job, e.attempt) && !wq_find(m, e.job))
		wq_insert(m, &e);
	if (next.home == m->dom) {
		struct home_job *j = home_find(m, next.job);
		if (j && j->state == HJ_SEQ_WAIT)
			j->state = HJ_REQUESTING;
	}
}
