/*
 * Physical page allocator over the device tree's memory. The kernel image, the
 * device tree, firmware-reserved ranges, the allocator's own bitmap and the initrd
 * (until it is read) are reserved at init; everything else can be allocated in runs of contiguous pages.
 */
#ifndef KERNEL_PAGE_ALLOC_H
#define KERNEL_PAGE_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct page_stats {
	uint64_t base;      /* first byte managed */
	uint64_t total;     /* pages managed */
	uint64_t free;      /* pages free now */
	uint64_t reserved;  /* pages reserved at init */
};

void page_alloc_init(void);
/* npages zeroed, contiguous pages, or NULL if no run is that long. */
void *page_alloc(size_t npages);
/* Gives back a run from page_alloc; a double free or a foreign address panics. */
void page_free(void *p, size_t npages);
void page_get_stats(struct page_stats *out);
/* Whether the initrd's pages (plat.initrd) are reserved: from init until page_release_initrd;
 * never if they overlap another reservation. */
bool page_initrd_held(void);
/* Whether the initrd overlaps another reservation (then it is not held, and not to be read). */
bool page_initrd_clashes(void);
/* Gives the initrd's pages to the allocator, once it has been read. */
void page_release_initrd(void);
bool page_is_free(uint64_t addr);

#endif
