/*
 * Deadlock avoidance by active cancellation (thesis Section 2.3.2). The home of a
 * job that its domain cannot hold propagates a greedy request (every micro-kernel
 * is asked for all the cores the job needs) and counts the commitments that come
 * back. When a request older in the global order reaches a home that has younger
 * requests of its own out, it cancels them (BLOCKED): every micro-kernel frees the
 * cores it had committed to them, and gives them to the oldest request it knows.
 * A blocked job is renewed, with a new attempt number, once no older request from
 * elsewhere is left in its home's wait queue (the older job was spawned or was
 * itself cancelled in favour of an even older one).
 */
#include "kernel/alloc/proto.h"
#include "drivers/timer.h"
#include "lib/string.h"

static bool older_foreign_request(struct mk *m, const struct home_job *j)
{
	for (unsigned i = 0; i < m->nwq; i++) {
		const struct wq_entry *e = &m->wq[i];
		if (!order_before(e->t_submit, e->home, e->job, j->t_submit, m->dom, j->id))
			break; /* the queue is in the global order: the rest are younger */
		if (!e->local && e->home != m->dom)
			return true;
	}
	return false;
}

static void request(struct mk *m, struct home_job *j)
{
	j->state = HJ_REQUESTING;
	j->attempt++;
	j->attempts++;
	j->got = 0;
	memset(j->commit_count, 0, sizeof j->commit_count);
	memset(j->commit_mask, 0, sizeof j->commit_mask);
	struct wq_entry e = {.job = j->id, .home = m->dom, .attempt = j->attempt, .t_submit = j->t_submit,
			     .need = j->spec.ntasks};
	wq_insert(m, &e);
	struct alloc_hdr h = {.kind = AK_REQ, .job = j->id, .home = m->dom, .attempt = j->attempt,
			      .t_submit = j->t_submit, .need = j->spec.ntasks};
	prop_start(m, &h, sizeof h);
}

void ac_begin(struct mk *m, struct home_job *j)
{
	if (older_foreign_request(m, j)) {
		j->state = HJ_BLOCKED; /* it would be cancelled at once: wait for the older one */
		return;
	}
	request(m, j);
}

/* An older request arrived: cancel every younger request of this home still collecting. */
void ac_on_request(struct mk *m, const struct alloc_hdr *h)
{
	if (h->home == m->dom)
		return;
	for (struct home_job *j = m->jobs; j; j = j->next) {
		if (j->state != HJ_REQUESTING || !j->global ||
		    !order_before(h->t_submit, h->home, h->job, j->t_submit, m->dom, j->id))
			continue;
		struct wq_entry *own = wq_find(m, j->id);
		if (own) {
			check_release(own->job, m->dom, own->mask, own->committed);
			wq_remove(m, own, true);
		}
		j->state = HJ_BLOCKED;
		j->cancels++;
		trace_event(TR_CANCEL, j->id, h->job, j->attempt);
		tomb_add(m, j->id, j->attempt);
		struct alloc_hdr c = {.kind = AK_CANCEL, .job = j->id, .home = m->dom, .attempt = j->attempt,
				      .t_submit = j->t_submit, .need = j->spec.ntasks};
		prop_start(m, &c, sizeof c);
	}
}

void ac_periodic(struct mk *m)
{
	for (struct home_job *j = m->jobs; j; j = j->next)
		if (j->state == HJ_BLOCKED && !older_foreign_request(m, j))
			request(m, j);
}
