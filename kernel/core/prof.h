/*
 * Profile windows for scripts/mosaic-prof. The script runs QEMU with an execution
 * trace and counts guest instructions only while some hart is between
 * prof_begin() and prof_end(); it finds the two functions by their addresses, so
 * they do nothing and cost a call each. Windows may nest and may be open on
 * several harts at once: the count is machine-wide while any window is open.
 */
#ifndef KERNEL_PROF_H
#define KERNEL_PROF_H

void prof_begin(void);
void prof_end(void);

#endif
