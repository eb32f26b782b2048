/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SIB_REQ_H
#define SIB_REQ_H

#include "softib.h"

int sib_req_run(struct sib_qp *qp, int budget);

#endif
