/*
 * The kernel calls of a share group's tasks (kernel/task/share/share.h, docs/balancing.md): the
 * task's rank and the group's size, and the group's barrier, which waits in the group's
 * wait mode (spin, yield or sleep). Outside a share group both answer -ENOTSUP.
 */
#ifndef MOSAIC_USER_BALANCE_H
#define MOSAIC_USER_BALANCE_H

#include "mosaic.h"


static inline long share_rank(void) { return mosaic_call(KC_SHARE_INFO, 0, 0, 0, 0, 0); }
static inline long share_size(void) { return mosaic_call(KC_SHARE_INFO, 1, 0, 0, 0, 0); }
static inline long share_barrier(void) { return mosaic_call(KC_SHARE_BARRIER, 0, 0, 0, 0, 0); }

#endif
