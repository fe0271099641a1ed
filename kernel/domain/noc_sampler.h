/*
 * Periodic sampling of the NoC statistics on domain 0's master (kernel/domain/noc_sampler.c): an
 * observer task (task_set_observer), so under virtual time an idle machine does not run it
 * forward.
 */
#ifndef KERNEL_NOC_SAMPLER_H
#define KERNEL_NOC_SAMPLER_H

#include <stdint.h>

/* Starts the sampler on domain 0's master; called once the domains exist. */
void noc_sampler_start(void);
/* The sampling period in ms (boot argument noc_sample_ms; 0: off). */
uint64_t noc_sample_period_ms(void);
/* Samples taken since boot. */
uint64_t noc_samples_taken(void);
/* Of the samples still kept, those taken at or after t_ns on the sampler's clock. */
unsigned noc_samples_since(uint64_t t_ns);

#endif
