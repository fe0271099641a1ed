/* Standalone ktest suite "selfcheck": proves the runner reports a failing test and fails the run. */
#include "kernel/core/ktest.h"

KTEST_STANDALONE(selfcheck, passes)
{
	KT_ASSERT_EQ(2 + 2, 4);
}

KTEST_STANDALONE(selfcheck, fails_on_purpose)
{
	KT_ASSERT_EQ(1 + 1, 3);
}
