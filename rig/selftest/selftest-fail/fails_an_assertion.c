// SPDX-License-Identifier: GPL-2.0
/* rig self-test: a guest test whose assertion fails must fail the run. */
#include "kselftest_harness.h"

TEST(one_plus_one_is_three)
{
	ASSERT_EQ(3, 1 + 1);
}

TEST_HARNESS_MAIN
