/* SiFive/RISC-V PLIC register layout (riscv,plic0). */
#include "drivers/plic.h"

#define PRIORITY(irq) (0x0 + 4 * (irq))
#define ENABLE(ctx, irq) (0x2000 + 0x80 * (ctx) + 4 * ((irq) / 32))
#define THRESHOLD(ctx) (0x200000 + 0x1000 * (ctx))
#define CLAIM(ctx) (0x200004 + 0x1000 * (ctx))

static inline volatile uint32_t *reg(uint64_t base, uint64_t off) { return (volatile uint32_t *)(base + off); }

bool plic_route(uint64_t base, uint32_t irq, int ctx)
{
	if (!base || ctx < 0 || irq == 0)
		return false;
	*reg(base, PRIORITY(irq)) = 1;
	*reg(base, ENABLE(ctx, irq)) |= 1u << (irq % 32);
	*reg(base, THRESHOLD(ctx)) = 0;
	return true;
}

uint32_t plic_claim(uint64_t base, int ctx) { return *reg(base, CLAIM(ctx)); }

void plic_complete(uint64_t base, int ctx, uint32_t irq) { *reg(base, CLAIM(ctx)) = irq; }
