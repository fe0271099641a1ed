/*
 * An orderly power-off: subsystems register hooks (POWEROFF_HOOK) that run
 * before the machine stops, e.g. to dump statistics. A panic skips them.
 */
#ifndef KERNEL_POWEROFF_H
#define KERNEL_POWEROFF_H

typedef void (*poweroff_hook_fn)(int status);

#define POWEROFF_HOOK(fn)                                                                          \
	static const poweroff_hook_fn __poweroff_hook_##fn __attribute__((used, section(".poweroff_hooks"), \
									 aligned(8))) = fn

void kernel_poweroff(int status) __attribute__((noreturn));

#endif
