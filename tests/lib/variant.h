/* SPDX-License-Identifier: GPL-2.0 */
/* Which kernel variant the test runs on, for loops the debug kernel runs shorter. */
#ifndef RIG_VARIANT_H
#define RIG_VARIANT_H

#include <stdbool.h>

/* Whether this is the debug kernel (rig.variant=debug on its command line). */
bool rig_debug_kernel(void);

/*
 * How many rounds a long loop runs: std on the standard kernel, debug on
 * the debug kernel, whose KASAN, lockdep and kmemleak make each round
 * several times slower (make timings shows each group's time).
 */
int rig_rounds(int std, int debug);

#endif /* RIG_VARIANT_H */
