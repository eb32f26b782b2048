#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""wire-inject: crafted RoCEv2 packets against live softib QPs (the wire stage).

Run inside a guest, from tests/vm/wire.sh, which sets up a veth pair: DEV (a softib device)
on IFA (address IPA), nothing on IFB.  This program creates RC, UC and UD QPs on DEV with
pyverbs, "connects" them to a peer that does not exist (GID of IPB, behind IFB), writes
Ethernet frames built with scapy (RoCEv2 over IPv4 with the ICRC) into IFB with a packet
socket, so they enter DEV through the real receive path (veth -> IP -> UDP -> softib), and
reads DEV's answers (ACK, NAK, READ responses, atomic ACKs) from the same socket.  Each case
checks the device counters (ports/1/hw_counters), the completions, the memory of the MRs and
the answers on the wire, and prints
    RESULT wire_<case> ok|FAIL <detail>
and at the end "wire: N/M ok".  Exit status 0 iff all ok.
"""
import argparse
import ipaddress
import os
import tempfile
import select
import socket
import struct
import subprocess
import sys
import time

from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP, fragment
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr, QPInitAttrEx
from pyverbs.srq import SRQ, SrqInitAttrEx
from pyverbs.xrcd import XRCD, XRCDInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE
import pyverbs.enums as e

# BTH opcodes (IBTA table 38)
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_ONLY = 0x00, 0x01, 0x02, 0x04
WRITE_FIRST, WRITE_LAST, WRITE_ONLY = 0x06, 0x08, 0x0a
READ_REQ, READ_RESP_ONLY, ACK, ATOMIC_ACK = 0x0c, 0x10, 0x11, 0x12
CMP_SWAP, FETCH_ADD = 0x13, 0x14
UC = 0x20
UD_SEND_ONLY = 0x64
XRC_SEND_FIRST, XRC_SEND_LAST, XRC_ACK = 0xa0, 0xa2, 0xb1
# AETH syndromes
SYN_ACK, SYN_NAK_SEQ, SYN_NAK_INV, SYN_NAK_ACC = 0x00, 0x60, 0x61, 0x62
PEER_QPN = 0x777
# the cases, in the order they run (the first two set up the RC QP the others use)
CASES = ['valid_send', 'valid_write', 'bad_icrc', 'short_bth', 'short_reth',
         'short_atomic', 'short_deth', 'short_aeth', 'bad_opcode', 'unknown_qpn', 'bad_pkey',
         'bad_tver', 'dup_send', 'dup_write', 'dup_read', 'dup_atomic', 'dup_atomic_unknown',
         'reth_beyond_mr', 'read_beyond_mr', 'bad_rkey', 'rkey_other_pd',
         'atomic_other_pd', 'write_readonly_mr', 'atomic_no_access', 'send_inv_bad_rkey',
         'write_longer_than_reth', 'psn_ahead', 'psn_far',
         'pad_too_big', 'pad_unaligned', 'pad_no_payload', 'mid_not_full',
         'send_over_mtu', 'write_over_mtu', 'write_middle_unexpected', 'atomic_unaligned',
         'wrong_transport', 'qp_not_ready', 'read_resp_too_long', 'uc_gap', 'ud_qkey', 'ud_short_buffer', 'ack_to_responder',
         'send_resume_rnr', 'send_resume_mid', 'dup_ack_behind_read',
         'read_va_wrap', 'write_va_wrap', 'read_2g', 'read_over_2g', 'zero_len_any_rkey',
         'send_inv_user_mr', 'ip_fragments', 'nak_rem_op', 'wrong_source', 'xrc_srq_switch']
MTU = 1024
MRSZ = 4096
SLOT = 2048         # receive buffer per receive WQE
REMOTE = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ |
          e.IBV_ACCESS_REMOTE_ATOMIC)


def reth(va, rkey, length):
    return struct.pack('>QII', va, rkey, length)


def atmeth(va, rkey, swap_add, compare=0):
    return struct.pack('>QIQQ', va, rkey, swap_add, compare)


def v4_gid(ip):
    """The IPv4-mapped RoCEv2 GID of @ip in pyverbs' spelling (8 groups of 4 digits)."""
    b = socket.inet_aton(ip)
    return '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' % tuple(b)


class Wire:
    """Frames into IFB (they arrive at IFA), answers of DEV read back from IFB."""

    def __init__(self, args):
        self.a = args
        self.maca = open(f'/sys/class/net/{args.ifa}/address').read().strip()
        self.macb = open(f'/sys/class/net/{args.ifb}/address').read().strip()
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
        self.sock.bind((args.ifb, 0))
        self.sock.setblocking(False)

    def frame(self, opcode, qpn, psn, hdrs=b'', payload=b'', ackreq=True, pkey=0xffff,
              pad=None, data=None, src=None):
        """One Ethernet frame; @data replaces everything after the BTH (ICRC still right);
        @src: another IP source than IPB."""
        if pad is None:
            pad = (-len(payload)) % 4
        body = data if data is not None else hdrs + payload + b'\0' * pad
        return bytes(Ether(dst=self.maca, src=self.macb) /
                     IP(src=src or self.a.ipb, dst=self.a.ipa, ttl=64, flags='DF') /
                     UDP(sport=0xc123, dport=4791, chksum=0) /
                     BTH(opcode=opcode, padcount=pad, pkey=pkey, dqpn=qpn,
                         ackreq=int(ackreq), psn=psn & 0xffffff) / Raw(body))

    def send(self, *args, **kw):
        self.sock.send(self.frame(*args, **kw))

    def send_raw(self, frame):
        self.sock.send(frame)

    def drain(self):
        while self.recv(0) is not None:
            pass

    def recv(self, timeout):
        """The next RoCEv2 packet from IPA, parsed, or None after @timeout seconds."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left < 0 and timeout:
                return None
            r, _, _ = select.select([self.sock], [], [], max(left, 0))
            if not r:
                return None
            try:
                f, addr = self.sock.recvfrom(65535)
            except BlockingIOError:
                continue
            if addr[2] == socket.PACKET_OUTGOING or f[12:14] != b'\x08\x00':
                continue
            ip = f[14:]
            ihl = (ip[0] & 0xf) * 4
            if ip[9] != 17 or socket.inet_ntoa(ip[12:16]) != self.a.ipa:
                continue
            udp = ip[ihl:]
            if struct.unpack('>H', udp[2:4])[0] != 4791:
                continue
            tl = struct.unpack('>H', ip[2:4])[0]
            b = ip[ihl + 8:tl]
            p = dict(opcode=b[0], qpn=struct.unpack('>I', b[4:8])[0] & 0xffffff,
                     psn=struct.unpack('>I', b[8:12])[0] & 0xffffff, pad=(b[1] >> 4) & 3)
            if p['opcode'] in (ACK, ATOMIC_ACK, READ_RESP_ONLY, 0x0d, 0x0f, XRC_ACK):
                p['syn'] = b[12]
                p['msn'] = struct.unpack('>I', b[12:16])[0] & 0xffffff
            if p['opcode'] == ATOMIC_ACK:
                p['orig'] = struct.unpack('>Q', b[16:24])[0]
            if p['opcode'] in (READ_RESP_ONLY, 0x0d, 0x0e, 0x0f):
                off = 12 if p['opcode'] == 0x0e else 16
                p['data'] = b[off:len(b) - 4 - p['pad']]
            return p

    def collect(self, secs):
        out, end = [], time.monotonic() + secs
        while time.monotonic() < end:
            p = self.recv(max(end - time.monotonic(), 0.001))
            if p:
                out.append(p)
        return out

    def expect(self, pred, timeout):
        """Packets until one satisfies @pred: (match or None, all seen)."""
        seen, end = [], time.monotonic() + timeout
        while time.monotonic() < end:
            p = self.recv(max(end - time.monotonic(), 0.001))
            if p is None:
                break
            seen.append(p)
            if pred(p):
                return p, seen
        return None, seen


def is_ack(p):
    """An AETH with the ACK class (any credit count; softib sends 0x1f, no credits)."""
    return 'syn' in p and p['syn'] & 0x60 == 0


def fmt(pkts):
    return ' '.join(f"op{p['opcode']:#x}/psn{p['psn']}" +
                    (f"/syn{p['syn']:#x}" if 'syn' in p else '') for p in pkts) or 'nothing'


class TQP:
    """A pyverbs QP with the test's view of it: expected PSN, posted receive WQEs."""

    def __init__(self, qp, epsn):
        self.qp = qp
        self.qp_num = qp.qp_num
        self.epsn = epsn
        self.recvs = []


