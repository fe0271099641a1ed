/*
 * A random workload for the stress test, drawn from one seed and nothing else:
 * the mesh, the cores per domain, policy and scheme, the NoC delays, the jobs
 * (sizes from one core to the whole machine, bursts submitted at one instant,
 * random homes and run times) and, under the adaptive scheme, grid links failed
 * midway. Options may pin the mesh, policy or scheme; they are part of the
 * reproducer.
 */
#ifndef CHECKER_WORKLOAD_H
#define CHECKER_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include "portable/alloc/job.h"

#define WL_MAX_JOBS 24
#define WL_MAX_FAILS 2

struct wl_pins {
	int policy, scheme;      /* -1: drawn */
	unsigned dx, dy;         /* 0: drawn */
	unsigned max_side;       /* largest drawn side (2..16) */
};

struct workload {
	unsigned dx, dy, v;
	enum alloc_policy policy;
	enum alloc_scheme scheme;
	uint64_t hop_ns, extra_ns;
	unsigned njobs;
	struct {
		unsigned home, ntasks;
		uint64_t duration_us, t_submit, t_arrive; /* t_submit 0: the arrival time */
	} jobs[WL_MAX_JOBS];
	unsigned nfails;
	struct {
		unsigned a, b;
		uint64_t t;
	} fails[WL_MAX_FAILS];
};

void wl_draw(uint64_t seed, const struct wl_pins *pins, struct workload *w);

#endif
