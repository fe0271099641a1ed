/*
 * vclock: a QEMU 7.2 TCG plugin that gives every hart its own exact count of the
 * instructions it executed, and writes it into that hart's slot in guest RAM when
 * the hart asks (docs/time.md). QEMU 7.2 offers no per-vCPU counter the guest could
 * read (instret is machine-wide under -icount), so the plugin keeps one per vCPU.
 *
 * Counting: each translation block is cut into segments that end after every
 * instruction that can leave the block early (vclock/decode.c). A callback on a
 * segment's first instruction adds the segment's length to its vCPU's count, so a
 * block left at a fault, a trap or WFI is never counted past the instruction where
 * it stopped, and the instructions QEMU re-runs after a device access under -icount
 * (in a block that carries no instruction callbacks) are not counted twice.
 *
 * Under single-threaded TCG (argument threads=single) a segment's length is added inline,
 * without a call, to one counter of the running vCPU, and a callback per block moves it to
 * the right vCPU (and publishes it) when another one starts running; with one thread per
 * vCPU every segment makes a callback and publishes. Either way another hart reads a hart's
 * slot current whenever it can run (under one thread the hart it reads is not running), and
 * the read marker makes a hart's own count exact up to the marker itself.
 *
 * Whole blocks (argument count=blocks, threads=single only, without -icount): a block that lies
 * in the code the kernel names block-counted (its text, but for the few probes that fault on
 * purpose) is counted whole, up to its first WFI, by its block callback: one call per block and
 * no inline add per segment. Exact because such code never leaves a block early but at a WFI
 * (which always stops the hart) or at a trap the kernel does not survive; under -icount QEMU
 * leaves a block after a device access and runs its tail again, so there every block keeps its
 * segments (docs/time.md, "Whole blocks").
 *
 * Nothing is counted before the kernel's hello marker: OpenSBI's cold boot runs 1.44 G instructions
 * on 128 harts, all before the kernel's first, and counting them cost every boot with the plugin
 * some 200 M callbacks for counts nobody reads (a core's clock starts at the end of bring-up).
 * Until the hello only the markers are instrumented; the hello asks QEMU to flush its translated
 * code (qemu_plugin_reset), and every block translated after that is counted.
 *
 * Writing guest RAM: 7.2 has no call for it, but RAM is one contiguous host mapping
 * and qemu_plugin_insn_haddr() gives the host address of an instruction's bytes.
 * The kernel's hello marker runs with paging off (virtual == physical address), so
 * host = haddr - vaddr + physical address for every guest physical address in RAM.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vclock/qemu_plugin_api.h"
#include "vclock/decode.h"
#include "vclock/vclock_abi.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "vclock stores counts into little-endian RISC-V memory as host integers"
#endif

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

/* One count per vCPU, each on its own cache line: with -accel tcg,thread=multi every
 * vCPU thread writes only its own. */
struct vcpu_count {
	uint64_t n;
	char pad[56];
};
static struct vcpu_count *counts;
static unsigned max_vcpus;

/* The slot table in guest RAM (host address), set by the hello marker; NULL before. */
static uint64_t *table;

/* Execution callbacks carry their work in the userdata word: the segment length in the
 * low 32 bits, and READ when the instruction is a read marker. */
#define CB_LEN_MASK 0xffffffffULL
#define CB_READ (1ULL << 32)

/*
 * threads=single (QEMU's -accel tcg,thread=single, Mosaic's default): one host thread runs
 * the vCPUs in turn, so a segment's length can be added inline (no call: QEMU emits the add
 * into the translated code) to one counter that belongs to whichever vCPU runs. A callback
 * at every block's start notices when that vCPU changed and moves the counter into the
 * previous one's count. With one thread per vCPU every segment calls on_exec instead.
 */
static bool one_thread;
static uint64_t running_insns;           /* one_thread: executed by `running` since it began to run */
static unsigned running = UINT32_MAX;    /* one_thread: whose instructions running_insns holds */

