#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Regenerate the ICRC vectors embedded in kernel/icrc_test.c.

IPv4 packets are built and their ICRC computed by scapy's RoCE layer
(scapy.contrib.roce, an implementation independent of softib). scapy has
no IPv6 ICRC, so IPv6 vectors use the small reference below (IBTA annex
A17.3.3: 8 bytes of ones for the LRH, IPv6 traffic class, flow label and
hop limit set to ones, UDP checksum ones, BTH resv8a ones); that
reference is first checked against scapy on every IPv4 vector.
Run: /usr/bin/python3 tests/gen-icrc-vectors.py
"""
import struct
import zlib

from scapy.all import IP, IPv6, UDP, Raw, raw
from scapy.contrib.roce import BTH


def ref_icrc(pkt):
    """ICRC of raw IPv4/IPv6 packet bytes (ICRC slot at the end)."""
    b = bytearray(pkt[:-4])
    if b[0] >> 4 == 4:
        ihl = (b[0] & 0xf) * 4
        b[1] = 0xff            # TOS
        b[8] = 0xff            # TTL
        b[10:12] = b'\xff\xff'  # header checksum
        udp = ihl
    else:
        b[0] |= 0x0f           # traffic class high nibble
        b[1] = 0xff            # traffic class low nibble + flow label
        b[2:4] = b'\xff\xff'   # flow label
        b[7] = 0xff            # hop limit
        udp = 40
    b[udp + 6:udp + 8] = b'\xff\xff'   # UDP checksum
    b[udp + 8 + 4] = 0xff               # BTH resv8a
    return zlib.crc32(b'\xff' * 8 + bytes(b)) & 0xffffffff


def vec(name, pkt, use_scapy):
    r = raw(pkt)
    wire = r[-4:]
    if use_scapy:
        assert struct.unpack('<I', wire)[0] == ref_icrc(r), name
    else:
        r = r[:-4] + struct.pack('<I', ref_icrc(r))
    print('/* %s */' % name)
    print('static const u8 sib_vec_%s[] = {' % name)
    for i in range(0, len(r), 12):
        print('\t' + ' '.join('0x%02x,' % x for x in r[i:i + 12]))
    print('};')
    print()


pay16 = bytes(range(16))
# RC SEND_ONLY, AckReq, 16 bytes payload; non-trivial TTL/TOS/checksum/UDP csum
vec('v4_send', IP(src='10.0.2.15', dst='10.0.2.16', ttl=64, tos=0x02, id=0x1234,
                  flags='DF') /
    UDP(sport=0xc0de, dport=4791, chksum=0) /
    BTH(opcode=0x04, pkey=0xffff, dqpn=0x000011, ackreq=1, psn=0x000005) /
    Raw(pay16), True)
# RC ACKNOWLEDGE with AETH (ACK, credit 0x1f), MSN 0x010203
vec('v4_ack', IP(src='192.168.1.1', dst='192.168.1.2', ttl=255, tos=0xb8, id=7) /
    UDP(sport=0xe000, dport=4791, chksum=0) /
    BTH(opcode=0x11, pkey=0x8001, dqpn=0xabcdef, psn=0xfffffe) /
    Raw(bytes([0x1f, 0x01, 0x02, 0x03])), True)
# RC RDMA_WRITE_ONLY with RETH, SE, pad 2, payload 6 bytes + 2 pad
reth = struct.pack('>QII', 0x00007f0012345678, 0x1234abcd, 6)
vec('v4_write', IP(src='10.1.2.3', dst='10.3.2.1', ttl=1, tos=0, id=0xffff) /
    UDP(sport=0xc001, dport=4791, chksum=0) /
    BTH(opcode=0x0a, solicited=1, padcount=2, pkey=0xffff, dqpn=0x000123,
        ackreq=1, psn=0x7fffff) /
    Raw(reth + b'abcdef\0\0'), True)
# UD SEND_ONLY over IPv6 with DETH (Q_Key 0x11111111, SrcQP 0x000012)
deth = struct.pack('>II', 0x11111111, 0x000012)
vec('v6_ud', IPv6(src='fec0::15', dst='fec0::16', tc=0x28, fl=0x12345, hlim=64) /
    UDP(sport=0xd00d, dport=4791, chksum=0) /
    BTH(opcode=0x64, pkey=0xffff, dqpn=0x000001, psn=0x000100) /
    Raw(deth + pay16), False)
# RC SEND_ONLY_WITH_IMMEDIATE over IPv6, ImmDt 0xdeadbeef, 8 bytes payload
vec('v6_imm', IPv6(src='2001:db8::1', dst='2001:db8::2', tc=0, fl=0, hlim=255) /
    UDP(sport=0xc0c0, dport=4791, chksum=0) /
    BTH(opcode=0x05, pkey=0xffff, dqpn=0x000042, ackreq=1, psn=0x000000) /
    Raw(struct.pack('>I', 0xdeadbeef) + b'softib!\n'), False)
