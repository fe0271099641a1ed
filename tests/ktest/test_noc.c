/* ktest suite "noc": the emulated NoC and the message API (docs/noc.md). */
#include "kernel/ktest.h"
#include "kernel/hart.h"
#include "kernel/console.h"
#include "kernel/errno.h"
#include "kernel/kheap.h"
#include "kernel/msg/msg.h"
#include "kernel/msg/group.h"
#include "drivers/noc/noc.h"
#include "drivers/timer.h"
#include "lib/string.h"

static volatile int results[MOSAIC_MAX_HARTS];

KTEST(noc, xy_routes)
{
	unsigned links[2 * MOSAIC_MAX_HARTS];
	for (unsigned s = 0; s < mesh.cores; s++)
		for (unsigned d = 0; d < mesh.cores; d++) {
			unsigned h = mesh_route(s, d, links, sizeof links / sizeof links[0]);
			KT_ASSERT_EQ(h, mesh_hops(s, d));
			unsigned at = s;
			bool turned = false;
			for (unsigned i = 0; i < h; i++) {
				KT_ASSERT_EQ(links[i] / MESH_DIRS, at);
				bool vertical = links[i] % MESH_DIRS >= MESH_NORTH;
				KT_ASSERT(!(turned && !vertical)); /* x first, then y: never back to x */
				turned |= vertical;
				at = mesh_link_target(links[i]);
			}
			KT_ASSERT_EQ(at, d);
		}
	for (unsigned c = 0; c < mesh.cores; c++) {
		KT_ASSERT_EQ(mesh_core_at(mesh_tiles[c].x, mesh_tiles[c].y), c);
		KT_ASSERT_EQ(mesh_tiles[c].hartid, harts[c].hartid);
	}
}

static void ping_pong(void *arg)
{
	(void)arg;
	int me = (int)this_cpu(), peer = me == 0 ? 1 : 0;
	char buf[32];
	struct msg_status st;
	int e;
	if (me == 0) {
		e = msg_send(peer, 7, "ping", 5);
		if (!e)
			e = msg_recv(peer, 8, buf, sizeof buf, &st);
		if (!e && (st.len != 5 || strcmp(buf, "pong") != 0 || st.source != peer || st.tag != 8))
			e = -EINVAL;
	} else {
		e = msg_recv(MSG_ANY_SOURCE, MSG_ANY_TAG, buf, sizeof buf, &st);
		if (!e && (strcmp(buf, "ping") != 0 || st.source != 0 || st.tag != 7))
			e = -EINVAL;
		if (!e)
			e = msg_send(0, 8, "pong", 5);
	}
	results[me] = e;
}

KTEST(noc, ping_pong)
{
	KT_ASSERT(hart_count >= 2);
	uint16_t cores[2] = {0, 1};
	KT_ASSERT(ktest_run_on(cores, 2, ping_pong, 0));
	KT_ASSERT_EQ(results[0], 0);
	KT_ASSERT_EQ(results[1], 0);
}