/* count=blocks: the guest's block-counted code [blocks_start, blocks_end), as its hello marker's
 * table names it (nothing is counted before the hello, and every block counted is translated
 * after it). */
static bool count_blocks;
static uint64_t blocks_start, blocks_end;

/* The 32-bit encoding of WFI: it always stops the hart (QEMU 7.2's helper_wfi halts it or
 * raises an exception), so nothing after it in a block runs in that pass of the block. */
#define WFI_WORD 0x10500073u

/* Stores vcpu's count into its slot in guest RAM, once the kernel has named the table. */
static inline void publish(unsigned vcpu, uint64_t n)
{
	uint64_t *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	if (t && vcpu < t[VCLOCK_TABLE_NSLOTS_OFF / 8])
		__atomic_store_n(&t[VCLOCK_TABLE_SLOTS_OFF / 8 + vcpu], n, __ATOMIC_RELAXED);
}

/* One thread per vCPU: a segment begins. Published on every segment, not only at a read
 * marker: other harts read this slot to learn how far a running hart has got (kernel/time/vtime.c). */
static void on_exec(unsigned int vcpu, void *udata)
{
	if (vcpu >= max_vcpus)
		return;
	publish(vcpu, counts[vcpu].n += (uintptr_t)udata & CB_LEN_MASK);
}

/* one_thread: vcpu begins a block after another vCPU ran. That one stopped at a block's end or
 * at a trap (the inline adds of the segments it did not reach never ran, and a block counted
 * whole stops only at its WFI), so its counter is exact and is published now. */
static inline void switch_to(unsigned int vcpu)
{
	if (running < max_vcpus) {
		counts[running].n += running_insns;
		publish(running, counts[running].n);
	}
	running_insns = 0;
	running = vcpu;
}

/* one_thread: a block begins on vcpu. The running vCPU's own count is not published block by
 * block: with one host thread no other hart runs while it does, so whoever reads its slot next
 * does so after a switch has published it, and the hart itself reads its count through a read
 * marker (on_read). This callback runs for every block executed, so publishing the running count
 * here would cost a large share of QEMU's host time (docs/time.md). */
static void on_block(unsigned int vcpu, void *udata)
{
	(void)udata;
	if (__builtin_expect(vcpu != running, 0))
		switch_to(vcpu);
}

/* one_thread, a block counted whole (count=blocks): on_block's work, and the block's length up
 * to its first WFI (udata) added to the running count. */
static void on_whole_block(unsigned int vcpu, void *udata)
{
	if (__builtin_expect(vcpu != running, 0))
		switch_to(vcpu);
	running_insns += (uintptr_t)udata;
}

/* one_thread: a read marker runs; its count is exact up to and including the marker. A marker
 * that begins its segment brings that segment's length (1): an inline add on the same
 * instruction would run only after this callback. */
static void on_read(unsigned int vcpu, void *udata)
{
	running_insns += (uintptr_t)udata & CB_LEN_MASK; /* on_block ran at this block's start: vcpu runs */
	if (vcpu < max_vcpus)
		publish(vcpu, counts[vcpu].n + running_insns);
}

/* one_thread, a block counted whole: a read marker runs. on_whole_block added the whole block at
 * its start, so the count is exact up to the marker once the `udata` instructions after it,
 * which have not run yet, are taken off. */
static void on_read_in_block(unsigned int vcpu, void *udata)
{
	if (vcpu < max_vcpus)
		publish(vcpu, counts[vcpu].n + running_insns - (uintptr_t)udata);
}

