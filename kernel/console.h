/*
 * The console that every hart shares. One kprintf call is printed whole: its
 * characters never interleave with another hart's. Everything printed is also
 * kept in the kernel log (klog), readable from the shell (dmesg) and from GDB.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stdint.h>
#include "kernel/config.h"

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vkprintf(const char *fmt, va_list ap);

/* Waits in WFI for the next input character. */
char console_getc(void);
/* Switches input to the UART interrupt (routed through the PLIC to this hart). */
void console_enable_input_irq(void);
/* From panic: take the console even if a dead hart holds its lock. */
void console_force(void);

/* The kernel log ring; klog_written counts every byte ever logged. */
extern char klog_buf[KLOG_SIZE];
extern volatile uint64_t klog_written;

#endif
