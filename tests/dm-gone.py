#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""dm-gone: device memory held while its device goes away (the lifecycle stage, dm_gone).

Run inside a guest by tests/vm/lifecycle.sh: on DEV, allocates 8 KiB of device memory,
registers a zero-based MR on its second page, writes a pattern with ibv_memcpy_to_dm,
checks that more than max_dm_size together is refused with ENOMEM and that an imported
context (a dup of the context's fd) refuses to import a PD, an MR or a DM of a handle that
names none (ENOENT) but imports the real DM and reads the pattern through it, then runs `rdma link
delete DEV` while all of it is held.  The delete must return; afterwards the process's
mapping still reads the pattern (its pages outlive the DM), and closing the objects must
not crash the process.  Prints "dm-gone: ok ..." or "dm-gone: FAIL ..." and exits 0 / 1.
"""
import errno
import os
import subprocess
import sys

import pyverbs.device as d
import pyverbs.enums as e
from pyverbs.mr import DMMR, MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError


def main():
    dev = sys.argv[1] if len(sys.argv) > 1 else 'sib0'
    ctx = d.Context(name=dev)
    max_dm = ctx.query_device_ex().max_dm_size
    if max_dm < 8192:
        print(f'dm-gone: FAIL max_dm_size {max_dm}')
        return 1
    dm = d.DM(ctx, d.AllocDmAttr(length=8192))
    pd = PD(ctx)
    access = (e.IBV_ACCESS_ZERO_BASED | e.IBV_ACCESS_LOCAL_WRITE |
              e.IBV_ACCESS_REMOTE_WRITE)
    mr = DMMR(pd, 4096, access, dm, 4096)
    pattern = bytes(range(64))
    dm.copy_to_dm(4096, pattern, len(pattern))
    try:
        d.DM(ctx, d.AllocDmAttr(length=max_dm))
        print('dm-gone: FAIL a second DM beyond max_dm_size was allocated')
        return 1
    except PyverbsRDMAError as ex:
        if ex.error_code != errno.ENOMEM:
            print(f'dm-gone: FAIL over max_dm_size: errno {ex.error_code}, want ENOMEM')
            return 1
    ictx = d.Context(cmd_fd=os.dup(ctx.cmd_fd))
    ipd = PD(ictx, handle=pd.handle)
    bogus = 0x7ffff0
    for what, make in (('PD', lambda: PD(ictx, handle=bogus)),
                       ('MR', lambda: MR(ipd, handle=bogus)),
                       ('DM', lambda: d.DM(ictx, handle=bogus))):
        try:
            make()
            print(f'dm-gone: FAIL imported a {what} of a handle that names none')
            return 1
        except PyverbsRDMAError as ex:
            if ex.error_code != errno.ENOENT:
                print(f'dm-gone: FAIL import of a bogus {what} handle: errno '
                      f'{ex.error_code}, want ENOENT')
                return 1
    idm = d.DM(ictx, handle=dm.handle)
    if idm.copy_from_dm(4096, len(pattern)) != pattern:
        print('dm-gone: FAIL the imported DM does not read the pattern')
        return 1
    idm.unimport()
    ipd.unimport()
    rc = subprocess.run(['rdma', 'link', 'delete', dev], timeout=60).returncode
    if rc:
        print(f'dm-gone: FAIL rdma link delete {dev}: exit {rc}')
        return 1
    back = dm.copy_from_dm(4096, len(pattern))
    if back != pattern:
        print('dm-gone: FAIL the mapping lost its bytes after the device went')
        return 1
    print(f'dm-gone: ok DM, MR (lkey {mr.lkey:#x}) held across the delete, '
          f'over-budget ENOMEM, bogus imports ENOENT, mapping intact')
    return 0


if __name__ == '__main__':
    sys.exit(main())