/* Counts the segment first..last of a block (last is a read marker if `read`). */
static void count_segment(struct qemu_plugin_tb *tb, size_t first, size_t last, bool read)
{
	uint64_t len = last + 1 - first;
	struct qemu_plugin_insn *head = qemu_plugin_tb_get_insn(tb, first), *tail = qemu_plugin_tb_get_insn(tb, last);
	if (!one_thread) {
		if (read && first < last) {
			qemu_plugin_register_vcpu_insn_exec_cb(head, on_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)len);
			len = 0; /* the marker was counted with its segment: its own callback publishes */
		}
		qemu_plugin_register_vcpu_insn_exec_cb(read ? tail : head, on_exec, QEMU_PLUGIN_CB_NO_REGS,
						       (void *)(uintptr_t)(len | (read ? CB_READ : 0)));
		return;
	}
	if (read && first == last) {
		qemu_plugin_register_vcpu_insn_exec_cb(tail, on_read, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)len);
		return;
	}
	qemu_plugin_register_vcpu_insn_exec_inline(head, QEMU_PLUGIN_INLINE_ADD_U64, &running_insns, len);
	if (read)
		qemu_plugin_register_vcpu_insn_exec_cb(tail, on_read, QEMU_PLUGIN_CB_NO_REGS, 0);
}

static qemu_plugin_id_t plugin_id;
static void start_counting(qemu_plugin_id_t id);

/* Before the hello: a read marker publishes the count so far, 0 (the kernel learns so that the
 * plugin is there). */
static void on_read_uncounted(unsigned int vcpu, void *udata)
{
	(void)udata;
	if (vcpu < max_vcpus)
		publish(vcpu, counts[vcpu].n);
}

/* The hello marker ran: adopt the table if the kernel prepared it (magic in place), and have
 * the code translated before it (uncounted) flushed, once. */
static void on_hello(unsigned int vcpu, void *udata)
{
	static bool reset_asked;
	uint64_t *t = udata;
	(void)vcpu;
	if (!reset_asked) {
		reset_asked = true;
		qemu_plugin_reset(plugin_id, start_counting);
	}
	if (t[VCLOCK_TABLE_MAGIC_OFF / 8] != VCLOCK_MAGIC) {
		fprintf(stderr, "vclock: the hello marker names no slot table (bad magic); counts stay unpublished\n");
		return;
	}
	uint64_t start = t[VCLOCK_TABLE_BLOCKS_START_OFF / 8], end = t[VCLOCK_TABLE_BLOCKS_END_OFF / 8];
	if (start < end) {
		blocks_start = start;
		blocks_end = end;
	}
	__atomic_store_n(&table, t, __ATOMIC_RELEASE);
}

/* Whether the whole block lies in the block-counted code (count=blocks, after the hello marker). */
static bool counted_whole(struct qemu_plugin_tb *tb, size_t n)
{
	if (!count_blocks || !n)
		return false;
	struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);
	uint64_t first = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0));
	uint64_t end = qemu_plugin_insn_vaddr(last) + qemu_plugin_insn_size(last);
	return first >= blocks_start && end <= blocks_end;
}

/* The 32-bit word of an uncompressed instruction; 0, which no marker or WFI is, for a compressed one. */
static uint32_t full_word(struct qemu_plugin_insn *insn)
{
	return qemu_plugin_insn_size(insn) == 4 ? decode_word(qemu_plugin_insn_data(insn), 4) : 0;
}

/* A block counted whole: its length up to its first WFI goes in on_whole_block's call at its start,
 * and each read marker takes off what follows it. */
static void count_whole_block(struct qemu_plugin_tb *tb, size_t n)
{
	size_t counted = n;
	for (size_t i = 0; i < n; i++) {
		if (full_word(qemu_plugin_tb_get_insn(tb, i)) == WFI_WORD) {
			counted = i + 1;
			break;
		}
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_whole_block, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)counted);
	for (size_t i = 0; i < counted; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		if (full_word(insn) == VCLOCK_HINT_WORD(VCLOCK_HINT_READ))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_read_in_block, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)(counted - 1 - i));
	}
}

/* The host address of the table a hello marker names, or NULL if the marker is malformed.
 * Layout after the marker: `j +12`, then the table's 8-byte physical address. */
