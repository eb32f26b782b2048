#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Print the native InfiniBand packet vectors embedded in kernel/lrh_test.c.

A reference written from the IBTA text, independent of kernel/lrh.c and
kernel/icrc.c (no table, no shared code):
- ICRC (IBTA 7.8.1): CRC32 (zlib's: seed all ones, reflected, inverted)
  over LRH..payload with the variant fields set to ones: the LRH's VL
  nibble, the GRH's traffic class, flow label and hop limit, the BTH's
  resv8a byte; written least significant byte first.
- VCRC (IBTA 7.8.2): CRC-16, polynomial 0x100B, register seeded with ones,
  bits least significant first (computed bit by bit here), result
  inverted; over LRH..ICRC; written least significant byte first.
Run: /usr/bin/python3 tests/gen-lrh-vectors.py
"""
import struct
import zlib


def vcrc(data):
    """bit-by-bit CRC-16/0x100B, reflected, seed and xorout 0xffff"""
    crc = 0xffff
    for byte in data:
        for i in range(8):
            bit = (byte >> i) & 1
            top = crc & 1
            crc >>= 1
            if top ^ bit:
                crc ^= 0xd008      # 0x100B bit-reversed
    return crc ^ 0xffff


def lrh(vl, sl, lnh, dlid, slid, words, lver=0):
    return struct.pack('>BBHHH', (vl << 4) | lver, (sl << 4) | lnh, dlid,
                       words & 0x7ff, slid)


def grh(tclass, flow, paylen, hop, sgid, dgid):
    return struct.pack('>IHBB', (6 << 28) | (tclass << 20) | flow, paylen,
                       0x1b, hop) + sgid + dgid


def bth(opcode, pad, pkey, dqpn, psn, se=0, ackreq=0, resv8a=0):
    return struct.pack('>BBHII', opcode, (se << 7) | (pad << 4), pkey,
                       (resv8a << 24) | dqpn, (ackreq << 31) | psn)


def icrc(pkt_no_icrc):
    b = bytearray(pkt_no_icrc)
    b[0] |= 0xf0                         # VL
    off = 8
    if b[1] & 3 == 3:
        b[8] |= 0x0f                     # traffic class, high nibble
        b[9] = 0xff                      # traffic class low, flow label
        b[10:12] = b'\xff\xff'           # flow label
        b[15] = 0xff                     # hop limit
        off += 40
    b[off + 4] = 0xff                    # BTH resv8a
    return zlib.crc32(bytes(b)) & 0xffffffff


def packet(hdrs_after_lrh, rest, vl, sl, lnh, dlid, slid):
    body = hdrs_after_lrh + rest
    words = (8 + len(body) + 4) // 4
    assert (8 + len(body)) % 4 == 0
    p = lrh(vl, sl, lnh, dlid, slid, words) + body
    p += struct.pack('<I', icrc(p))
    p += struct.pack('<H', vcrc(p))
    return p


def show(name, p):
    print('/* %s */' % name)
    print('static const u8 sib_lrh_vec_%s[] = {' % name)
    for i in range(0, len(p), 12):
        print('\t' + ' '.join('0x%02x,' % x for x in p[i:i + 12]))
    print('};')
    print()


# the CRC-16 catalogue's check string, for the bare function
print('/* sib_vcrc("123456789") */')
print('#define SIB_LRH_VCRC_CHECK 0x%04x' % vcrc(b'123456789'))
print()
pay16 = bytes(range(16))
# RC SEND_ONLY, LRH only: VL 0, SL 3, DLID 2, SLID 1, AckReq, resv8a set
show('rc_send', packet(bth(0x04, 0, 0xffff, 0x000011, 0x000005, ackreq=1,
                           resv8a=0x80), pay16, 0, 3, 2, 0x0002, 0x0001))
# UD SEND_ONLY to a multicast LID with a GRH, DETH, pad 2, VL 2, SL 5
sgid = bytes.fromhex('fe800000000000000002c90300002001')
dgid = bytes.fromhex('ff12401bffff000000000000ffffffff')
deth = struct.pack('>II', 0x0000001b, 0x000048)
body = deth + b'abcdefghij\0\0'
show('ud_mcast', packet(grh(0x28, 0x12345, 12 + len(body) + 4, 64, sgid, dgid) +
                        bth(0x64, 2, 0x8001, 0xffffff, 0x000100),
                        body, 2, 5, 3, 0xc001, 0x0007))
# an SMP on VL15: permissive DLID and SLID, QP0, DETH (Q_Key 0, QP0),
# the first 24 bytes of a directed-route SubnGet(NodeInfo)
smp = bytes.fromhex('018101030000000012345678' '9abcdef000110000' '00000000')
show('smp', packet(bth(0x64, 0, 0xffff, 0x000000, 0x000000) +
                   struct.pack('>II', 0, 0), smp, 15, 0, 2, 0xffff, 0xffff))
