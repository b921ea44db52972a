/* SPDX-License-Identifier: BSD-3-Clause */
/* check.c - the counters of check.h, one pair per test binary. */
#include "check.h"

_Atomic unsigned long check_n_ok, check_n_fail;
