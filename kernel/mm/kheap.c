/* Size-class heap over the page allocator; one lock, since allocation is short. */
#include "kernel/mm/kheap.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/core/spinlock.h"
#include "kernel/core/panic.h"
#include "kernel/core/config.h"
#include <stdint.h>

#define MIN_SHIFT 5
#define MAX_SHIFT 11
#define NCLASSES (MAX_SHIFT - MIN_SHIFT + 1)
#define HDR 16 /* keeps blocks 16-byte aligned */
#define MAGIC 0x6b686561u

struct block_header {
	uint32_t magic;
	uint32_t klass; /* size class, or NCLASSES for a page run */
	uint64_t pages;
};

struct free_block {
	struct free_block *next;
};

static struct spinlock heap_lock = SPINLOCK_INIT("kheap");
static struct free_block *free_lists[NCLASSES];
static unsigned long live_objects; /* atomic: page runs are counted outside the lock */
static unsigned long class_pages;  /* under heap_lock */

unsigned long kheap_live_objects(void) { return __atomic_load_n(&live_objects, __ATOMIC_RELAXED); }
unsigned long kheap_class_pages(void) { return __atomic_load_n(&class_pages, __ATOMIC_RELAXED); }

static int class_of(size_t total)
{
	for (int c = 0; c < NCLASSES; c++)
		if (total <= (1UL << (MIN_SHIFT + c)))
			return c;
	return -1;
}

unsigned long kheap_pages_for(size_t size)
{
	size_t total = size + HDR;
	return class_of(total) < 0 ? (total + PAGE_SIZE - 1) / PAGE_SIZE : 0;
}

void *kmalloc(size_t size)
{
	size_t total = size + HDR;
	int c = class_of(total);
	struct block_header *h;
	if (c < 0) {
		size_t pages = kheap_pages_for(size);
		h = page_alloc(pages);
		if (!h)
			return 0;
		*h = (struct block_header){.magic = MAGIC, .klass = NCLASSES, .pages = pages};
		__atomic_fetch_add(&live_objects, 1, __ATOMIC_RELAXED);
		return (uint8_t *)h + HDR;
	}
	uint64_t s = spin_lock(&heap_lock);
	if (!free_lists[c]) {
		uint8_t *page = page_alloc(1);
		if (!page) {
			spin_unlock(&heap_lock, s);
			return 0;
		}
		class_pages++;
		size_t bsize = 1UL << (MIN_SHIFT + c);
		for (size_t off = 0; off + bsize <= PAGE_SIZE; off += bsize) {
			struct free_block *b = (struct free_block *)(page + off);
			b->next = free_lists[c];
			free_lists[c] = b;
		}
	}
	struct free_block *b = free_lists[c];
	free_lists[c] = b->next;
	spin_unlock(&heap_lock, s);
	h = (struct block_header *)b;
	*h = (struct block_header){.magic = MAGIC, .klass = (uint32_t)c, .pages = 0};
	__atomic_fetch_add(&live_objects, 1, __ATOMIC_RELAXED);
	return (uint8_t *)h + HDR;
}

void kfree(void *p)
{
	if (!p)
		return;
	struct block_header *h = (struct block_header *)((uint8_t *)p - HDR);
	if (h->magic != MAGIC)
		panic("kfree(%p): not a kmalloc block (or freed twice)", p);
	h->magic = 0;
	__atomic_fetch_sub(&live_objects, 1, __ATOMIC_RELAXED);
	/* the class is read before the free list's link overwrites the header it is in */
	uint32_t klass = h->klass;
	if (klass == NCLASSES) {
		page_free(h, h->pages);
		return;
	}
	uint64_t s = spin_lock(&heap_lock);
	struct free_block *b = (struct free_block *)h;
	b->next = free_lists[klass];
	free_lists[klass] = b;
	spin_unlock(&heap_lock, s);
}
