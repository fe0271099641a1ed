/* ktest suite "fdt": the device-tree reader, checked against what the tree itself says. */
#include "kernel/core/ktest.h"
#include "kernel/core/platform.h"
#include "kernel/core/hart.h"
#include "lib/fdt.h"
#include "lib/string.h"

KTEST(fdt, header_and_root)
{
	KT_ASSERT(fdt_check_header(plat.fdt));
	KT_ASSERT(fdt_total_size(plat.fdt) == plat.fdt_size);
	int root = fdt_root(plat.fdt);
	KT_ASSERT(root >= 0);
	KT_ASSERT(fdt_node_name(plat.fdt, root)[0] == 0);
	KT_ASSERT_EQ(fdt_parent(plat.fdt, root), -1);
	KT_ASSERT_EQ(fdt_path_offset(plat.fdt, "/"), root);
	KT_ASSERT_EQ(fdt_path_offset(plat.fdt, "/no-such-node"), -1);
	KT_ASSERT_EQ(fdt_path_offset(plat.fdt, "relative"), -1);
}

KTEST(fdt, every_cpu_is_a_hart)
{
	int cpus = fdt_path_offset(plat.fdt, "/cpus");
	KT_ASSERT(cpus >= 0);
	unsigned n = 0;
	for (int c = fdt_first_child(plat.fdt, cpus); c >= 0; c = fdt_next_sibling(plat.fdt, c)) {
		const char *type = fdt_getprop_string(plat.fdt, c, "device_type");
		if (!type || strcmp(type, "cpu") != 0)
			continue;
		KT_ASSERT_EQ(fdt_parent(plat.fdt, c), cpus);
		uint32_t id;
		KT_ASSERT(fdt_getprop_u32(plat.fdt, c, "reg", &id));
		KT_ASSERT(hart_by_hartid(id) != 0);
		KT_ASSERT_EQ(hart_by_hartid(id)->hartid, id);
		n++;
	}
	KT_ASSERT_EQ(n, plat.dt_harts);
	KT_ASSERT_EQ(hart_count, n < MOSAIC_MAX_HARTS ? n : MOSAIC_MAX_HARTS);
	for (unsigned i = 1; i < hart_count; i++)
		KT_ASSERT(plat.hartids[i - 1] < plat.hartids[i]);
	uint32_t tb;
	KT_ASSERT(fdt_getprop_u32(plat.fdt, cpus, "timebase-frequency", &tb));
	KT_ASSERT_EQ(tb, plat.timebase_hz);
}

/* The unit address in a node name ("serial@10000000") must agree with its reg. */
static uint64_t unit_address(const char *name)
{
	const char *at = strchr(name, '@');
	uint64_t v = 0;
	if (!at)
		return 0;
	for (const char *p = at + 1; *p; p++)
		v = v * 16 + (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	return v;
}

KTEST(fdt, devices_found_by_compatible)
{
	int uart = fdt_find_compatible(plat.fdt, -1, "ns16550a");
	KT_ASSERT(uart >= 0);
	KT_ASSERT_EQ(unit_address(fdt_node_name(plat.fdt, uart)), plat.uart_base);
	uint64_t a, s;
	KT_ASSERT(fdt_get_reg(plat.fdt, uart, 0, &a, &s));
	KT_ASSERT_EQ(a, plat.uart_base);
	KT_ASSERT(s > 0);
	KT_ASSERT(!fdt_get_reg(plat.fdt, uart, 1, &a, &s)); /* only one reg entry */
	KT_ASSERT_EQ(fdt_find_compatible(plat.fdt, -1, "no,such-device"), -1);
	if (plat.test_base) {
		int test = fdt_find_compatible(plat.fdt, -1, "sifive,test0");
		KT_ASSERT_EQ(unit_address(fdt_node_name(plat.fdt, test)), plat.test_base);
	}
	if (plat.plic_base)
		KT_ASSERT(plat.plic_s_context[this_cpu()] >= 0);
}

KTEST(fdt, memory_and_chosen)
{
	int mem = fdt_path_offset(plat.fdt, "/memory");
	KT_ASSERT(mem >= 0);
	uint64_t a, s;
	KT_ASSERT(fdt_get_reg(plat.fdt, mem, 0, &a, &s));
	KT_ASSERT_EQ(a, plat.memory.base);
	KT_ASSERT_EQ(s, plat.memory.size);
	KT_ASSERT_EQ(unit_address(fdt_node_name(plat.fdt, mem)), a);
	int chosen = fdt_path_offset(plat.fdt, "/chosen");
	KT_ASSERT(chosen >= 0);
	const char *ba = fdt_getprop_string(plat.fdt, chosen, "bootargs");
	KT_ASSERT(ba != 0 && strcmp(ba, plat.bootargs) == 0);
	KT_ASSERT(strstr(ba, "ktest=") != 0); /* this suite runs from the ktest boot argument */
}

KTEST(fdt, phandles_resolve)
{
	for (unsigned cpu = 0; cpu < hart_count; cpu++) {
		if (!plat.intc_phandle[cpu])
			continue;
		int intc = fdt_find_phandle(plat.fdt, plat.intc_phandle[cpu]);
		KT_ASSERT(intc >= 0);
		KT_ASSERT(fdt_is_compatible(plat.fdt, intc, "riscv,cpu-intc"));
		uint32_t id;
		KT_ASSERT(fdt_getprop_u32(plat.fdt, fdt_parent(plat.fdt, intc), "reg", &id));
		KT_ASSERT_EQ(id, plat.hartids[cpu]);
	}
}
