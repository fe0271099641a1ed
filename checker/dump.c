/*
 * The state of every micro-kernel in words, printed after a violation so that a
 * deadlock can be read: free cores, the wait queue, the jobs of this home, the
 * parts it runs, messages held for an adaptive tree, failed links.
 */
#include "checker/env.h"
#include <stdio.h>

static const char *const states[] = {"delayed", "seq-wait", "requesting", "blocked", "satisfied", "running"};

void sys_dump(FILE *f)
{
	for (unsigned d = 0; d < S->nd; d++) {
		const struct mk *m = &S->mks[d];
		if (m->nfree == m->capacity && !m->nwq && !m->jobs && !m->parts && !m->held && !m->nsq)
			continue;
		fprintf(f, "  mk %u: %u/%u free, epoch %u, dead links %#x%s\n", d, m->nfree, m->capacity, m->epoch, m->dead,
			m->held ? ", messages held for its tree" : "");
		for (unsigned i = 0; i < m->nwq; i++)
			fprintf(f, "    queue: job %u home %u attempt %u t %llu: %u of %u%s\n", m->wq[i].job, m->wq[i].home,
				m->wq[i].attempt, (unsigned long long)m->wq[i].t_submit, m->wq[i].committed,
				m->wq[i].need, m->wq[i].local ? " (local)" : "");
		for (const struct home_job *j = m->jobs; j; j = j->next)
			fprintf(f, "    home job %u: %u cores, %s, attempt %u, got %u, t %llu\n", j->id, j->spec.ntasks,
				j->state < 6 ? states[j->state] : "?", j->attempt, j->got, (unsigned long long)j->t_submit);
		for (const struct run_part *p = m->parts; p; p = p->next)
			fprintf(f, "    part of job %u: %u cores, %u done\n", p->job, p->count, p->done);
		for (unsigned i = 0; i < m->nsq; i++)
			fprintf(f, "    sequencer queue: job %u\n", m->sq[i].job);
		if (m->seq_current)
			fprintf(f, "    sequencer current: job %u\n", m->seq_current);
	}
}
