/*
 * A bitmap allocator (one bit per page, set = in use). First fit from a moving
 * hint keeps it simple and fast enough for a kernel that allocates mostly at boot
 * and for message buffers; a spinlock makes it safe on every hart.
 */
#include "kernel/mm/page_alloc.h"
#include "kernel/mm/kheap.h"
#include "kernel/core/platform.h"
#include "kernel/core/config.h"
#include "kernel/core/panic.h"
#include "lib/string.h"
#include "kernel/core/spinlock.h"
#include "kernel/console/shell.h"
#include "kernel/console/console.h"

extern char __kernel_start[], __kernel_end[];

static struct spinlock page_lock = SPINLOCK_INIT("pages");
static uint64_t *bitmap;
static uint64_t mem_base, npages, nfree, nreserved, hint;
static uint64_t initrd_first, initrd_pages; /* the initrd's pages, held until page_release_initrd */
static bool initrd_clash;                    /* the initrd overlaps another reservation: not held */

static inline bool bit_test(uint64_t i) { return bitmap[i / 64] & (1UL << (i % 64)); }
static inline void bit_set(uint64_t i) { bitmap[i / 64] |= 1UL << (i % 64); }
static inline void bit_clear(uint64_t i) { bitmap[i / 64] &= ~(1UL << (i % 64)); }

static void reserve_range(uint64_t start, uint64_t size)
{
	uint64_t end = start + size;
	if (end <= mem_base || start >= mem_base + npages * PAGE_SIZE)
		return;
	if (start < mem_base)
		start = mem_base;
	uint64_t first = (start - mem_base) / PAGE_SIZE;
	uint64_t last = (end - mem_base + PAGE_SIZE - 1) / PAGE_SIZE;
	if (last > npages)
		last = npages;
	for (uint64_t i = first; i < last; i++)
		if (!bit_test(i)) {
			bit_set(i);
			nfree--;
			nreserved++;
		}
}

/* The initrd's pages (platform.c checked it lies in memory), unless one of them is reserved
 * already: then the initrd overlaps the kernel, the device tree or the firmware, is not held,
 * and its reader refuses it. Whole pages, so releasing them frees nothing else. */
static void reserve_initrd(void)
{
	initrd_pages = 0;
	if (!plat.initrd.size)
		return;
	uint64_t first = (plat.initrd.base - mem_base) / PAGE_SIZE;
	uint64_t last = (plat.initrd.base + plat.initrd.size - mem_base + PAGE_SIZE - 1) / PAGE_SIZE;
	if (last > npages)
		last = npages; /* a partial last page of memory is not managed */
	if (first >= last)
		return;
	for (uint64_t i = first; i < last; i++)
		if (bit_test(i)) {
			initrd_clash = true;
			return;
		}
	for (uint64_t i = first; i < last; i++)
		bit_set(i);
	nfree -= last - first;
	nreserved += last - first;
	initrd_first = first;
	initrd_pages = last - first;
}

void page_alloc_init(void)
{
	mem_base = plat.memory.base;
	npages = plat.memory.size / PAGE_SIZE;
	uint64_t bitmap_bytes = (npages + 63) / 64 * 8;
	/* the bitmap lives in the first pages after the kernel image */
	bitmap = (uint64_t *)(((uint64_t)__kernel_end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1));
	memset(bitmap, 0, bitmap_bytes);
	nfree = npages;
	nreserved = 0;
	reserve_range(mem_base, (uint64_t)__kernel_start - mem_base); /* below the kernel: firmware */
	reserve_range((uint64_t)__kernel_start, (uint64_t)bitmap + bitmap_bytes - (uint64_t)__kernel_start);
	reserve_range((uint64_t)plat.fdt, plat.fdt_size);
	for (unsigned i = 0; i < plat.nreserved; i++)
		reserve_range(plat.reserved[i].base, plat.reserved[i].size);
	reserve_initrd();
	hint = 0;
}

bool page_initrd_held(void) { return initrd_pages != 0; }
bool page_initrd_clashes(void) { return initrd_clash; }

void page_release_initrd(void)
{
	uint64_t s = spin_lock(&page_lock);
	for (uint64_t i = initrd_first; i < initrd_first + initrd_pages; i++)
		bit_clear(i);
	nfree += initrd_pages;
	nreserved -= initrd_pages;
	initrd_pages = 0;
	spin_unlock(&page_lock, s);
}

