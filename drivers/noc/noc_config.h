/*
 * Defaults of the emulated NoC: the one place they are defined. Each is a boot
 * argument (see drivers/noc/noc.c); docs/noc.md explains the timing model.
 */
#ifndef DRIVERS_NOC_CONFIG_H
#define DRIVERS_NOC_CONFIG_H

#define NOC_T_INJECT_NS_DEFAULT 1000   /* a message's fixed cost to enter the network */
#define NOC_T_HOP_NS_DEFAULT 500       /* the head flit's time per router hop */
#define NOC_T_FLIT_NS_DEFAULT 50       /* one flit crossing one link */
#define NOC_FLIT_BYTES_DEFAULT 16      /* payload bytes per flit */
#define NOC_MAILBOX_DEPTH_DEFAULT 8    /* slots (credits) of each hart's receive mailbox */
#define NOC_MAILBOX_DEPTH_MAX 64

/* Largest message body; bodies travel as ceil(len / flit_bytes) flits. */
#define NOC_MAX_BODY (64 * 1024)
/* Bodies up to this size live in the mailbox slot; larger ones in pages of their own. */
#define NOC_INLINE_BODY 192

#endif
