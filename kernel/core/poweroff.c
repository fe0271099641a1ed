/* Runs the registered power-off hooks, then ends the emulation with the status. */
#include "kernel/core/poweroff.h"
#include "drivers/poweroff.h"

extern const poweroff_hook_fn __poweroff_hooks_start[], __poweroff_hooks_end[];

void kernel_poweroff(int status)
{
	for (const poweroff_hook_fn *h = __poweroff_hooks_start; h < __poweroff_hooks_end; h++)
		(*h)(status);
	machine_exit(status);
}
