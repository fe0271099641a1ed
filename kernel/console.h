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
#include "kernel/config.h"

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *fmt, va_list ap);

/* Waits in WFI for the next input character. */
char console_getc(void);
/* The next input character, or -1 at once if none was typed. */
int console_trygetc(void);
/* True if typed input waits to be read. */
bool console_input_waiting(void);
#define CONSOLE_CTRL_C 0x03
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
