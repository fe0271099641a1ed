/* The two kinds of simulation run.c drives; main.c calls them (0: fine, 1: jobs
 * did not end or the run failed, 2: refused input). */
#ifndef SIM_RUN_H
#define SIM_RUN_H
#include <stdint.h>
int run_jobs(char *err, unsigned errlen);
int run_propbench(uint64_t *ns, uint64_t *msgs, uint32_t *reached, char *err, unsigned errlen);
#endif
