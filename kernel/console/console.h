/*
 * The console that every hart shares. One kprintf call is printed whole: its
 * characters never interleave with another hart's. Everything printed is also
 * kept in the kernel log (klog), readable from the shell (dmesg) and from GDB.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>
#include "kernel/core/config.h"

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *fmt, va_list ap);

/* Ctrl-C and Ctrl-Z are keys, not input: they are counted as the UART is read and never wait
 * behind typed input (a foreground task is killed or put in the background at once, and what was
 * typed ahead stays for the prompt). Each key typed is taken once. */
#define CONSOLE_CTRL_C 0x03
#define CONSOLE_CTRL_Z 0x1a
/* Waits in WFI for the next input character; a Ctrl-C not taken yet comes first, as CONSOLE_CTRL_C. */
char console_getc(void);
/* The same, but -1 as soon as stop() holds (cheap: called with interrupts off). */
int console_getc_unless(bool (*stop)(void));
/* The next input character (not a key), or -1 at once if none was typed. */
int console_trygetc(void);
/* True if typed input (or a Ctrl-C) waits to be read. */
bool console_input_waiting(void);
/* True if typed characters wait to be read (keys not counted); cheap, may be called with
 * interrupts off. */
bool console_chars_waiting(void);
/* True if the key (CONSOLE_CTRL_C or CONSOLE_CTRL_Z) was typed and not taken yet; cheap, may be
 * called with interrupts off. */
bool console_key_waiting(int key);
/* Takes one typed key: true if there was one. */
bool console_take_key(int key);
/* fn is called whenever Ctrl-C reaches the console, as it is read from the UART (in its
 * interrupt, whatever the core was doing: the shell kills the task that holds its core). */
void console_set_interrupt_handler(void (*fn)(void));
/* Switches input to the UART interrupt (routed through the PLIC to this hart). */
void console_enable_input_irq(void);
/* From panic: take the console even if a dead hart holds its lock. */
void console_force(void);

/* The kernel log ring; klog_written counts every byte ever logged. */
extern char klog_buf[KLOG_SIZE];
extern volatile uint64_t klog_written;

#endif
