/*
 * The collectives' tuned table and the measuring behind `coll tune` and `make bench-coll`
 * (kernel/msg/coll_tune.c, docs/collectives.md).
 */
#ifndef KERNEL_MSG_COLL_TUNE_H
#define KERNEL_MSG_COLL_TUNE_H

#include <stdbool.h>
#include "kernel/msg/group.h"

#define COLL_GROUP_CLASSES 8   /* n <= 1, 2, 4, ..., 128 */
#define COLL_SIZE_CLASSES 6    /* block bytes <= 8, 64, 512, 4 KiB, 32 KiB, 64 KiB */
#define COLL_MEASURE_BUFFER (128 * 1024) /* each member's in and out buffer while measuring */
#define COLL_MEASURE_MAX_REPS 15
#define COLL_MAX_TRIALS 192

/* One thing to time: k collectives of one kind, back to back, with `how` and `bytes` per
 * block (reduce: a multiple of 8). Rank 0 is the root. */
struct coll_trial {
	enum msg_coll kind;
	unsigned how;
	uint32_t bytes;
	unsigned k;
};

unsigned coll_group_class(unsigned n);
unsigned coll_size_class(uint64_t bytes);
uint32_t coll_size_of_class(unsigned c);
/* False if the trial's buffers do not fit COLL_MEASURE_BUFFER on n members (or it is malformed). */
bool coll_trial_fits(const struct coll_trial *t, unsigned n);
/* Runs every trial reps times on the cores (all idle) and gives each one's median span in ns:
 * from the first member's start to the last member's end, on the cores' clocks. -EBUSY if a
 * core could not take the run, -EINVAL for a trial that does not fit. */
int coll_measure(const uint16_t *cores, unsigned n, const struct coll_trial *trials, unsigned ntrials, unsigned reps,
		 uint64_t *ns);
/* Measures every algorithm on groups of 2, 4, ... up to every core and installs the fastest. */
int coll_tune(unsigned reps, bool verbose);
bool coll_table_tuned(void);
/* One entry of the table (0: not measured) and its winner's time; the untuned default. */
uint8_t coll_table_entry(enum msg_coll kind, unsigned group_class, unsigned size_class, uint64_t *ns);
enum msg_algo coll_untuned(enum msg_coll kind);
/* Why tuning may not run now (a task runs, a job is in the system), or NULL (coll_shell.c). */
const char *coll_tune_refusal(void);

#endif
