/*
 * Periodic sampling of the NoC statistics, as a periodic dispatcher task on
 * domain 0's master (kernel work done in a master's idle time, as the task
 * mechanism intends). It keeps the last NOC_SAMPLES totals; the shell's
 * `noc_samples` prints the traffic between them.
 */
#include "kernel/domain/noc_sampler.h"
#include "kernel/dispatch/dispatcher.h"
#include "kernel/core/bootargs.h"
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "kernel/domain/domain.h"
#include "kernel/core/hart.h"
#include "drivers/noc/noc.h"
#include "drivers/timer.h"
#include "kernel/time/vtime.h"

#define NOC_SAMPLES 16

struct noc_sample {
	uint64_t time_ns, messages, bytes, credit_stalls;
};

static uint64_t sample_period_ms = 100;
BOOTARG_U64("noc_sample_ms", sample_period_ms, 0, 60000, "period of the NoC statistics sampling task (0: off)");

static struct task sampler;
static struct noc_sample samples[NOC_SAMPLES];
static volatile uint64_t nsamples;

static int take_sample(struct task *t)
{
	(void)t;
	struct noc_sample s = {.time_ns = vtime_now_ns()};
	for (unsigned c = 0; c < mesh.cores; c++) {
		s.messages += noc_core_stats[c].sent;
		s.bytes += noc_core_stats[c].bytes_sent;
		s.credit_stalls += noc_core_stats[c].credit_stalls;
	}
	samples[nsamples % NOC_SAMPLES] = s;
	__atomic_fetch_add(&nsamples, 1, __ATOMIC_RELEASE);
	return TASK_RET_SUCCESS; /* periodic: released again one period later */
}

uint64_t noc_sample_period_ms(void) { return sample_period_ms; }

void noc_sampler_start(void)
{
	if (!sample_period_ms)
		return;
	task_init(&sampler, take_sample, 0, 0);
	task_set_timing(&sampler, 0, timer_us_to_ticks(sample_period_ms * 1000));
	task_set_observer(&sampler); /* an idle machine does not run it forward (kernel/time/vtime.h) */
	task_dispatch(&sampler, domain_master(0));
}

uint64_t noc_samples_taken(void) { return __atomic_load_n(&nsamples, __ATOMIC_ACQUIRE); }

/* Of the samples still kept, those taken at or after t_ns on the sampler's clock. Under virtual
 * time the sampler's core may be ahead of the asker's: then it took them before the asker got
 * there (kernel/time/vtime.h), so counting new samples alone would miss them. */
unsigned noc_samples_since(uint64_t t_ns)
{
	uint64_t n = __atomic_load_n(&nsamples, __ATOMIC_ACQUIRE);
	unsigned found = 0;
	for (uint64_t i = n > NOC_SAMPLES ? n - NOC_SAMPLES : 0; i < n; i++)
		found += samples[i % NOC_SAMPLES].time_ns >= t_ns;
	return found;
}

SHELL_CMD(noc_samples, "noc_samples", "NoC traffic per sampling period, from the periodic sampling task")
{
	if (argc != 1)
		return SHELL_USAGE;
	uint64_t n = __atomic_load_n(&nsamples, __ATOMIC_ACQUIRE);
	kprintf("sampled every %lu ms on core %u (domain 0's master), %lu samples so far\n", sample_period_ms,
		domain_master(0), n);
	uint64_t first = n > NOC_SAMPLES ? n - NOC_SAMPLES : 0;
	for (uint64_t i = first + 1; i < n; i++) {
		const struct noc_sample *a = &samples[(i - 1) % NOC_SAMPLES], *b = &samples[i % NOC_SAMPLES];
		kprintf("  t=%8lu us  +%lu messages  +%lu bytes  +%lu credit stalls\n", b->time_ns / 1000,
			b->messages - a->messages, b->bytes - a->bytes, b->credit_stalls - a->credit_stalls);
	}
	return 0;
}
