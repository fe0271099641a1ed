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
/* Blocks allocated and not freed: what the leak checks compare (pages stay cached in
 * the size classes, so the page count alone does not show a leak or its absence). */
unsigned long kheap_live_objects(void);
/* The pages a kmalloc(size) takes for itself: 0 for a small object (it lives in the pages of
 * the size classes, counted by kheap_class_pages), else its run of whole pages. */
unsigned long kheap_pages_for(size_t size);
/* Pages carved into small-object size classes: they stay with the heap for good. */
unsigned long kheap_class_pages(void);

#endif
