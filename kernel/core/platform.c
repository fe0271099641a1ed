/* Reads the platform's facts out of the device tree the firmware passed in a1. */
#include "kernel/core/platform.h"
#include "lib/fdt.h"
#include "lib/string.h"

struct platform plat;

static bool isa_has_extension(const char *isa, const char *ext)
{
	/* multi-letter extensions appear as "_sstc" in riscv,isa */
	size_t n = strlen(ext);
	for (const char *p = isa; (p = strchr(p, '_')); p++)
		if (strncmp(p + 1, ext, n) == 0 && (p[1 + n] == 0 || p[1 + n] == '_'))
			return true;
	return false;
}

static void sort_harts(unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && plat.hartids[j - 1] > plat.hartids[j]; j--) {
			uint32_t t = plat.hartids[j];
			plat.hartids[j] = plat.hartids[j - 1];
			plat.hartids[j - 1] = t;
			bool s = plat.sstc[j];
			plat.sstc[j] = plat.sstc[j - 1];
			plat.sstc[j - 1] = s;
			t = plat.intc_phandle[j];
			plat.intc_phandle[j] = plat.intc_phandle[j - 1];
			plat.intc_phandle[j - 1] = t;
		}
}

static const char *read_cpus(const void *fdt)
{
	int cpus = fdt_path_offset(fdt, "/cpus");
	if (cpus < 0)
		return "device tree has no /cpus";
	uint32_t tb;
	if (!fdt_getprop_u32(fdt, cpus, "timebase-frequency", &tb) || tb == 0)
		return "/cpus has no timebase-frequency";
	plat.timebase_hz = tb;

	unsigned n = 0;
	plat.dt_hartid_beyond_max = UINT32_MAX;
	for (int c = fdt_first_child(fdt, cpus); c >= 0; c = fdt_next_sibling(fdt, c)) {
		const char *type = fdt_getprop_string(fdt, c, "device_type");
		if (!type || strcmp(type, "cpu") != 0)
			continue;
		const char *status = fdt_getprop_string(fdt, c, "status");
		if (status && strcmp(status, "okay") != 0 && strcmp(status, "ok") != 0)
			continue;
		uint32_t id;
		if (!fdt_getprop_u32(fdt, c, "reg", &id))
			return "a cpu node has no reg";
		if (n >= MOSAIC_MAX_HARTS) {
			if (id < plat.dt_hartid_beyond_max)
				plat.dt_hartid_beyond_max = id;
			n++;
			continue;
		}
		const char *isa = fdt_getprop_string(fdt, c, "riscv,isa");
		plat.sstc[n] = isa && isa_has_extension(isa, "sstc");
		int intc = fdt_first_child(fdt, c);
		while (intc >= 0 && !fdt_is_compatible(fdt, intc, "riscv,cpu-intc"))
			intc = fdt_next_sibling(fdt, intc);
		plat.intc_phandle[n] = 0;
		if (intc >= 0)
			fdt_getprop_u32(fdt, intc, "phandle", &plat.intc_phandle[n]);
		plat.hartids[n++] = id;
	}
	if (n == 0)
		return "device tree lists no usable cpu";
	plat.dt_harts = n;
	sort_harts(n < MOSAIC_MAX_HARTS ? n : MOSAIC_MAX_HARTS);
	return 0;
}

static const char *read_memory(const void *fdt)
{
	for (int node = fdt_next_node(fdt, -1); node >= 0; node = fdt_next_node(fdt, node)) {
		const char *type = fdt_getprop_string(fdt, node, "device_type");
		if (type && strcmp(type, "memory") == 0 &&
		    fdt_get_reg(fdt, node, 0, &plat.memory.base, &plat.memory.size))
			break;
	}
	if (plat.memory.size == 0)
		return "device tree has no memory node";

	plat.nreserved = 0;
	uint64_t a, s;
	for (int i = 0; fdt_get_memreserve(fdt, i, &a, &s) && plat.nreserved < PLATFORM_MAX_RESERVED; i++)
		plat.reserved[plat.nreserved++] = (struct mem_range){a, s};
	int rm = fdt_path_offset(fdt, "/reserved-memory");
	if (rm >= 0)
		for (int c = fdt_first_child(fdt, rm); c >= 0 && plat.nreserved < PLATFORM_MAX_RESERVED;
		     c = fdt_next_sibling(fdt, c))
			for (int i = 0; fdt_get_reg(fdt, c, i, &a, &s) && plat.nreserved < PLATFORM_MAX_RESERVED; i++)
				plat.reserved[plat.nreserved++] = (struct mem_range){a, s};
	return 0;
}

static const char *read_uart(const void *fdt)
{
	int node = -1;
	const char *stdout_path = fdt_getprop_string(fdt, fdt_path_offset(fdt, "/chosen"), "stdout-path");
	if (stdout_path) {
		char path[128];
		strlcpy(path, stdout_path, sizeof path);
		char *colon = strchr(path, ':'); /* "path:115200n8" */
		if (colon)
			*colon = 0;
		node = fdt_path_offset(fdt, path);
	}
	if (node < 0 || !fdt_is_compatible(fdt, node, "ns16550a"))
		node = fdt_find_compatible(fdt, -1, "ns16550a");
	uint64_t size;
	if (node < 0 || !fdt_get_reg(fdt, node, 0, &plat.uart_base, &size))
		return "device tree has no ns16550a UART";
	if (!fdt_getprop_u32(fdt, node, "reg-shift", &plat.uart_reg_shift))
		plat.uart_reg_shift = 0;
	if (!fdt_getprop_u32(fdt, node, "interrupts", &plat.uart_irq))
		plat.uart_irq = 0;
	return 0;
}

