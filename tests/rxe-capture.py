#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Capture RoCEv2 packets sent by the kernel's rdma_rxe, for kernel/icrc_test.c.

Run inside a guest with rdma_rxe on eth0:
    tools/vm-run --rxe -- /usr/bin/python3 tests/rxe-capture.py
It posts one UD SEND and one RC SEND with immediate data on rxe0 to the slirp gateway
10.0.2.2 (a real next hop with a MAC, so rxe sends them on the wire and computes the
ICRC itself; to its own addresses rxe would loop back without an ICRC), captures them
on eth0 with a packet socket (as tcpdump would) and prints each IP packet as a C array. Nobody answers: the RC QP
just retransmits, which does not matter.
"""
import os
import subprocess
import sys
import socket
import threading
import time

from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR
import pyverbs.enums as e

DEV = 'rxe0'
DST = '0000:0000:0000:0000:0000:ffff:0a00:0202'	# ::ffff:10.0.2.2


def gid_index():
    out = subprocess.run([os.path.join(os.path.dirname(__file__), '..', 'tools',
                                       'roce-gid-index'), DEV],
                         check=True, capture_output=True, text=True).stdout
    return int(out.split()[0])


def capture(sock, want, out):
    """Collect @want outgoing IPv4 UDP packets to port 4791 seen on @sock."""
    while len(out) < want:
        frame = sock.recv(65535)
        ip = frame[14:]
        if frame[12:14] != b'\x08\x00' or len(ip) < 28 or ip[9] != 17:
            continue
        ihl = (ip[0] & 0xf) * 4
        if int.from_bytes(ip[ihl + 2:ihl + 4], 'big') == 4791:
            out.append(ip[:int.from_bytes(ip[2:4], 'big')])


def main():
    sgid = gid_index()
    ctx = Context(name=DEV)
    pd = PD(ctx)
    cq = CQ(ctx, 16)
    cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
    mr = MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
    mr.write(b'rdma_rxe -> softib ICRC vector!', 31)
    gr = GlobalRoute(dgid=GID(DST), sgid_index=sgid, hop_limit=64)
    ah_attr = AHAttr(gr=gr, is_global=1, port_num=1)

    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    sock.bind(('eth0', 0))
    pkts = []
    thr = threading.Thread(target=capture, args=(sock, 2, pkts), daemon=True)
    thr.start()

    # UD SEND: BTH + DETH + 31 bytes (+1 pad) + ICRC
    ud = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq, cap=cap))
    qa = QPAttr()
    qa.qkey = 0x11111111
    ud.to_rts(qa)
    wr = SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[SGE(mr.buf, 31, mr.lkey)])
    wr.set_wr_ud(AH(pd, attr=ah_attr), 0x123, 0x11111111)
    ud.post_send(wr)
    time.sleep(1)

    # RC SEND with immediate: BTH + ImmDt + 16 bytes + ICRC
    rc = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
    qa = QPAttr()
    for k, v in dict(qp_access_flags=0, path_mtu=e.IBV_MTU_1024, dest_qp_num=0x456,
                     rq_psn=0x10, sq_psn=0xabcdef, timeout=20, retry_cnt=1, rnr_retry=1,
                     max_rd_atomic=1, max_dest_rd_atomic=1, min_rnr_timer=12,
                     ah_attr=ah_attr).items():
        setattr(qa, k, v)
    rc.to_rts(qa)
    wr = SendWR(opcode=e.IBV_WR_SEND_WITH_IMM, num_sge=1, sg=[SGE(mr.buf, 16, mr.lkey)])
    wr.imm_data = 0x12345678
    rc.post_send(wr)

    thr.join(timeout=20)
    for i, p in enumerate(pkts[:2]):
        print(f'/* packet {i}: {len(p)} bytes */')
        for j in range(0, len(p), 12):
            print('\t' + ' '.join(f'0x{b:02x},' for b in p[j:j + 12]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
