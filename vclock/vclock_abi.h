/*
 * The contract between the vclock QEMU plugin (vclock/vclock.c, host side) and the
 * kernel (kernel/time/vclock.c, guest side): the marker instructions and the layout of
 * the slot table. Both sides include this file, so each value has one source of
 * truth; it holds only #defines, so assembly can include it too.
 *
 * A marker is the HINT `slti x0, x0, IMM` (it writes x0, so hardware ignores it).
 */
#ifndef VCLOCK_VCLOCK_ABI_H
#define VCLOCK_VCLOCK_ABI_H

/* "Here is the slot table": executed once by the kernel with paging off. The marker is
 * followed by `j` over an 8-byte literal holding the table's physical address. */
#define VCLOCK_HINT_HELLO 0x7c1
/* "Write my count into my slot": the count then covers every instruction up to and
 * including this marker. */
#define VCLOCK_HINT_READ 0x7c2

/* The 32-bit encoding of `slti x0, x0, imm` (OP-IMM, funct3 010, rd = rs1 = x0). */
#define VCLOCK_HINT_WORD(imm) ((((imm) & 0xfff) << 20) | 0x2013)
/* `jal x0, 12`: the jump over the hello marker's literal. */
#define VCLOCK_HELLO_JUMP_WORD 0x00c0006f

/* Slot table: u64 magic, u64 slot count, the block-counted code's start and end addresses
 * (u64 each), then one u64 per hart, indexed by hart id (QEMU's vCPU index, which equals the
 * hart id on virt). Block-counted code leaves a translation block early only at a WFI or at a
 * trap the kernel does not survive, so the plugin may count its blocks whole (count=blocks,
 * docs/time.md); start == end names none. */
#define VCLOCK_MAGIC 0x4b434f4c43565356ULL /* "VSVCLOCK" */
#define VCLOCK_TABLE_MAGIC_OFF 0
#define VCLOCK_TABLE_NSLOTS_OFF 8
#define VCLOCK_TABLE_BLOCKS_START_OFF 16
#define VCLOCK_TABLE_BLOCKS_END_OFF 24
#define VCLOCK_TABLE_SLOTS_OFF 32
/* What a slot holds until the plugin writes it: no plugin answered. */
#define VCLOCK_SENTINEL 0xffffffffffffffffULL
/* The plugin refuses a table farther than this from the hello marker (both lie in the
 * kernel image), so a corrupt literal cannot make it write outside guest RAM. */
#define VCLOCK_MAX_TABLE_DISTANCE (64ULL << 20)

#endif
