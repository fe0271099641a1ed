/* The instruction classes that end a counting segment (see decode.h): RV64GC and the vclock markers. */
#include <string.h>
#include "vclock/decode.h"
#include "vclock/vclock_abi.h"

uint32_t decode_word(const void *bytes, size_t size)
{
	uint32_t w = 0;
	if (size == 2 || size == 4)
		memcpy(&w, bytes, size); /* guest and host are both little-endian (checked in vclock.c) */
	return w;
}

/* 32-bit major opcodes whose instructions can trap or touch a device mid-block. */
static bool opcode_ends_segment(uint32_t opcode)
{
	switch (opcode) {
	case 0x03: /* LOAD */
	case 0x07: /* LOAD-FP */
	case 0x0f: /* MISC-MEM: fence, fence.i (and cache-block operations on later cores) */
	case 0x23: /* STORE */
	case 0x27: /* STORE-FP */
	case 0x2f: /* AMO, LR, SC */
	case 0x73: /* SYSTEM: ecall, ebreak, CSR*, WFI, sret, sfence.vma */
		return true;
	default:
		return false;
	}
}

/* Compressed instructions: the loads and stores of quadrants 0 and 2, and c.ebreak. */
static bool compressed_ends_segment(uint32_t w)
{
	uint32_t quadrant = w & 3, funct3 = (w >> 13) & 7;
	if (quadrant == 0)
		return funct3 != 0; /* everything but c.addi4spn: c.fld/lw/ld/fsd/sw/sd (100 is reserved) */
	if (quadrant == 2) {
		if (funct3 == 4)
			return w == 0x9002; /* c.ebreak; c.jr/c.jalr/c.mv/c.add do not trap */
		return funct3 != 0;      /* c.fldsp/lwsp/ldsp/fsdsp/swsp/sdsp; 000 is c.slli */
	}
	return false; /* quadrant 1: arithmetic, jumps and branches */
}

bool decode_ends_segment(uint32_t word, size_t size)
{
	if (size == 2)
		return compressed_ends_segment(word);
	if (word == VCLOCK_HINT_WORD(VCLOCK_HINT_READ) || word == VCLOCK_HINT_WORD(VCLOCK_HINT_HELLO))
		return true;
	return opcode_ends_segment(word & 0x7f);
}
