/* Sv39 page tables: three tables per task, the kernel's identity map as gigapages. */
#include "arch/riscv/mmu.h"
#include "arch/riscv/csr.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/core/config.h"

#define SATP_SV39 (8UL << 60)
#define GIGA (1UL << 30)
#define IDENTITY_GIGAPAGES 4 /* 0..4 GiB: the devices and the RAM of QEMU virt's low memory */

static uint64_t pte_table(void *table) { return ((uint64_t)table >> 12) << 10 | PTE_V; }
static uint64_t pte_leaf(uint64_t pa, uint64_t flags) { return (pa >> 12) << 10 | flags | PTE_V | PTE_A | PTE_D; }

bool as_create(struct address_space *as)
{
	as->root = page_alloc(1);
	as->mid = page_alloc(1);
	as->leaf = page_alloc(1);
	as->ilets = as->shm = 0;
	if (!as->root || !as->mid || !as->leaf) {
		as_destroy(as);
		return false;
	}
	for (uint64_t g = 0; g < IDENTITY_GIGAPAGES; g++)
		as->root[g] = pte_leaf(g * GIGA, PTE_R | PTE_W | PTE_X); /* kernel only: no PTE_U */
	as->root[(USER_BASE >> 30) & 511] = pte_table(as->mid);
	as->mid[(USER_BASE >> 21) & 511] = pte_table(as->leaf);
	return true;
}

bool as_map(struct address_space *as, uint64_t va, uint64_t pa, uint64_t flags)
{
	if ((va | pa) % PAGE_SIZE)
		return false;
	if (va >= ILET_BASE && va < ILET_BASE + USER_SPAN && !as->ilets) {
		as->ilets = page_alloc(1); /* zeroed: no page mapped yet */
		if (!as->ilets)
			return false;
		as->mid[(ILET_BASE >> 21) & 511] = pte_table(as->ilets);
	}
	if (va >= SHM_BASE && va < SHM_BASE + USER_SPAN && !as->shm) {
		as->shm = page_alloc(1);
		if (!as->shm)
			return false;
		as->mid[(SHM_BASE >> 21) & 511] = pte_table(as->shm);
	}
	uint64_t *pte = as_pte(as, va);
	if (!pte || (*pte & PTE_V))
		return false;
	*pte = pte_leaf(pa, flags | PTE_U);
	return true;
}

uint64_t as_lookup(const struct address_space *as, uint64_t va)
{
	const uint64_t *pte = as_pte(as, va);
	return pte && (*pte & PTE_V) ? (*pte >> 10) << 12 : 0;
}

static void free_leaf(uint64_t *leaf)
{
	if (!leaf)
		return;
	for (unsigned i = 0; i < 512; i++)
		if (leaf[i] & PTE_V)
			page_free((void *)((leaf[i] >> 10) << 12), 1);
	page_free(leaf, 1);
}

void as_destroy(struct address_space *as)
{
	free_leaf(as->leaf);
	free_leaf(as->ilets);
	if (as->shm)
		page_free(as->shm, 1); /* the table only: the windows' pages are kernel/mm/shm.c's */
	if (as->mid)
		page_free(as->mid, 1);
	if (as->root)
		page_free(as->root, 1);
	as->root = as->mid = as->leaf = as->ilets = as->shm = 0;
}

static uint64_t *table_of(uint64_t pte) { return pte & PTE_V ? (uint64_t *)((pte >> 10) << 12) : 0; }

void as_adopt(struct address_space *as, uint64_t root_pa)
{
	as->root = (uint64_t *)root_pa;
	as->mid = table_of(as->root[(USER_BASE >> 30) & 511]);
	as->leaf = table_of(as->mid[(USER_BASE >> 21) & 511]);
	as->ilets = table_of(as->mid[(ILET_BASE >> 21) & 511]);
	as->shm = table_of(as->mid[(SHM_BASE >> 21) & 511]);
}

void as_activate(const struct address_space *as)
{
	csr_write(satp, as ? SATP_SV39 | ((uint64_t)as->root >> 12) : 0);
	__asm__ volatile("sfence.vma" ::: "memory");
}
