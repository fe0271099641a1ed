/* Ends the emulation with an exit status QEMU passes on to whoever started it. */
#ifndef DRIVERS_POWEROFF_H
#define DRIVERS_POWEROFF_H

void machine_exit(int code) __attribute__((noreturn));

#endif
