/*
 * The `mailboxes` command: what each core's message state holds right now, so a
 * user (and the isolation tests) can see that nothing a task sent or received
 * outlives it. Read from the shell's core: a busy core's figures may be moving.
 * The virtual endpoints of oversubscribed jobs' tasks count too: their user mailboxes
 * are made when one is first bound and kept for the boot (endpoint_mailboxes says how
 * many there are, so that a leak check can tell them from what a job left behind).
 */
#include "kernel/msg/msg.h"
#include "drivers/noc/noc.h"
#include "drivers/noc/noc_ep.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/hart.h"
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "lib/string.h"

SHELL_CMD_NOWAIT(mailboxes, "mailboxes [all]",
	  "message state per core: mailbox slots in use (kernel and user channel), unhandled messages, user bytes held")
{
	bool all = argc == 2 && strcmp(argv[1], "all") == 0;
	if (argc > 2 || (argc == 2 && !all))
		return SHELL_USAGE;
	struct msg_usage sum = {0};
	unsigned made = 0; /* virtual endpoints' user mailboxes */
	kprintf("core  kernel_slots  user_slots  unhandled  user_unhandled  user_bytes  session\n");
	for (unsigned c = 0; c < NOC_ENDPOINTS; c++) {
		if (c >= mesh.cores && c < NOC_EP_VIRT_BASE)
			continue;
		if (c >= NOC_EP_VIRT_BASE) {
			if (!noc_user_mailboxes[c].slots)
				continue;
			made++;
		}
		struct msg_usage u;
		msg_usage(c, &u);
		if (all || u.kernel_slots || u.user_slots || u.unhandled || u.user_bytes)
			kprintf("%4u  %12u  %10u  %9u  %14u  %10lu  %7x%s\n", c, u.kernel_slots, u.user_slots, u.unhandled,
				u.user_unhandled, u.user_bytes, u.session, c >= NOC_EP_VIRT_BASE ? "  (endpoint)" : "");
		sum.kernel_slots += u.kernel_slots;
		sum.user_slots += u.user_slots;
		sum.unhandled += u.unhandled;
		sum.user_bytes += u.user_bytes;
	}
	/* what those kept mailboxes hold of the heap: an object each, and the pages of its slots */
	unsigned long pages = made * kheap_pages_for(noc_params.depth * sizeof(struct noc_slot));
	kprintf("mailboxes: kernel_slots=%u user_slots=%u unhandled=%u held_bytes=%lu endpoint_mailboxes=%u "
		"endpoint_mailbox_pages=%lu\n",
		sum.kernel_slots, sum.user_slots, sum.unhandled, sum.user_bytes, made, pages);
	return 0;
}
