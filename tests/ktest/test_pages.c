/* ktest suite "pages": the page allocator over the device tree's memory. */
#include "kernel/core/ktest.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/core/platform.h"
#include "kernel/core/config.h"
#include "lib/string.h"

extern char __kernel_start[], __kernel_end[];

KTEST(pages, kernel_and_fdt_reserved)
{
	for (uint64_t a = (uint64_t)__kernel_start; a < (uint64_t)__kernel_end; a += PAGE_SIZE)
		KT_ASSERT(!page_is_free(a));
	for (uint64_t a = (uint64_t)plat.fdt & ~(PAGE_SIZE - 1); a < (uint64_t)plat.fdt + plat.fdt_size; a += PAGE_SIZE)
		KT_ASSERT(!page_is_free(a));
	for (unsigned i = 0; i < plat.nreserved; i++)
		KT_ASSERT(!page_is_free(plat.reserved[i].base));
}

KTEST(pages, alloc_free_roundtrip)
{
	struct page_stats before, during, after;
	page_get_stats(&before);
	uint8_t *p = page_alloc(3);
	KT_ASSERT(p != 0);
	KT_ASSERT(((uint64_t)p & (PAGE_SIZE - 1)) == 0);
	KT_ASSERT((uint64_t)p >= plat.memory.base && (uint64_t)p + 3 * PAGE_SIZE <= plat.memory.base + plat.memory.size);
	for (int i = 0; i < 3; i++)
		KT_ASSERT(!page_is_free((uint64_t)p + i * PAGE_SIZE));
	page_get_stats(&during);
	KT_ASSERT_EQ(during.free, before.free - 3);
	page_free(p, 3);
	page_get_stats(&after);
	KT_ASSERT_EQ(after.free, before.free);
	KT_ASSERT(page_is_free((uint64_t)p));
}

KTEST(pages, zeroed_and_disjoint)
{
	enum { N = 16 };
	uint8_t *runs[N];
	for (int i = 0; i < N; i++) {
		runs[i] = page_alloc(1 + i % 4);
		KT_ASSERT(runs[i] != 0);
		for (uint64_t b = 0; b < (1 + i % 4) * PAGE_SIZE; b++)
			KT_ASSERT(runs[i][b] == 0);
		memset(runs[i], 0xA0 + i, (1 + i % 4) * PAGE_SIZE);
	}
	/* no two runs overlap: each still holds its own pattern */
	for (int i = 0; i < N; i++)
		for (uint64_t b = 0; b < (1 + i % 4) * PAGE_SIZE; b += 512)
			KT_ASSERT(runs[i][b] == (uint8_t)(0xA0 + i));
	for (int i = 0; i < N; i++)
		page_free(runs[i], 1 + i % 4);
}

KTEST(pages, exhaustion_and_recovery)
{
	struct page_stats st;
	page_get_stats(&st);
	KT_ASSERT(page_alloc(st.total + 1) == 0);
	KT_ASSERT(page_alloc(0) == 0);
	/* take every free page in 64-page runs, then singles, then check the allocator says no */
	static void *chunks[4096]; /* static: far too big for a 16 KiB kernel stack */
	static size_t sizes[4096];
	int n = 0;
	for (size_t want = 64; want >= 1; want /= 2) {
		void *p;
		while (n < 4096 && (p = page_alloc(want))) {
			chunks[n] = p;
			sizes[n++] = want;
		}
	}
	struct page_stats empty;
	page_get_stats(&empty);
	bool none_left = page_alloc(1) == 0;
	for (int i = 0; i < n; i++)
		page_free(chunks[i], sizes[i]);
	KT_ASSERT(none_left);
	KT_ASSERT_EQ(empty.free, 0);
	struct page_stats again;
	page_get_stats(&again);
	KT_ASSERT_EQ(again.free, st.free);
	void *p = page_alloc(64);
	KT_ASSERT(p != 0);
	page_free(p, 64);
}
