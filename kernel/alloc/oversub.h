/*
 * A micro-kernel's part of an oversubscribed job (more tasks than cores,
 * docs/balancing.md). Rank r runs on the job's core r mod C (C: its cores in rank order,
 * as the spawn lists them); the ranks on this micro-kernel's cores run there as one share
 * group (kernel/task/share/share.h): time-sliced, placed by the job's placement, waiting by its
 * wait mode, each with its own job context and virtual message endpoint
 * (drivers/noc/noc_ep.h, rank r's is ep_first + r). Tasks move only between the cores of
 * one part: they are the cores its micro-kernel committed, and a task moved into another
 * domain would run on a core that micro-kernel has given to someone else.
 */
#ifndef KERNEL_ALLOC_OVERSUB_H
#define KERNEL_ALLOC_OVERSUB_H

#include <stdint.h>
#include <stdbool.h>

struct oversub_part;
struct run_part;
struct spawn_body;
struct mk;

/* Starts the part of p (its cores p->mask; `cores`, the job's cores in rank order, must live
 * as long as the part) as the spawn b asks, from its micro-kernel's core mk_core: 0 and
 * *out; or an error (said on the console) if it is refused before anything ran. Each core
 * reports AK_TASK_DONE to mk_core when the part is over there. */
int oversub_start(struct run_part *p, const struct spawn_body *b, const uint16_t *cores, unsigned mk_core,
		  struct oversub_part **out);
/* Starts the cores that were busy; true once all have been. */
bool oversub_call_rest(struct oversub_part *o);
/* Prints its tasks and summary (after every core reported). */
void oversub_summary(struct oversub_part *o);
void oversub_free(struct oversub_part *o);
/* A part refused before it ran: core (index `index` of the job's `ncores`) ends at once with
 * every task it would have run failed. */
void oversub_fail_core(struct mk *m, uint32_t job, unsigned core, unsigned ntasks, unsigned ncores, unsigned index,
		       int why);

/* The job's start barrier over its cores (kernel/alloc/run.c): co-scheduling, no task
 * enters its program before every core has come. 0 or an error. */
int alloc_start_barrier(const uint16_t *cores, unsigned n);

#endif
