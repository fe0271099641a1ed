/*
 * The exhaustive checker's small configurations: a grid of 2 or 3 micro-kernels
 * and 2 or 3 jobs, each named. fig22 is the deadlock of the thesis's Fig. 2.2
 * (two domains of 8 cores, 12 and 16 cores asked at once from both); the others
 * vary it (three domains, a local job, two jobs of one home).
 */
#ifndef CHECKER_CONFIGS_H
#define CHECKER_CONFIGS_H

struct cfg_job {
	unsigned home, ntasks;
	unsigned long long t_submit; /* the global order: (t_submit, home, id) */
};
struct check_config {
	const char *name, *what;
	unsigned dx, dy, v, njobs;
	struct cfg_job jobs[3];
};
extern const struct check_config check_configs[];
extern const unsigned check_nconfigs;

#endif
