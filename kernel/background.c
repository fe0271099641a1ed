/* The idle-time loop shared by the idle harts, hart_call_wait and the shell's input wait. */
#include "kernel/background.h"
#include "kernel/kcall.h"
#include "kernel/domain.h"
#include "kernel/hart.h"
#include "drivers/noc/noc.h"
#include "drivers/timer.h"

volatile bool background_enabled;

bool background_work(void)
{
	return background_enabled && master_serve_one();
}

void core_wait(bool (*done)(void *), void *arg)
{
	for (;;) {
		if (!background_enabled) {
			WAIT_UNTIL(done(arg) || background_enabled, 0);
			if (done(arg))
				return;
			continue;
		}
		unsigned me = this_cpu();
		struct noc_mailbox *mb = &noc_mailboxes[me];
		uint32_t seen = __atomic_load_n(&mb->events, __ATOMIC_ACQUIRE);
		if (done(arg))
			return;
		if (background_work())
			continue;
		/* a master also wakes when a call still in flight to it becomes visible */
		uint64_t next = is_master(me) ? noc_mailbox_next_delivery(me) : UINT64_MAX;
		mb->sleeping = 1;
		fence();
		WAIT_UNTIL(done(arg) || __atomic_load_n(&mb->events, __ATOMIC_ACQUIRE) != seen || noc_now_ns() >= next,
			   timer_ns_to_ticks_ceil(next));
		mb->sleeping = 0;
	}
}