static uint64_t *hello_table(struct qemu_plugin_insn *insn)
{
	uint8_t *h = qemu_plugin_insn_haddr(insn);
	uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
	uint32_t jump;
	uint64_t paddr;
	if (!h)
		return NULL;
	memcpy(&jump, h + 4, sizeof jump);
	memcpy(&paddr, h + 8, sizeof paddr);
	if (jump != VCLOCK_HELLO_JUMP_WORD)
		return NULL;
	uint64_t dist = paddr > vaddr ? paddr - vaddr : vaddr - paddr;
	if (dist > VCLOCK_MAX_TABLE_DISTANCE || paddr % 8)
		return NULL;
	return (uint64_t *)(h + (paddr - vaddr)); /* paging is off at hello: vaddr is physical */
}

/* A hello marker's callback, if it is well formed. */
static void watch_hello(struct qemu_plugin_insn *insn)
{
	uint64_t *t = hello_table(insn);
	if (t)
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_hello, QEMU_PLUGIN_CB_NO_REGS, t);
	else
		fprintf(stderr, "vclock: malformed hello marker at %#" PRIx64 "\n", qemu_plugin_insn_vaddr(insn));
}

/* Before the hello: the markers only, no counting. */
static void tb_trans_uncounted(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	for (size_t i = 0, n = qemu_plugin_tb_n_insns(tb); i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t w = full_word(insn);
		if (w == VCLOCK_HINT_WORD(VCLOCK_HINT_HELLO))
			watch_hello(insn);
		else if (w == VCLOCK_HINT_WORD(VCLOCK_HINT_READ))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_read_uncounted, QEMU_PLUGIN_CB_NO_REGS, 0);
	}
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	size_t seg_start = 0;
	if (counted_whole(tb, n)) {
		count_whole_block(tb, n);
		return;
	}
	if (one_thread)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, 0);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		size_t size = qemu_plugin_insn_size(insn);
		uint32_t w = decode_word(qemu_plugin_insn_data(insn), size);
		if (size == 4 && w == VCLOCK_HINT_WORD(VCLOCK_HINT_HELLO))
			watch_hello(insn);
		if (i + 1 < n && !decode_ends_segment(w, size))
			continue;
		/* the segment seg_start..i: counted on its first instruction, before it runs */
		count_segment(tb, seg_start, i, size == 4 && w == VCLOCK_HINT_WORD(VCLOCK_HINT_READ));
		seg_start = i + 1;
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "threads=single") == 0) {
			one_thread = true;
		} else if (strcmp(argv[i], "threads=multi") == 0) {
			one_thread = false;
		} else if (strcmp(argv[i], "count=blocks") == 0) {
			count_blocks = true;
		} else if (strcmp(argv[i], "count=segments") == 0) {
			count_blocks = false;
		} else {
			fprintf(stderr, "vclock: unknown argument '%s' (takes threads=single or threads=multi: "
				"how QEMU runs the vCPUs, -accel tcg,thread=...; and count=segments or count=blocks, "
				"the latter with threads=single and without -icount)\n", argv[i]);
			return -1;
		}
	}
	if (count_blocks && !one_thread) {
		fprintf(stderr, "vclock: count=blocks needs threads=single (one host thread runs every vCPU)\n");
		return -1;
	}
	if (!info->system_emulation || strcmp(info->target_name, "riscv64") != 0) {
		fprintf(stderr, "vclock: needs qemu-system-riscv64 (got %s%s)\n", info->target_name,
			info->system_emulation ? "" : " in user mode");
		return -1;
	}
	max_vcpus = (unsigned)info->system.max_vcpus;
	counts = calloc(max_vcpus, sizeof *counts);
	if (!counts) {
		fprintf(stderr, "vclock: out of memory\n");
		return -1;
	}
	plugin_id = id;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans_uncounted);
	return 0;
}

/* QEMU has flushed the code translated before the hello: from here on every block is counted. */
static void start_counting(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
}
