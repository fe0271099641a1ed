/* ktest suite "smp": the boot hart checks every hart's own check-in slot. */
#include "kernel/core/ktest.h"
#include "kernel/core/hart.h"

KTEST(smp, every_slot_checked_in)
{
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		KT_ASSERT_EQ(harts[cpu].checkin, HART_CHECKIN_MAGIC | harts[cpu].hartid);
		KT_ASSERT(harts[cpu].state == HART_ONLINE || harts[cpu].state == HART_BUSY);
		KT_ASSERT_EQ(harts[cpu].cpu, cpu);
		if (cpu != boot_cpu)
			KT_ASSERT(harts[cpu].kstack_base != 0 && harts[cpu].kstack_top > (uint64_t)harts[cpu].kstack_base);
	}
}
