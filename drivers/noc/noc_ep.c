/*
 * Virtual message endpoints and their location table (see noc_ep.h). The table has one
 * writer per entry at a time: the core that hosts the endpoint (a move hands it over with
 * the task); the pool of free ids is shared by every submitter under one lock, taken once
 * per job.
 */
#include "drivers/noc/noc_ep.h"
#include "drivers/noc/noc.h"
#include "drivers/noc/mesh.h"
#include "kernel/core/hart.h"
#include "kernel/core/errno.h"
#include "kernel/core/spinlock.h"

enum ep_state { EP_FREE = 0, EP_RESERVED, EP_BOUND, EP_CLOSED };

static uint8_t state[NOC_EP_VIRT_MAX];
static uint16_t tile[NOC_EP_VIRT_MAX] = {[0 ... NOC_EP_VIRT_MAX - 1] = NOC_EP_NONE};
static uint16_t home[NOC_EP_VIRT_MAX];
static uint16_t current[MOSAIC_MAX_HARTS]; /* per core, its own: the running task's endpoint (0: the core) */
unsigned noc_ep_nreserved; /* read through noc_ep_reserved() */
static struct spinlock pool_lock = SPINLOCK_INIT("noc-endpoints");

static unsigned idx(unsigned ep) { return ep - NOC_EP_VIRT_BASE; }

int noc_ep_reserve(unsigned n)
{
	if (n == 0 || n > NOC_EP_VIRT_MAX)
		return -EINVAL;
	int first = -ENOSPC;
	uint64_t irq = spin_lock(&pool_lock);
	for (unsigned i = 0, run = 0; i < NOC_EP_VIRT_MAX && first < 0; i++) {
		run = state[i] == EP_FREE ? run + 1 : 0;
		if (run == n) {
			for (unsigned k = i + 1 - n; k <= i; k++)
				state[k] = EP_RESERVED;
			noc_ep_nreserved += n;
			first = (int)(NOC_EP_VIRT_BASE + i + 1 - n);
		}
	}
	spin_unlock(&pool_lock, irq);
	return first;
}

void noc_ep_release(unsigned first, unsigned n)
{
	uint64_t irq = spin_lock(&pool_lock);
	for (unsigned ep = first; ep < first + n && noc_ep_is_virtual(ep); ep++)
		if (state[idx(ep)] != EP_FREE) {
			__atomic_store_n(&tile[idx(ep)], NOC_EP_NONE, __ATOMIC_RELEASE);
			state[idx(ep)] = EP_FREE;
			noc_ep_nreserved--;
		}
	spin_unlock(&pool_lock, irq);
}

int noc_ep_bind(unsigned ep)
{
	if (!noc_ep_is_virtual(ep) || state[idx(ep)] != EP_RESERVED)
		return -EINVAL;
	int e = noc_user_mailbox_ready(ep);
	if (e)
		return e;
	home[idx(ep)] = (uint16_t)this_cpu();
	__atomic_store_n(&tile[idx(ep)], (uint16_t)this_cpu(), __ATOMIC_RELEASE);
	__atomic_store_n(&state[idx(ep)], EP_BOUND, __ATOMIC_RELEASE);
	return 0;
}

void noc_ep_close(unsigned ep)
{
	if (noc_ep_is_virtual(ep) && state[idx(ep)] == EP_BOUND)
		__atomic_store_n(&state[idx(ep)], EP_CLOSED, __ATOMIC_RELEASE);
}

void noc_ep_place(unsigned ep)
{
	if (noc_ep_is_virtual(ep)) {
		__atomic_store_n(&tile[idx(ep)], (uint16_t)this_cpu(), __ATOMIC_RELEASE);
		/* before the task reads its queued-for-credit bits (noc_awaits_credit): a credit handed
		 * over meanwhile either finds this core or is seen (give_credit fences the other way) */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
}

unsigned noc_ep_tile_virtual(unsigned ep)
{
	return noc_ep_is_virtual(ep) ? __atomic_load_n(&tile[idx(ep)], __ATOMIC_ACQUIRE) : NOC_EP_NONE;
}

unsigned noc_ep_home(unsigned ep) { return noc_ep_is_virtual(ep) ? home[idx(ep)] : ep; }

bool noc_ep_valid_virtual(unsigned ep)
{
	if (!noc_ep_is_virtual(ep))
		return false;
	uint8_t s = __atomic_load_n(&state[idx(ep)], __ATOMIC_ACQUIRE);
	return s == EP_BOUND || s == EP_CLOSED;
}

bool noc_ep_closed_virtual(unsigned ep)
{
	return noc_ep_is_virtual(ep) && __atomic_load_n(&state[idx(ep)], __ATOMIC_ACQUIRE) == EP_CLOSED;
}

unsigned noc_ep_self(void)
{
	unsigned me = this_cpu(), ep = current[me];
	return ep ? ep : me;
}

void noc_ep_enter(unsigned ep) { current[this_cpu()] = (uint16_t)ep; }

unsigned noc_ep_hosted(unsigned core, uint16_t *eps, unsigned max)
{
	unsigned n = 0;
	if (!noc_ep_reserved())
		return 0; /* the common case: no oversubscribed job anywhere */
	for (unsigned i = 0; i < NOC_EP_VIRT_MAX && n < max; i++)
		if (__atomic_load_n(&tile[i], __ATOMIC_ACQUIRE) == core &&
		    __atomic_load_n(&state[i], __ATOMIC_ACQUIRE) == EP_BOUND)
			eps[n++] = (uint16_t)(NOC_EP_VIRT_BASE + i);
	return n;
}