class Target:
    """The QPs, MRs and CQ on DEV that the crafted packets go to."""

    def __init__(self, args):
        self.a = args
        self.ctx = Context(name=args.dev)
        self.pd = PD(self.ctx)
        self.pd2 = PD(self.ctx)
        self.cq = CQ(self.ctx, 256)
        self.mr = MR(self.pd, MRSZ, REMOTE)
        self.mr2 = MR(self.pd2, MRSZ, REMOTE)
        self.mr_ro = MR(self.pd, MRSZ, e.IBV_ACCESS_REMOTE_READ)
        self.mr_noat = MR(self.pd, MRSZ, REMOTE & ~e.IBV_ACCESS_REMOTE_ATOMIC)
        self.rmr = MR(self.pd, 32 * SLOT, e.IBV_ACCESS_LOCAL_WRITE)
        gid = subprocess.run([args.gid_index, args.dev], check=True, capture_output=True,
                             text=True).stdout.split()[0]
        self.sgid = int(gid)
        self.gr = GlobalRoute(dgid=GID(v4_gid(args.ipb)), sgid_index=self.sgid,
                              hop_limit=64)
        self.wrid = 1000

    def qp(self, qpt=e.IBV_QPT_RC, epsn=100, nrecv=4):
        """A QP in RTS whose peer is PEER_QPN at IPB; its receive queue has @nrecv WQEs."""
        cap = QPCap(max_send_wr=8, max_recv_wr=16, max_send_sge=1, max_recv_sge=1)
        qp = QP(self.pd, QPInitAttr(qp_type=qpt, scq=self.cq, rcq=self.cq, cap=cap))
        qa = QPAttr()
        if qpt == e.IBV_QPT_UD:
            qa.qkey = 0x1111
        else:
            qa.qp_access_flags = REMOTE if qpt == e.IBV_QPT_RC else \
                e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE
            qa.path_mtu = e.IBV_MTU_1024
            qa.dest_qp_num = PEER_QPN
            qa.rq_psn = epsn
            qa.sq_psn = 5000
            qa.ah_attr = AHAttr(gr=self.gr, is_global=1, port_num=1)
            if qpt == e.IBV_QPT_RC:
                qa.timeout, qa.retry_cnt, qa.rnr_retry = 14, 7, 7
                qa.max_rd_atomic = qa.max_dest_rd_atomic = 4
                qa.min_rnr_timer = 1
        qp.to_rts(qa)
        q = TQP(qp, epsn)
        for i in range(nrecv):
            self.post_recv(q, i)
        return q

    def post_recv(self, qp, slot, ln=SLOT):
        """A receive WQE for @ln bytes at slot @slot of the receive MR."""
        self.wrid += 1
        self.rmr.write(b'\xee' * ln, ln, slot * ln)
        qp.qp.post_recv(RecvWR(wr_id=self.wrid, num_sge=1,
                            sg=[SGE(self.rmr.buf + slot * ln, ln, self.rmr.lkey)]))
        qp.recvs.append((self.wrid, slot * ln))

    def poll(self, secs):
        out, end = [], time.monotonic() + secs
        while True:
            n, wcs = self.cq.poll(16)
            out.extend(wcs[:n])
            if time.monotonic() > end or (n == 0 and out and secs == 0):
                return out
            if n == 0:
                time.sleep(0.01)