void *page_alloc(size_t n)
{
	if (n == 0 || n > npages)
		return 0;
	uint64_t s = spin_lock(&page_lock);
	uint64_t found = npages;
	for (uint64_t pass = 0; pass < 2 && found == npages; pass++) {
		uint64_t start = pass == 0 ? hint : 0, end = pass == 0 ? npages : hint + n;
		if (end > npages)
			end = npages;
		uint64_t run = 0;
		for (uint64_t i = start; i < end; i++) {
			if (bit_test(i)) {
				run = 0;
				continue;
			}
			if (++run == n) {
				found = i + 1 - n;
				break;
			}
		}
	}
	if (found < npages) {
		for (uint64_t i = found; i < found + n; i++)
			bit_set(i);
		nfree -= n;
		hint = found + n < npages ? found + n : 0;
	}
	spin_unlock(&page_lock, s);
	if (found == npages)
		return 0;
	void *p = (void *)(mem_base + found * PAGE_SIZE);
	memset(p, 0, n * PAGE_SIZE);
	return p;
}

void page_free(void *p, size_t n)
{
	uint64_t a = (uint64_t)p;
	if (a % PAGE_SIZE || a < mem_base || (a - mem_base) / PAGE_SIZE + n > npages || n == 0)
		panic("page_free(%p, %lu): not an allocated run", p, (uint64_t)n);
	uint64_t first = (a - mem_base) / PAGE_SIZE;
	uint64_t s = spin_lock(&page_lock);
	for (uint64_t i = first; i < first + n; i++) {
		if (!bit_test(i)) {
			spin_unlock(&page_lock, s);
			panic("page_free(%p, %lu): page %lu is already free", p, (uint64_t)n, i);
		}
		bit_clear(i);
	}
	nfree += n;
	spin_unlock(&page_lock, s);
}

void page_get_stats(struct page_stats *out)
{
	uint64_t s = spin_lock(&page_lock);
	*out = (struct page_stats){.base = mem_base, .total = npages, .free = nfree, .reserved = nreserved};
	spin_unlock(&page_lock, s);
}

bool page_is_free(uint64_t addr)
{
	if (addr < mem_base || (addr - mem_base) / PAGE_SIZE >= npages)
		return false;
	return !bit_test((addr - mem_base) / PAGE_SIZE);
}

SHELL_CMD_NOWAIT(mem, "mem", "memory map and page allocator usage")
{
	if (argc != 1)
		return SHELL_USAGE;
	struct page_stats st;
	page_get_stats(&st);
	kprintf("memory   %016lx-%016lx  %lu MiB (device tree)\n", plat.memory.base,
		plat.memory.base + plat.memory.size, plat.memory.size >> 20);
	kprintf("kernel   %016lx-%016lx  %lu KiB\n", (uint64_t)__kernel_start, (uint64_t)__kernel_end,
		((uint64_t)__kernel_end - (uint64_t)__kernel_start) >> 10);
	kprintf("fdt      %016lx-%016lx  %lu bytes\n", (uint64_t)plat.fdt, (uint64_t)plat.fdt + plat.fdt_size,
		plat.fdt_size);
	for (unsigned i = 0; i < plat.nreserved; i++)
		kprintf("reserved %016lx-%016lx  (firmware)\n", plat.reserved[i].base,
			plat.reserved[i].base + plat.reserved[i].size);
	if (plat.initrd.size)
		kprintf("initrd   %016lx-%016lx  %lu bytes (the host's files: %s)\n", plat.initrd.base,
			plat.initrd.base + plat.initrd.size, plat.initrd.size,
			initrd_clash ? "overlaps the kernel, device tree or firmware: refused"
			: page_initrd_held() ? "reserved until it is read" : "read, its pages given back");
	kprintf("pages    %lu total, %lu reserved, %lu in use, %lu free (%lu KiB free)\n", st.total, st.reserved,
		st.total - st.reserved - st.free, st.free, st.free * PAGE_SIZE / 1024);
	kprintf("heap     %lu objects in use, %lu pages kept for small objects\n", kheap_live_objects(),
		kheap_class_pages());
	return 0;
}
