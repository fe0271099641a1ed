/*
 * Which RISC-V instructions end a counting segment: those that can leave a
 * translation block before its end (a load, store or atomic that faults or touches
 * a device, a system instruction: ecall, ebreak, CSR access, WFI, sret), and the
 * vclock markers. Counting a segment when it starts is then exact, because nothing
 * inside it can stop the hart before the segment's last instruction.
 */
#ifndef VCLOCK_DECODE_H
#define VCLOCK_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The instruction's encoding: its 16 or 32 bits, zero-extended. */
uint32_t decode_word(const void *bytes, size_t size);
/* True if a segment must end after this instruction. */
bool decode_ends_segment(uint32_t word, size_t size);

#endif
