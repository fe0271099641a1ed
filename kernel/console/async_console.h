/* The masters' asynchronous console output (see async_console.c). */
#ifndef KERNEL_ASYNC_CONSOLE_H
#define KERNEL_ASYNC_CONSOLE_H

#include <stdint.h>

/* On a master: queues caller's text for printing by the master's console task; returns len. */
int async_console_write(unsigned caller, const char *text, uint32_t len);

#endif
