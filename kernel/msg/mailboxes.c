/*
 * The `mailboxes` command: what each core's message state holds right now, so a
 * user (and the isolation tests) can see that nothing a task sent or received
 * outlives it. Read from the shell's core: a busy core's figures may be moving.
 */
#include "kernel/msg/msg.h"
#include "kernel/hart.h"
#include "kernel/shell.h"
#include "kernel/console.h"
#include "lib/string.h"

SHELL_CMD(mailboxes, "mailboxes [all]",
	  "message state per core: mailbox slots in use (kernel and user channel), unhandled messages, user bytes held")
{
	bool all = argc == 2 && strcmp(argv[1], "all") == 0;
	if (argc > 2 || (argc == 2 && !all))
		return SHELL_USAGE;
	struct msg_usage sum = {0};
	kprintf("core  kernel_slots  user_slots  unhandled  user_unhandled  user_bytes  session\n");
	for (unsigned c = 0; c < mesh.cores; c++) {
		struct msg_usage u;
		msg_usage(c, &u);
		if (all || u.kernel_slots || u.user_slots || u.unhandled || u.user_bytes)
			kprintf("%4u  %12u  %10u  %9u  %14u  %10lu  %7x\n", c, u.kernel_slots, u.user_slots, u.unhandled,
				u.user_unhandled, u.user_bytes, u.session);
		sum.kernel_slots += u.kernel_slots;
		sum.user_slots += u.user_slots;
		sum.unhandled += u.unhandled;
		sum.user_bytes += u.user_bytes;
	}
	kprintf("mailboxes: kernel_slots=%u user_slots=%u unhandled=%u held_bytes=%lu\n", sum.kernel_slots,
		sum.user_slots, sum.unhandled, sum.user_bytes);
	return 0;
}
