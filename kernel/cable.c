// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the InfiniBand link layer, cable.c's part (see ib.h). Being written.
 */
#include "softib.h"
#include "ib.h"