class Cases:
    def __init__(self, args):
        self.a = args
        self.w = Wire(args)
        self.t = Target(args)
        self.nok = self.nfail = 0
        self.failed = []
        self.results = open(args.results, 'a') if args.results else None

    def cnt(self, name):
        with open(f'/sys/class/infiniband/{self.a.dev}/ports/1/hw_counters/{name}') as f:
            return int(f.read())

    def snap(self):
        d = f'/sys/class/infiniband/{self.a.dev}/ports/1/hw_counters'
        return {n: int(open(f'{d}/{n}').read()) for n in os.listdir(d)}

    def delta(self, before):
        now = self.snap()
        return {k: now[k] - before.get(k, 0) for k in now if now[k] != before.get(k, 0)}

    def result(self, name, ok, detail):
        st = 'ok' if ok else 'FAIL'
        line = f'RESULT wire_{name} {st} {detail}'
        print(line, flush=True)
        if self.results:
            self.results.write(line + '\n')
            self.results.flush()
        if ok:
            self.nok += 1
        else:
            self.nfail += 1
            self.failed.append(name)

    def probe(self, qp):
        """A zero-length WRITE at the QP's expected PSN, answered by an ACK: every packet
        sent before it has been handled. True when the ACK came."""
        psn = qp.epsn
        self.w.send(WRITE_ONLY, qp.qp_num, psn, reth(0, 0, 0))
        p, _ = self.w.expect(lambda p: p['opcode'] == ACK and p['psn'] == psn and
                             is_ack(p), self.a.wait)
        if p:
            qp.epsn = (qp.epsn + 1) & 0xffffff
        return p is not None

    def mem(self, mr=None, off=0, ln=64):
        return (mr or self.t.mr).read(ln, off)

    def fill(self, mr=None, byte=b'\x5a'):
        mr = mr or self.t.mr
        mr.write(byte * MRSZ, MRSZ, 0)

    # ------------------------------------------------------------------ cases
    def run(self, only):
        cases = [m[5:] for m in dir(self) if m.startswith('case_')]
        assert sorted(CASES) == sorted(cases), set(CASES) ^ set(cases)
        for name in CASES:
            if only and name not in only:
                continue
            self.w.drain()
            self.t.poll(0)
            before = self.snap()
            try:
                ok, detail = getattr(self, 'case_' + name)()
            except Exception as ex:  # a broken case is a failed case
                ok, detail = False, f'exception {type(ex).__name__}: {ex}'
            d = self.delta(before)
            keep = ('rcvd_', 'duplicate', 'seq_nak', 'rkey', 'uc_', 'ud_')
            detail += '; counters ' + (' '.join(f'{k}+{v}' for k, v in sorted(d.items())
                                                if k.startswith(keep)) or 'none')
            self.result(name, ok, detail)
        print(f'wire: {self.nok}/{self.nok + self.nfail} ok' +
              (f' (failed: {" ".join(self.failed)})' if self.failed else ''), flush=True)
        return 0 if not self.nfail else 1

    def counted(self, before, name, n=1):
        return self.cnt(name) - before.get(name, 0) == n

    def recv_wcs(self, wcs):
        return [w for w in wcs if w.opcode & e.IBV_WC_RECV]

    def case_valid_send(self):
        """A well-formed SEND ONLY is ACKed and lands in the first receive WQE."""
        qp = self.rc = self.t.qp()
        self.w.send(SEND_ONLY, qp.qp_num, qp.epsn, payload=b'hello softib')
        p, seen = self.w.expect(lambda p: p['opcode'] == ACK, self.a.wait)
        wcs = self.t.poll(0.2 * self.a.slow)
        wrid, off = qp.recvs[0]
        ok = (p is not None and p['psn'] == qp.epsn and is_ack(p) and len(wcs) == 1
              and wcs[0].status == 0 and wcs[0].wr_id == wrid and wcs[0].byte_len == 12 and
              self.t.rmr.read(12, off) == b'hello softib')
        qp.epsn += 1
        qp.recvs.pop(0)
        return ok, f'answer {fmt(seen)}, {len(wcs)} completion(s)'

    def case_valid_write(self):
        """A WRITE ONLY places its payload and is ACKed (the probe used by later cases)."""
        qp = self.rc
        self.fill()
        self.w.send(WRITE_ONLY, qp.qp_num, qp.epsn, reth(self.t.mr.buf + 8, self.t.mr.rkey, 8),
                    b'12345678')
        p, seen = self.w.expect(lambda p: p['opcode'] == ACK, self.a.wait)
        ok = p is not None and is_ack(p) and self.mem(ln=24) == \
            b'\x5a' * 8 + b'12345678' + b'\x5a' * 8
        qp.epsn += 1
        return ok, f'answer {fmt(seen)}'

    def dropped(self, frame_args, counter, qp=None, frame=None):
        """Send one bad packet to the RC QP; ok when @counter grew by one, no answer came,
        no completion, memory unchanged and the QP still works (probe ACKed)."""
        qp = qp or self.rc
        self.fill()
        before = self.snap()
        if frame is not None:
            self.w.send_raw(frame)
        else:
            self.w.send(*frame_args[0], **frame_args[1])
        alive = self.probe(qp)
        seen = self.w.collect(0.1)
        wcs = self.t.poll(0.05)
        untouched = self.mem(ln=MRSZ) == b'\x5a' * MRSZ
        ok = self.counted(before, counter) and alive and not wcs and untouched and not seen
        return ok, (f'{counter} counted, ' if self.counted(before, counter) else
                    f'{counter} NOT counted, ') + \
            f'QP alive {alive}, extra answers {fmt(seen)}, {len(wcs)} completion(s), ' \
            f'memory {"unchanged" if untouched else "WRITTEN"}'

    def case_bad_icrc(self):
        qp = self.rc
        f = bytearray(self.w.frame(SEND_ONLY, qp.qp_num, qp.epsn, payload=b'bad icrc'))
        f[-1] ^= 0x01
        return self.dropped(None, 'rcvd_icrc_err', frame=bytes(f))

    def case_short_bth(self):
        """8 bytes of BTH, nothing else."""
        qp = self.rc
        f = self.w.frame(SEND_ONLY, qp.qp_num, qp.epsn)
        # Ether 14 + IP 20 + UDP 8, then 8 BTH bytes; IP/UDP lengths fixed by scapy
        pkt = Ether(f)
        pkt[UDP].remove_payload()
        pkt[UDP].add_payload(Raw(f[42:50]))
        del pkt[IP].len, pkt[IP].chksum, pkt[UDP].len
        return self.dropped(None, 'rcvd_bad_hdr', frame=bytes(pkt))

    def case_short_reth(self):
        """WRITE ONLY whose RETH is cut after 8 bytes (ICRC right)."""
        qp = self.rc
        return self.dropped(((WRITE_ONLY, qp.qp_num, qp.epsn),
                             dict(data=reth(self.t.mr.buf, self.t.mr.rkey, 8)[:8])),
                            'rcvd_bad_hdr')

    def case_short_atomic(self):
        """FETCH_ADD with 20 of the 28 AtomicETH bytes."""
        qp = self.rc
        return self.dropped(((FETCH_ADD, qp.qp_num, qp.epsn),
                             dict(data=atmeth(self.t.mr.buf, self.t.mr.rkey, 1)[:20])),
                            'rcvd_bad_hdr')

    def case_short_deth(self):
        """UD SEND ONLY with 4 of the 8 DETH bytes, to a UD QP."""
        ud = self.t.qp(e.IBV_QPT_UD)
        before = self.snap()
        self.w.send(UD_SEND_ONLY, ud.qp_num, 0, data=struct.pack('>I', 0x1111))
        self.probe(self.rc)
        wcs = self.t.poll(0.1)
        ok = self.counted(before, 'rcvd_bad_hdr') and not wcs
        return ok, f'{len(wcs)} completion(s)'

    def case_short_aeth(self):
        """An ACK with no AETH (BTH only)."""
        qp = self.rc
        return self.dropped(((ACK, qp.qp_num, 5000), dict(data=b'')), 'rcvd_bad_hdr')

    def case_bad_opcode(self):
        """Reserved opcodes: RC 0x15 and 0x1f, CNP-like 0x81 as a request, 0xff."""
        qp = self.rc
        res = []
        for op in (0x15, 0x1f, 0xff, 0x3f):
            ok, d = self.dropped(((op, qp.qp_num, qp.epsn), dict(payload=b'\0' * 16)),
                                 'rcvd_bad_hdr')
            res.append((ok, f'{op:#x}: {d}'))
        return all(r[0] for r in res), ' | '.join(r[1] for r in res if not r[0]) or \
            'opcodes 0x15 0x1f 0xff 0x3f each dropped and counted in rcvd_bad_hdr'

    def case_unknown_qpn(self):
        return self.dropped(((SEND_ONLY, 0xabcde, 0), dict(payload=b'x' * 8)), 'rcvd_no_qp')

    def case_bad_pkey(self):
        qp = self.rc
        return self.dropped(((SEND_ONLY, qp.qp_num, qp.epsn),
                             dict(payload=b'x' * 8, pkey=0x1234)), 'rcvd_pkey_err')

    def case_bad_tver(self):
        """A BTH transport header version other than 0."""
        qp = self.rc
        f = bytearray(self.w.frame(SEND_ONLY, qp.qp_num, qp.epsn, payload=b'x' * 8))
        pkt = Ether(bytes(f))
        pkt[BTH].version = 1
        pkt[BTH].icrc = None
        return self.dropped(None, 'rcvd_bad_hdr', frame=bytes(pkt))

    def case_dup_send(self):
        """A SEND ONLY sent twice with the same PSN: ACKed twice, delivered once (the
        second receive WQE stays for the next SEND)."""
        qp = self.rc
        psn = qp.epsn
        before = self.snap()
        for _ in range(2):
            self.w.send(SEND_ONLY, qp.qp_num, psn, payload=b'first copy')
        acks = []
        p, seen = self.w.expect(lambda p: p['opcode'] == ACK and len(acks.append(p) or acks) == 2,
                                self.a.wait)
        wcs = self.t.poll(0.2 * self.a.slow)
        qp.epsn += 1
        w1, _ = qp.recvs.pop(0)
        w2, off2 = qp.recvs[0]
        self.w.send(SEND_ONLY, qp.qp_num, qp.epsn, payload=b'next message')
        wcs2 = self.t.poll(1.0 * self.a.slow)
        qp.epsn += 1
        qp.recvs.pop(0)
        ok = (p is not None and all(is_ack(a) and a['psn'] == psn for a in acks) and
              len(wcs) == 1 and wcs[0].wr_id == w1 and
              self.counted(before, 'duplicate_request') and
              len(wcs2) == 1 and wcs2[0].wr_id == w2 and self.t.rmr.read(12, off2) ==
              b'next message')
        return ok, f'answers {fmt(seen)}, completions {[w.wr_id for w in wcs]} then ' \
                   f'{[w.wr_id for w in wcs2]} (want [{w1}] then [{w2}])'

    def case_dup_write(self):
        """A WRITE repeated after the memory changed locally: re-ACKed, not written again."""
        qp = self.rc
        self.fill()
        psn = qp.epsn
        va = self.t.mr.buf + 64
        self.w.send(WRITE_ONLY, qp.qp_num, psn, reth(va, self.t.mr.rkey, 16), b'W' * 16)
        p1, _ = self.w.expect(lambda p: p['opcode'] == ACK, self.a.wait)
        first = self.mem(off=64, ln=16)
        qp.epsn += 1
        self.t.mr.write(b'L' * 16, 16, 64)
        self.w.send(WRITE_ONLY, qp.qp_num, psn, reth(va, self.t.mr.rkey, 16), b'W' * 16)
        p2, _ = self.w.expect(lambda p: p['opcode'] == ACK, self.a.wait)
        alive = self.probe(qp)
        ok = (p1 and p2 and is_ack(p2) and first == b'W' * 16 and
              self.mem(off=64, ln=16) == b'L' * 16 and alive)
        return ok, f'first write placed {first == b"W" * 16}, duplicate re-ACKed ' \
                   f'{bool(p2)}, memory after duplicate {self.mem(off=64, ln=16)!r}'

    def case_dup_read(self):
        """A READ repeated: answered again with the current memory at the same PSN."""
        qp = self.rc
        self.fill(byte=b'R')
        psn = qp.epsn
        r = reth(self.t.mr.buf + 128, self.t.mr.rkey, 32)
        self.w.send(READ_REQ, qp.qp_num, psn, r)
        p1, s1 = self.w.expect(lambda p: p['opcode'] == READ_RESP_ONLY, self.a.wait)
        qp.epsn += 1
        self.w.send(READ_REQ, qp.qp_num, psn, r)
        p2, s2 = self.w.expect(lambda p: p['opcode'] == READ_RESP_ONLY, self.a.wait)
        alive = self.probe(qp)
        ok = (p1 and p2 and p1['psn'] == psn and p2['psn'] == psn and
              p1['data'] == b'R' * 32 and p2['data'] == b'R' * 32 and alive)
        return ok, f'first {fmt(s1)}, duplicate {fmt(s2)}, QP alive {alive}'

    def case_dup_ack_behind_read(self):
        """A duplicate SEND after a READ (one and three responses) and a FETCH_ADD: its ACK
        names the newest SEND, never a PSN of the READs' responses or of the atomic ACK (a
        requester may take such an ACK for the answer: rdma_rxe completes a READ whose
        last PSN an ACK carries, without its data)."""
        qp = self.t.qp(nrecv=2)
        self.fill(byte=b'Q')
        mr = self.t.mr
        psn = qp.epsn
        self.w.send(SEND_ONLY, qp.qp_num, psn, payload=b'before the reads')
        a0, s0 = self.w.expect(lambda p: p['opcode'] == ACK, self.a.wait)
        self.w.send(READ_REQ, qp.qp_num, psn + 1, reth(mr.buf, mr.rkey, 16))
        self.w.send(READ_REQ, qp.qp_num, psn + 2, reth(mr.buf, mr.rkey, 2 * MTU + 8))
        self.w.send(FETCH_ADD, qp.qp_num, psn + 5, atmeth(mr.buf + 256, mr.rkey, 1))
        _, s1 = self.w.expect(lambda p: p['opcode'] == ATOMIC_ACK, self.a.wait)
        self.w.drain()
        self.w.send(SEND_ONLY, qp.qp_num, psn, payload=b'before the reads')
        a1, s2 = self.w.expect(lambda p: p['opcode'] == ACK, self.a.wait)
        qp.epsn += 6
        alive = self.probe(qp)
        wcs = self.t.poll(0.2 * self.a.slow)
        ok = (a0 is not None and a0['psn'] == psn and a1 is not None and is_ack(a1) and
              a1['psn'] == psn and alive and len(wcs) == 1 and wcs[0].status == 0)
        return ok, f'first {fmt(s0)}, reads and atomic answered {fmt(s1)}, duplicate SEND ' \
                   f'answered {fmt(s2)} (want an ACK at {psn}), QP alive {alive}'

    def case_dup_atomic(self):
        """A FETCH_ADD repeated: the duplicate gets the saved original value and is not
        executed again."""
        qp = self.rc
        self.fill(byte=b'\0')
        self.t.mr.write(struct.pack('<Q', 100), 8, 256)
        psn = qp.epsn
        a = atmeth(self.t.mr.buf + 256, self.t.mr.rkey, 5)
        self.w.send(FETCH_ADD, qp.qp_num, psn, a)
        p1, s1 = self.w.expect(lambda p: p['opcode'] == ATOMIC_ACK, self.a.wait)
        qp.epsn += 1
        v1 = struct.unpack('<Q', self.mem(off=256, ln=8))[0]
        self.w.send(FETCH_ADD, qp.qp_num, psn, a)
        p2, s2 = self.w.expect(lambda p: p['opcode'] == ATOMIC_ACK, self.a.wait)
        alive = self.probe(qp)
        v2 = struct.unpack('<Q', self.mem(off=256, ln=8))[0]
        ok = (p1 and p2 and p1['orig'] == 100 and p2['orig'] == 100 and p2['psn'] == psn and
              v1 == 105 and v2 == 105 and alive)
        return ok, f'orig {p1 and p1["orig"]} then {p2 and p2["orig"]}, memory {v1} then {v2}'

    def case_dup_atomic_unknown(self):
        """A FETCH_ADD with an old PSN that was never executed (no saved result): not
        executed, no answer (IBTA 9.7.5.1.3 answers duplicates only from saved results)."""
        qp = self.rc
        return self.dropped(((FETCH_ADD, qp.qp_num, qp.epsn - 50),
                             dict(hdrs=atmeth(self.t.mr.buf + 256, self.t.mr.rkey, 5))),
                            'duplicate_request')

    def naked(self, build, syndrome, mr=None, what='memory'):
        """On a fresh RC QP: the packet from build(qp) gets a NAK @syndrome at its PSN, the
        QP goes to error (a later probe is not answered), no memory of @mr written."""
        mr = mr or self.t.mr
        qp = self.t.qp(nrecv=1)
        self.fill(mr)
        self.w.send(**build(qp))
        p, seen = self.w.expect(lambda p: p['opcode'] == ACK, self.a.wait)
        untouched = mr.read(MRSZ, 0) == b'\x5a' * MRSZ
        wcs = self.t.poll(0.3 * self.a.slow)
        # the receive WQE completes in error (flushed, or the error of the request that
        # had begun to fill it): the QP is in the error state
        flushed = [w for w in wcs if w.status != 0]
        ok = (p is not None and p['syn'] == syndrome and p['psn'] == qp.epsn and untouched and
              len(flushed) == 1)
        return ok, f'answer {fmt(seen)} (want syndrome {syndrome:#x}), {what} ' \
                   f'{"unchanged" if untouched else "WRITTEN"}, {len(flushed)} flushed receive'

    def case_reth_beyond_mr(self):
        mr = self.t.mr
        return self.naked(lambda qp: dict(opcode=WRITE_ONLY, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=reth(mr.buf + MRSZ - 8, mr.rkey, 16),
                                          payload=b'X' * 16), SYN_NAK_ACC)

    def case_read_beyond_mr(self):
        mr = self.t.mr
        return self.naked(lambda qp: dict(opcode=READ_REQ, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=reth(mr.buf + 8, mr.rkey, MRSZ)), SYN_NAK_ACC)

    def case_bad_rkey(self):
        mr = self.t.mr
        return self.naked(lambda qp: dict(opcode=WRITE_ONLY, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=reth(mr.buf, mr.rkey ^ 0x5500, 16),
                                          payload=b'X' * 16), SYN_NAK_ACC)

    def case_rkey_other_pd(self):
        mr2 = self.t.mr2
        return self.naked(lambda qp: dict(opcode=WRITE_ONLY, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=reth(mr2.buf, mr2.rkey, 16),
                                          payload=b'X' * 16), SYN_NAK_ACC, mr=mr2,
                          what="the other PD's MR")

    def case_atomic_other_pd(self):
        mr2 = self.t.mr2
        return self.naked(lambda qp: dict(opcode=CMP_SWAP, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=atmeth(mr2.buf, mr2.rkey, 7,
                                                      0x5a5a5a5a5a5a5a5a)),
                          SYN_NAK_ACC, mr=mr2, what="the other PD's MR")

    def case_write_readonly_mr(self):
        """WRITE to an MR registered with remote read access only."""
        mr = self.t.mr_ro
        return self.naked(lambda qp: dict(opcode=WRITE_ONLY, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=reth(mr.buf, mr.rkey, 16), payload=b'X' * 16),
                          SYN_NAK_ACC, mr=mr, what='the read-only MR')

    def case_atomic_no_access(self):
        """CMP_SWAP on an MR registered without remote atomic access."""
        mr = self.t.mr_noat
        return self.naked(lambda qp: dict(opcode=CMP_SWAP, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=atmeth(mr.buf, mr.rkey, 7, 0x5a5a5a5a5a5a5a5a)),
                          SYN_NAK_ACC, mr=mr, what='the MR')

    def case_send_inv_bad_rkey(self):
        """SEND ONLY with Invalidate naming an R_Key that does not exist: invalid request
        (IBTA 10.6.7.2.5), the receive WQE completes in error."""
        return self.naked(lambda qp: dict(opcode=0x17, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=struct.pack('>I', 0x7654321),
                                          payload=b'i' * 16), SYN_NAK_INV)

    def case_read_va_wrap(self):
        """READ whose RETH address + length wraps around 2^64 (the MR's R_Key): a range
        check done in 64 bits without the carry would pass it."""
        mr = self.t.mr
        return self.naked(lambda qp: dict(opcode=READ_REQ, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=reth(0xffffffffffffff00, mr.rkey, 0x200)),
                          SYN_NAK_ACC)

    def case_write_va_wrap(self):
        """WRITE of 16 bytes at 2^64 - 8 with the MR's R_Key."""
        mr = self.t.mr
        return self.naked(lambda qp: dict(opcode=WRITE_ONLY, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=reth(0xfffffffffffffff8, mr.rkey, 16),
                                          payload=b'X' * 16), SYN_NAK_ACC)

    def case_read_2g(self):
        """READ of 2^31 bytes (the largest message) from a 4 KiB MR: remote access error,
        no response stream."""
        mr = self.t.mr
        return self.naked(lambda qp: dict(opcode=READ_REQ, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=reth(mr.buf, mr.rkey, 0x80000000)), SYN_NAK_ACC)

    def case_read_over_2g(self):
        """READ with a DMA length of 2^32 - 1, beyond the 2^31 message limit: invalid
        request."""
        mr = self.t.mr
        return self.naked(lambda qp: dict(opcode=READ_REQ, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=reth(mr.buf, mr.rkey, 0xffffffff)), SYN_NAK_INV)

    def case_zero_len_any_rkey(self):
        """Zero-length READ and WRITE with an R_Key and address that name nothing: no
        memory is touched, so no key is checked (IBTA 9.4.3.1, 9.4.4.1): an empty READ
        RESPONSE ONLY and an ACK, the QP alive."""
        qp = self.t.qp(nrecv=1)
        psn = qp.epsn
        self.w.send(READ_REQ, qp.qp_num, psn, reth(0x1234, 0xdead00, 0))
        self.w.send(WRITE_ONLY, qp.qp_num, psn + 1, reth(0x1234, 0xdead00, 0))
        seen = self.w.collect(0.5 * self.a.slow)
        qp.epsn += 2
        rr = [p for p in seen if p['opcode'] == READ_RESP_ONLY and p['psn'] == psn]
        ack = [p for p in seen if p['opcode'] == ACK and p['psn'] == psn + 1 and is_ack(p)]
        alive = self.probe(qp)
        ok = len(rr) == 1 and rr[0]['data'] == b'' and len(ack) == 1 and alive
        return ok, f'answers {fmt(seen)}, QP alive {alive}'

    def case_send_inv_user_mr(self):
        """SEND with Invalidate naming the R_Key of an MR registered by the user (not a
        fast-registration MR nor a type 2 window, IBTA 10.6.7.2.5): invalid request, and
        the MR keeps its key (a later WRITE with it is placed)."""
        mr = self.t.mr
        ok1, d1 = self.naked(lambda qp: dict(opcode=0x17, qpn=qp.qp_num, psn=qp.epsn,
                                             hdrs=struct.pack('>I', mr.rkey),
                                             payload=b'i' * 16), SYN_NAK_INV)
        qp = self.t.qp(nrecv=0)
        self.w.send(WRITE_ONLY, qp.qp_num, qp.epsn, reth(mr.buf, mr.rkey, 8), b'stillok!')
        p, seen = self.w.expect(lambda p: p['opcode'] == ACK, self.a.wait)
        qp.epsn += 1
        ok2 = p is not None and is_ack(p) and self.mem(ln=8) == b'stillok!'
        return ok1 and ok2, f'{d1}; WRITE with the key afterwards: {fmt(seen)}, ' \
            f'memory {self.mem(ln=8)!r}'

    def case_ip_fragments(self):
        """A WRITE ONLY of 1000 bytes sent as IPv4 fragments of at most 296 bytes (the
        receive path sees one reassembled datagram, a chain of skbs): ACKed, every byte
        placed."""
        qp = self.t.qp(nrecv=0)
        mr = self.t.mr
        self.fill()
        data = bytes(range(250)) * 4
        f = Ether(bytes(Ether(dst=self.w.maca, src=self.w.macb) /
                        IP(src=self.a.ipb, dst=self.a.ipa, ttl=64, flags=0) /
                        UDP(sport=0xc123, dport=4791, chksum=0) /
                        BTH(opcode=WRITE_ONLY, padcount=0, pkey=0xffff, dqpn=qp.qp_num,
                            ackreq=1, psn=qp.epsn) /
                        Raw(reth(mr.buf + 16, mr.rkey, len(data)) + data)))
        frags = fragment(f[IP], fragsize=296)
        for fr in frags:
            self.w.send_raw(bytes(Ether(dst=self.w.maca, src=self.w.macb) / fr))
        p, seen = self.w.expect(lambda p: p['opcode'] == ACK, self.a.wait)
        qp.epsn += 1
        placed = self.mem(ln=1032) == b'\x5a' * 16 + data + b'\x5a' * 16
        ok = p is not None and is_ack(p) and p['psn'] == qp.epsn - 1 and placed
        return ok, f'{len(frags)} fragments, answer {fmt(seen)}, ' \
            f'memory {"as sent" if placed else "WRONG"}'

    def case_nak_rem_op(self):
        """Requester side: a SEND answered with NAK remote operational error (0x63)
        completes with IBV_WC_REM_OP_ERR, once."""
        qp = self.t.qp(nrecv=0)
        self.w.drain()
        qp.qp.post_send(SendWR(wr_id=91, opcode=e.IBV_WR_SEND, num_sge=1,
                               sg=[SGE(self.t.rmr.buf, 64, self.t.rmr.lkey)]))
        req, seen = self.w.expect(lambda p: p['opcode'] == SEND_ONLY and p['psn'] == 5000,
                                  self.a.wait)
        if not req:
            return False, f'no SEND on the wire ({fmt(seen)})'
        self.w.send(ACK, qp.qp_num, 5000, struct.pack('>I', 0x63 << 24 | 1))
        st = [w.status for w in self.t.poll(1.0 * self.a.slow) if w.wr_id == 91]
        return st == [e.IBV_WC_REM_OP_ERR], \
            f'statuses {st} (want [{int(e.IBV_WC_REM_OP_ERR)}])'

    def case_write_longer_than_reth(self):
        mr = self.t.mr
        return self.naked(lambda qp: dict(opcode=WRITE_ONLY, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=reth(mr.buf, mr.rkey, 8), payload=b'X' * 16),
                          SYN_NAK_INV)

    def case_psn_ahead(self):
        """PSNs ahead of the expected one (IBTA 9.7.5.1.2): one NAK sequence error carrying
        the expected PSN for the gap, packets dropped, nothing delivered; then the expected
        PSN goes on normally."""
        qp = self.rc
        before = self.snap()
        for d in (1000, 1001):
            self.w.send(SEND_ONLY, qp.qp_num, qp.epsn + d, payload=b'ahead')
        seen = self.w.collect(0.5 * self.a.slow)
        wcs = self.t.poll(0.05)
        naks = [p for p in seen if p['opcode'] == ACK and p['syn'] == SYN_NAK_SEQ]
        alive = self.probe(qp)
        ok = (len(naks) == 1 and naks[0]['psn'] == qp.epsn - 1 and len(seen) == 1 and
              not wcs and self.counted(before, 'rcvd_out_of_seq', 2) and alive)
        return ok, f'answers {fmt(seen)} (want one NAK seq at {qp.epsn - 1}), ' \
                   f'{len(wcs)} completion(s), QP alive {alive}'

    def case_psn_far(self):
        """A PSN 2^23+10 away, i.e. behind in the 24-bit circle (IBTA 9.7.5.1: a
        duplicate): not executed, answered at most with an ACK, nothing delivered."""
        qp = self.rc
        self.fill()
        before = self.snap()
        psn = (qp.epsn + 0x800000 + 10) & 0xffffff
        self.w.send(SEND_ONLY, qp.qp_num, psn, payload=b'far away')
        self.w.send(WRITE_ONLY, qp.qp_num, psn + 1, reth(self.t.mr.buf, self.t.mr.rkey, 8),
                    b'farwrite')
        seen = self.w.collect(0.5 * self.a.slow)
        wcs = self.t.poll(0.05)
        alive = self.probe(qp)
        ok = (all(p['opcode'] == ACK and is_ack(p) for p in seen) and not wcs and
              self.mem(ln=MRSZ) == b'\x5a' * MRSZ and alive and
              self.counted(before, 'duplicate_request', 2))
        return ok, f'answers {fmt(seen)}, {len(wcs)} completion(s), QP alive {alive}'

    def case_pad_too_big(self):
        """Pad count 3 with 2 payload bytes: shorter than the pad."""
        qp = self.rc
        return self.dropped(((SEND_ONLY, qp.qp_num, qp.epsn), dict(data=b'ab', pad=3)),
                            'rcvd_bad_hdr')

    def case_pad_unaligned(self):
        """Pad count 0 with 5 payload bytes: payload plus pad not a multiple of 4."""
        qp = self.rc
        return self.dropped(((SEND_ONLY, qp.qp_num, qp.epsn), dict(data=b'abcde', pad=0)),
                            'rcvd_bad_hdr')

    def case_pad_no_payload(self):
        """READ request (no payload allowed) with a pad count and 4 extra bytes."""
        qp = self.rc
        mr = self.t.mr
        return self.dropped(((READ_REQ, qp.qp_num, qp.epsn),
                             dict(data=reth(mr.buf, mr.rkey, 8) + b'\0\0\0\0', pad=1)),
                            'rcvd_bad_hdr')

    def msg3(self, qp, psn, tag, parts=(0, 1, 2)):
        """Packets @parts of a 3-packet SEND (FIRST, MIDDLE: the path MTU each, LAST: 40
        bytes) at PSN @psn.., the bytes of packet i made of @tag + i; returns the message."""
        ops = (SEND_FIRST, SEND_MIDDLE, SEND_LAST)
        body = [bytes([tag + i]) * (MTU if i < 2 else 40) for i in range(3)]
        for i in parts:
            self.w.send(ops[i], qp.qp_num, psn + i, payload=body[i], ackreq=i == 2)
        return b''.join(body)

    def case_send_resume_rnr(self):
        """A 3-packet SEND whose FIRST finds no receive WQE: an RNR NAK at its PSN and
        nothing else (the MIDDLE and LAST behind it are dropped without a second NAK for
        the same PSN: rdma_rxe counts a sequence NAK against retry_cnt); the requester
        resends the whole message after the RNR delay: ACKed at the LAST, one completion
        with every byte (no invalid request NAK)."""
        qp = self.t.qp(nrecv=0)
        psn = qp.epsn
        before = self.snap()
        self.msg3(qp, psn, 0x41)
        seen = self.w.collect(0.5 * self.a.slow)
        rnr = [p for p in seen if p['opcode'] == ACK and p['syn'] & 0x60 == 0x20]
        wcs0 = self.t.poll(0.05)
        self.t.post_recv(qp, 8, 4096)
        wrid, off = qp.recvs.pop(0)
        msg = self.msg3(qp, psn, 0x41)
        p, seen2 = self.w.expect(lambda p: p['opcode'] == ACK and p['psn'] == psn + 2,
                                 self.a.wait)
        wcs = self.t.poll(0.2 * self.a.slow)
        qp.epsn += 3
        alive = self.probe(qp)
        ok = (len(rnr) == 1 and rnr[0]['psn'] == psn and len(seen) == 1 and not wcs0 and
              p is not None and is_ack(p) and len(wcs) == 1 and wcs[0].status == 0 and
              wcs[0].wr_id == wrid and wcs[0].byte_len == len(msg) and
              self.t.rmr.read(len(msg), off) == msg and
              self.counted(before, 'rnr_nak_sent') and alive)
        return ok, f'first answers {fmt(seen)} (want only an RNR NAK at {psn}), after the ' \
                   f'resend {fmt(seen2)}, completion ' + \
                   (f'status {wcs[0].status} {wcs[0].byte_len} bytes' if len(wcs) == 1
                    else f'count {len(wcs)}') + f', QP alive {alive}'

    def case_send_resume_mid(self):
        """Resumed in the middle (IBTA 9.7.5.1): a 3-packet SEND whose MIDDLE was lost
        gets a sequence NAK at the MIDDLE's PSN and is completed by MIDDLE + LAST resent;
        a second one has FIRST and MIDDLE repeated (duplicates, not placed again) before
        its LAST. Two completions, every byte right, no invalid request NAK."""
        qp = self.t.qp(nrecv=0)
        self.t.post_recv(qp, 8, 4096)
        self.t.post_recv(qp, 9, 4096)
        (w1, off1), (w2, off2) = qp.recvs[:2]
        psn = qp.epsn
        self.msg3(qp, psn, 0x61, parts=(0, 2))
        nak, seen = self.w.expect(lambda p: p['opcode'] == ACK, self.a.wait)
        m1 = self.msg3(qp, psn, 0x61, parts=(1, 2))
        a1, seen1 = self.w.expect(lambda p: p['opcode'] == ACK, self.a.wait)
        m2 = self.msg3(qp, psn + 3, 0x71, parts=(0, 1))
        self.msg3(qp, psn + 3, 0x71, parts=(0, 1, 2))
        a2, seen2 = self.w.expect(lambda p: p['opcode'] == ACK and p['psn'] == psn + 5,
                                  self.a.wait)
        wcs = self.t.poll(0.3 * self.a.slow)
        qp.epsn += 6
        alive = self.probe(qp)
        good = [w for w in wcs if w.status == 0]
        ok = (nak is not None and nak['syn'] == SYN_NAK_SEQ and nak['psn'] == psn + 1 and
              a1 is not None and is_ack(a1) and a1['psn'] == psn + 2 and
              a2 is not None and is_ack(a2) and len(wcs) == 2 and len(good) == 2 and
              [w.wr_id for w in wcs] == [w1, w2] and
              [w.byte_len for w in wcs] == [len(m1), len(m2)] and
              self.t.rmr.read(len(m1), off1) == m1 and self.t.rmr.read(len(m2), off2) == m2
              and alive)
        return ok, f'answers {fmt(seen)} / {fmt(seen1)} / {fmt(seen2)} (want NAK seq at ' \
                   f'{psn + 1}, ACK {psn + 2}, ACK {psn + 5}), completions ' \
                   f'{[(w.status, w.byte_len) for w in wcs]}, QP alive {alive}'

    def case_mid_not_full(self):
        """SEND FIRST with less than the path MTU of payload: invalid request NAK
        (IBTA 9.7.4.1.6 length check), nothing completed but the flushed receive."""
        return self.naked(lambda qp: dict(opcode=SEND_FIRST, qpn=qp.qp_num, psn=qp.epsn,
                                          payload=b'y' * 100), SYN_NAK_INV)

    def case_send_over_mtu(self):
        """SEND ONLY with 1100 bytes on a path MTU of 1024: invalid request NAK."""
        return self.naked(lambda qp: dict(opcode=SEND_ONLY, qpn=qp.qp_num, psn=qp.epsn,
                                          payload=b'm' * 1100), SYN_NAK_INV)

    def case_write_over_mtu(self):
        """WRITE ONLY with 1100 bytes (RETH says 1100) on a path MTU of 1024."""
        mr = self.t.mr
        return self.naked(lambda qp: dict(opcode=WRITE_ONLY, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=reth(mr.buf, mr.rkey, 1100),
                                          payload=b'm' * 1100), SYN_NAK_INV)

    def case_write_middle_unexpected(self):
        """WRITE MIDDLE with no WRITE in progress (opcode sequence, IBTA 9.7.4.1.4)."""
        return self.naked(lambda qp: dict(opcode=0x07, qpn=qp.qp_num, psn=qp.epsn,
                                          payload=b'm' * MTU), SYN_NAK_INV)

    def case_atomic_unaligned(self):
        """FETCH_ADD at an address that is not 8-byte aligned."""
        mr = self.t.mr
        return self.naked(lambda qp: dict(opcode=FETCH_ADD, qpn=qp.qp_num, psn=qp.epsn,
                                          hdrs=atmeth(mr.buf + 4, mr.rkey, 1)), SYN_NAK_INV)

    def case_wrong_transport(self):
        """UD and UC SENDs to the RC QP: dropped, rcvd_bad_hdr."""
        qp = self.rc
        r1 = self.dropped(((UD_SEND_ONLY, qp.qp_num, qp.epsn),
                           dict(hdrs=struct.pack('>II', 0x1111, 0x99), payload=b'u' * 8)),
                          'rcvd_bad_hdr')
        r2 = self.dropped(((UC | SEND_ONLY, qp.qp_num, qp.epsn), dict(payload=b'u' * 8)),
                          'rcvd_bad_hdr')
        return r1[0] and r2[0], f'UD SEND: {r1[1]} | UC SEND: {r2[1]}'

    def case_qp_not_ready(self):
        """A SEND to an RC QP still in INIT: dropped, rcvd_qp_state_err, no answer."""
        cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
        qp = QP(self.t.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.t.cq, rcq=self.t.cq,
                                      cap=cap))
        qa = QPAttr()
        qa.qp_access_flags = REMOTE
        qp.to_init(qa)
        q = TQP(qp, 0)
        self.t.post_recv(q, 0)
        before = self.snap()
        self.w.send(SEND_ONLY, qp.qp_num, 0, payload=b'too early')
        end = time.monotonic() + self.a.wait
        while time.monotonic() < end and not self.counted(before, 'rcvd_qp_state_err'):
            time.sleep(0.02)
        seen = self.w.collect(0.2)
        wcs = self.t.poll(0.05)
        ok = self.counted(before, 'rcvd_qp_state_err') and not seen and not wcs
        return ok, f'answers {fmt(seen)}, {len(wcs)} completion(s)'

    def case_read_resp_too_long(self):
        """Requester side: a READ of 16 bytes answered with 16 completes with the data; a
        second one answered with 32 bytes ends in IBV_WC_BAD_RESP_ERR and writes nothing."""
        qp = self.t.qp(nrecv=0)
        rmr, off = self.t.rmr, 20 * 1024
        rmr.write(b'\xee' * 64, 64, off)
        res = []
        for i, n in enumerate((16, 32)):
            wr = SendWR(wr_id=77 + i, opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                        sg=[SGE(rmr.buf + off + 32 * i, 16, rmr.lkey)])
            wr.set_wr_rdma(0x1234, 0x100000)
            self.w.drain()
            qp.qp.post_send(wr)
            # the READ of this round (loss probes resend earlier ones)
            req, seen = self.w.expect(lambda p: p['opcode'] == READ_REQ and
                                      p['psn'] == 5000 + i, self.a.wait)
            if not req:
                return False, f'READ {i}: no request on the wire ({fmt(seen)})'
            self.w.send(READ_RESP_ONLY, qp.qp_num, req['psn'], struct.pack('>I', 0x1f000000 | i + 1),
                        bytes([0x41 + i]) * n, ackreq=False)
            wcs = [w for w in self.t.poll(1.0 * self.a.slow) if w.wr_id == 77 + i]
            res.append(wcs[0].status if wcs else None)
        mem = rmr.read(64, off)
        ok = (res == [0, e.IBV_WC_BAD_RESP_ERR] and mem[:16] == b'A' * 16 and
              mem[16:] == b'\xee' * 48)
        return ok, f'statuses {res} (want [0, {int(e.IBV_WC_BAD_RESP_ERR)}]), buffer ' \
                   f'{"as expected" if ok else repr(mem)}'

    def case_uc_gap(self):
        """UC: FIRST, (MIDDLE lost), LAST: the message is dropped, no completion; the next
        SEND ONLY lands in the first receive WQE with its own data only."""
        uc = self.t.qp(e.IBV_QPT_UC, epsn=200)
        before = self.snap()
        self.w.send(UC | SEND_FIRST, uc.qp_num, 200, payload=b'A' * MTU)
        self.w.send(UC | SEND_LAST, uc.qp_num, 202, payload=b'C' * 16)
        self.w.send(UC | SEND_ONLY, uc.qp_num, 203, payload=b'uc next msg!')
        wcs = self.t.poll(1.0 * self.a.slow)
        seen = self.w.collect(0.05)
        wrid, off = uc.recvs[0]
        ok = (len(wcs) == 1 and wcs[0].status == 0 and wcs[0].wr_id == wrid and
              wcs[0].byte_len == 12 and self.t.rmr.read(12, off) == b'uc next msg!' and
              self.counted(before, 'uc_dropped_pkts') and not seen)
        return ok, f'completions {[(w.wr_id, w.status, w.byte_len) for w in wcs]} ' \
                   f'(want [({wrid}, 0, 12)]), answers {fmt(seen)}'

    def case_ud_qkey(self):
        """UD: a wrong Q_Key is dropped and counted, the right one is received."""
        ud = self.t.qp(e.IBV_QPT_UD)
        before = self.snap()
        deth = lambda qk: struct.pack('>II', qk, 0x99)
        self.w.send(UD_SEND_ONLY, ud.qp_num, 0, deth(0x2222), b'wrong qkey')
        self.w.send(UD_SEND_ONLY, ud.qp_num, 1, deth(0x1111), b'right qkey')
        wcs = self.t.poll(1.0 * self.a.slow)
        wrid, off = ud.recvs[0]
        ok = (len(wcs) == 1 and wcs[0].wr_id == wrid and wcs[0].byte_len == 50 and
              wcs[0].src_qp == 0x99 and self.t.rmr.read(10, off + 40) == b'right qkey' and
              self.counted(before, 'rcvd_qkey_err'))
        return ok, f'completions {[(w.wr_id, w.byte_len) for w in wcs]} (want [({wrid}, 50)])'

    def case_ud_short_buffer(self):
        """UD: a message larger than the receive buffer completes with a length error."""
        ud = self.t.qp(e.IBV_QPT_UD, nrecv=0)
        self.t.post_recv(ud, 0, 256)
        self.w.send(UD_SEND_ONLY, ud.qp_num, 0, struct.pack('>II', 0x1111, 0x99), b'z' * 300)
        wcs = self.t.poll(1.0 * self.a.slow)
        ok = len(wcs) == 1 and wcs[0].status == e.IBV_WC_LOC_LEN_ERR
        return ok, f'completions {[(w.wr_id, w.status) for w in wcs]} (want LOC_LEN_ERR)'

    def case_ack_to_responder(self):
        """ACKs and READ responses for PSNs the QP never sent: ignored, QP alive."""
        qp = self.rc
        self.w.send(ACK, qp.qp_num, 4999, struct.pack('>I', 0x1f000001))
        self.w.send(ATOMIC_ACK, qp.qp_num, 6000, struct.pack('>IQ', 0x1f000001, 7))
        self.w.send(READ_RESP_ONLY, qp.qp_num, 6001, struct.pack('>I', 0x1f000001), b'r' * 8)
        alive = self.probe(qp)
        wcs = self.t.poll(0.05)
        return alive and not wcs, f'QP alive {alive}, {len(wcs)} completion(s)'

    def case_wrong_source(self):
        """A SEND at the expected PSN of the RC QP (its peer: IPB) from another address of
        IPB's subnet: dropped, rcvd_wrong_source, no answer, nothing placed."""
        qp = self.rc
        other = str(ipaddress.ip_address(self.a.ipb) + 64)
        return self.dropped(((SEND_ONLY, qp.qp_num, qp.epsn),
                             dict(payload=b'not the peer', src=other)), 'rcvd_wrong_source')

    def case_xrc_srq_switch(self):
        """XRC target: SEND FIRST names XRC SRQ A, its SEND LAST names SRQ B of the same XRC
        domain (another PD, another CQ): NAK invalid request for the LAST; A's receive WQE
        completes in error on A's CQ; B's CQ gets nothing and B's buffer is untouched."""
        t = self.t
        tmp = tempfile.NamedTemporaryFile()
        fd = os.open(tmp.name, os.O_RDONLY | os.O_CREAT)
        qp = xrcd = None
        srqs, cqs = [], []
        try:
            xrcd = XRCD(t.ctx, XRCDInitAttr(e.IBV_XRCD_INIT_ATTR_FD |
                                             e.IBV_XRCD_INIT_ATTR_OFLAGS, os.O_CREAT, fd))
            for pd in (t.pd, t.pd2):
                cq = CQ(t.ctx, 8)
                sa = SrqInitAttrEx(max_wr=4, max_sge=1)
                sa.srq_type = e.IBV_SRQT_XRC
                sa.pd, sa.xrcd, sa.cq = pd, xrcd, cq
                sa.comp_mask = (e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD |
                                e.IBV_SRQ_INIT_ATTR_CQ | e.IBV_SRQ_INIT_ATTR_XRCD)
                srqs.append(SRQ(t.ctx, sa))
                cqs.append(cq)
            t.rmr.write(b'\xee' * SLOT, SLOT, 0)
            srqs[0].post_recv(RecvWR(wr_id=0xa, num_sge=1,
                                     sg=[SGE(t.rmr.buf, SLOT, t.rmr.lkey)]))
            self.fill(t.mr2)
            srqs[1].post_recv(RecvWR(wr_id=0xb, num_sge=1,
                                     sg=[SGE(t.mr2.buf, MRSZ, t.mr2.lkey)]))
            qp = QP(t.ctx, QPInitAttrEx(qp_type=e.IBV_QPT_XRC_RECV,
                                        comp_mask=e.IBV_QP_INIT_ATTR_XRCD, xrcd=xrcd),
                    QPAttr(port_num=1))
            qa = QPAttr()
            qa.path_mtu, qa.dest_qp_num, qa.rq_psn = e.IBV_MTU_1024, PEER_QPN, 300
            qa.max_dest_rd_atomic, qa.min_rnr_timer = 4, 1
            qa.ah_attr = AHAttr(gr=t.gr, is_global=1, port_num=1)
            qp.to_rtr(qa)
            na, nb = (srq.get_srq_num() for srq in srqs)
            self.w.send(XRC_SEND_FIRST, qp.qp_num, 300, struct.pack('>I', na), b'A' * MTU)
            self.w.send(XRC_SEND_LAST, qp.qp_num, 301, struct.pack('>I', nb), b'B' * 100)
            p, seen = self.w.expect(lambda p: p['opcode'] == XRC_ACK and p['psn'] == 301 and
                                    not is_ack(p), self.a.wait)
            time.sleep(0.2 * self.a.slow)
            wa, wb = (self.cq_all(cq) for cq in cqs)
            untouched = self.mem(t.mr2, ln=MRSZ) == b'\x5a' * MRSZ
            ok = (p is not None and p['syn'] == SYN_NAK_INV and not wb and untouched and
                  len(wa) == 1 and wa[0].wr_id == 0xa and
                  wa[0].status == e.IBV_WC_REM_INV_REQ_ERR)
            return ok, (f'answers {fmt(seen)}; SRQ A completions '
                        f'{[(w.wr_id, w.status) for w in wa]}, SRQ B completions '
                        f'{[(w.wr_id, w.status) for w in wb]}, B\'s buffer '
                        f'{"untouched" if untouched else "WRITTEN"}')
        finally:
            for o in [qp, *srqs, *cqs, xrcd]:
                if o is not None:
                    o.close()
            os.close(fd)
            tmp.close()

    @staticmethod
    def cq_all(cq):
        n, wcs = cq.poll(8)
        return list(wcs[:n])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dev', default='sibw')
    ap.add_argument('--ifa', default='wirea')
    ap.add_argument('--ifb', default='wireb')
    ap.add_argument('--ipa', default='10.77.0.1')
    ap.add_argument('--ipb', default='10.77.0.2')
    ap.add_argument('--gid-index', default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), '..', 'tools', 'roce-gid-index'))
    ap.add_argument('--wait', type=float, default=5.0, help='seconds to wait for an answer')
    ap.add_argument('--slow', type=float, default=1.0, help='factor for quiet periods')
    ap.add_argument('--results')
    ap.add_argument('--list', action='store_true', help='print the case names and exit')
    ap.add_argument('only', nargs='*')
    args = ap.parse_args()
    if args.list:
        print('\n'.join(CASES))
        return 0
    return Cases(args).run(args.only)


if __name__ == '__main__':
    sys.exit(main())
