#!/bin/sh
# Builds sim-check and sim-stress against a deliberately broken copy of one policy
# file of the protocol core (the mutation test, docs/checking.md): the copy is made
# here, in build/, from the live file by one sed expression, so it follows the
# real policy; a mutation that no longer applies fails the build. Never shipped.
# usage: checker/mutate.sh NAME OUTDIR CC CFLAGS...   (NAME: see the list below)
set -e
name=$1 out=$2 cc=$3
shift 3
case $name in
ac-no-release) # active cancellation: a home that cancels its own younger request keeps its cores
	file=policy_ac.c expr='s/wq_remove(m, own, true);/wq_remove(m, own, false);/' ;;
ac-no-cancel) # active cancellation that never cancels for an older request: Fig. 2.2's deadlock
	file=policy_ac.c expr='s/cancel_younger(m, h->t_submit, h->home, h->job);/(void)h;/' ;;
ab-early) # a sequencer that releases the next request before the current one has its cores
	file=policy_ab.c expr='s/m->dom != m->w->sequencer || m->seq_current || !m->nsq/m->dom != m->w->sequencer || !m->nsq/' ;;
*)
	echo "checker/mutate.sh: unknown mutant '$name' (ac-no-release, ac-no-cancel, ab-early)" >&2
	exit 2 ;;
esac
mkdir -p "$out"
sed "$expr" "portable/alloc/$file" > "$out/$file"
if cmp -s "portable/alloc/$file" "$out/$file"; then
	echo "checker/mutate.sh: mutant '$name' no longer applies to portable/alloc/$file" >&2
	exit 2
fi
core="$(ls portable/alloc/*.c | grep -v "/$file\$") portable/noc/centre.c"
common="checker/env.c checker/invariants.c checker/arena.c checker/dump.c"
"$cc" "$@" -o "$out/sim-check" checker/check_main.c checker/configs.c checker/net_chan.c checker/serialize.c \
	$common $core "$out/$file"
"$cc" "$@" -o "$out/sim-stress" checker/stress_main.c checker/workload.c checker/net_timed.c \
	$common $core "$out/$file"
