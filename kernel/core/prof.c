/* The profile-window markers (see kernel/core/prof.h) and the shell command `prof CMD`. */
#include "kernel/core/prof.h"
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "lib/string.h"
#include "drivers/timer.h"
#include "arch/riscv/csr.h"

/* noipa (no inlining, cloning or merging of the two identical bodies) and an asm barrier:
 * each must stay a function of its own at its own address, entered by a call, so that its
 * first instruction starts a translation block the trace can see. */
__attribute__((noipa)) void prof_begin(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noipa)) void prof_end(void)
{
	__asm__ volatile("" ::: "memory");
}

SHELL_CMD(prof, "prof COMMAND [ARGS...]",
	  "run one shell command inside a profile window (what scripts/mosaic-prof counts)")
{
	if (argc < 2)
		return SHELL_USAGE;
	char line[256];
	size_t used = 0;
	for (int i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (used + (i > 1) + n + 1 > sizeof line) {
			kprintf("prof: command too long (at most %u characters)\n", (unsigned)sizeof line - 1);
			return SHELL_USAGE;
		}
		if (i > 1)
			line[used++] = ' ';
		memcpy(line + used, argv[i], n);
		used += n;
	}
	line[used] = 0;
	uint64_t i0 = read_instret();
	prof_begin();
	int r = shell_exec(line);
	prof_end();
	uint64_t i1 = read_instret();
	/* under -icount instret is QEMU's machine-wide instruction clock: guest ns, idle time included */
	if (timer_icount)
		kprintf("prof: the window took %lu ns of guest time\n", i1 - i0);
	return r == SHELL_USAGE ? SHELL_USAGE_SHOWN : r; /* its usage line is printed already */
}