/*
 * Maps the (interrupt-controller phandle, cause) pairs of a device's
 * interrupts-extended to cpus: out[cpu] = index of the pair that targets the
 * cpu's hart with `cause` (-1 if none). For the PLIC the index is a context,
 * for the ACLINT SSWI a register. Returns the device's node, or -1.
 */
static int map_interrupt_targets(const void *fdt, const char *compat, uint32_t cause, uint64_t *base, int *out)
{
	for (unsigned i = 0; i < MOSAIC_MAX_HARTS; i++)
		out[i] = -1;
	int node = fdt_find_compatible(fdt, -1, compat);
	uint64_t size;
	if (node < 0 || !fdt_get_reg(fdt, node, 0, base, &size)) {
		*base = 0;
		return -1;
	}
	int len;
	const uint8_t *ie = fdt_getprop(fdt, node, "interrupts-extended", &len);
	unsigned n = plat.dt_harts < MOSAIC_MAX_HARTS ? plat.dt_harts : MOSAIC_MAX_HARTS;
	for (int i = 0; ie && (i + 1) * 8 <= len; i++) {
		uint32_t ph = fdt_be32(ie + 8 * i);
		if (fdt_be32(ie + 8 * i + 4) != cause)
			continue;
		for (unsigned cpu = 0; cpu < n; cpu++)
			if (plat.intc_phandle[cpu] == ph)
				out[cpu] = i;
	}
	return node;
}

/* The PLIC's S-mode (cause 9) contexts, for routing UART input. */
static void read_plic(const void *fdt)
{
	map_interrupt_targets(fdt, "riscv,plic0", 9, &plat.plic_base, plat.plic_s_context);
}

/* ACLINT SSWI: register i raises SSIP (cause 1) on the hart of the i-th pair, so
 * S-mode can interrupt another hart without an SBI call. */
static void read_sswi(const void *fdt)
{
	if (map_interrupt_targets(fdt, "riscv,aclint-sswi", 1, &plat.sswi_base, plat.sswi_index) < 0)
		return;
	unsigned n = plat.dt_harts < MOSAIC_MAX_HARTS ? plat.dt_harts : MOSAIC_MAX_HARTS;
	for (unsigned cpu = 0; cpu < n; cpu++)
		if (plat.sswi_index[cpu] < 0)
			plat.sswi_base = 0; /* not every hart reachable: use SBI */
}

static void read_test_device(const void *fdt)
{
	int node = fdt_find_compatible(fdt, -1, "sifive,test0");
	uint64_t size;
	if (node < 0 || !fdt_get_reg(fdt, node, 0, &plat.test_base, &size))
		plat.test_base = 0;
}

/* A /chosen address: one cell or two (Linux's bindings allow both). */
static bool chosen_addr(const void *fdt, int chosen, const char *name, uint64_t *out)
{
	int len;
	const void *p = fdt_getprop(fdt, chosen, name, &len);
	if (!p || (len != 4 && len != 8))
		return false;
	*out = fdt_read_cells(p, (uint32_t)len / 4);
	return true;
}

/* The initrd, checked to lie inside memory: its pages are kept from the page allocator until
 * it is read (kernel/alloc/scenario_file.c). */
static void read_initrd(const void *fdt)
{
	int chosen = fdt_path_offset(fdt, "/chosen");
	uint64_t start, end;
	bool has_start = chosen >= 0 && chosen_addr(fdt, chosen, "linux,initrd-start", &start);
	bool has_end = chosen >= 0 && chosen_addr(fdt, chosen, "linux,initrd-end", &end);
	plat.initrd = (struct mem_range){0, 0};
	plat.initrd_error = 0;
	if (!has_start && !has_end)
		return;
	uint64_t mem_end = plat.memory.base + plat.memory.size;
	if (!has_start || !has_end)
		plat.initrd_error = "the device tree gives only one end of the initrd";
	else if (end < start || start < plat.memory.base || end > mem_end)
		plat.initrd_error = "the device tree's initrd does not lie in memory";
	else
		plat.initrd = (struct mem_range){start, end - start};
}

const char *platform_init(const void *fdt)
{
	if (!fdt_check_header(fdt))
		return "no valid device tree in a1";
	plat.fdt = fdt;
	plat.fdt_size = fdt_total_size(fdt);
	const char *err;
	if ((err = read_cpus(fdt)) || (err = read_memory(fdt)) || (err = read_uart(fdt)))
		return err;
	read_plic(fdt);
	read_sswi(fdt);
	read_test_device(fdt);
	read_initrd(fdt);
	const char *ba = fdt_getprop_string(fdt, fdt_path_offset(fdt, "/chosen"), "bootargs");
	plat.bootargs = ba ? ba : "";
	return 0;
}

int platform_cpu_of_hartid(uint32_t hartid)
{
	unsigned n = plat.dt_harts < MOSAIC_MAX_HARTS ? plat.dt_harts : MOSAIC_MAX_HARTS;
	for (unsigned i = 0; i < n; i++)
		if (plat.hartids[i] == hartid)
			return (int)i;
	return -1;
}
