/*
 * A small kernel heap for objects below a page (message copies, queues):
 * power-of-two size classes from 32 bytes to 2 KiB carved out of pages, and
 * whole pages above that. Any hart may free what another allocated.
 */
#ifndef KERNEL_KHEAP_H
#define KERNEL_KHEAP_H

#include <stddef.h>

void *kmalloc(size_t size);
void kfree(void *p);

#endif
