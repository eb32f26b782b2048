#!/usr/bin/python3
# cc-capture.py IFACE FILE COUNT SECONDS [OPCODE]: write up to COUNT RoCEv2 frames (UDP
# destination port 4791, over IPv4 or IPv6; with OPCODE only those whose BTH opcode is OPCODE) seen on IFACE
# within SECONDS into the pcap FILE, through an AF_PACKET socket (tests/vm/cc.sh).
import socket
import struct
import sys
import time

iface, path, count, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
want = int(sys.argv[5], 0) if len(sys.argv) > 5 else None
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
s.bind((iface, 0))
s.settimeout(0.5)
end = time.time() + secs
n = 0
with open(path, 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    while n < count and time.time() < end:
        try:
            frame = s.recv(65535)
        except socket.timeout:
            continue
        if len(frame) < 14 + 20 + 8 + 12:
            continue
        if frame[12:14] == b'\x08\x00':       # IPv4
            if frame[23] != 17:
                continue
            udp = 14 + (frame[14] & 0xf) * 4
        elif frame[12:14] == b'\x86\xdd':     # IPv6, no extension headers
            if frame[20] != 17:
                continue
            udp = 14 + 40
            if len(frame) < udp + 8 + 12:
                continue
        else:
            continue
        if struct.unpack('>H', frame[udp + 2:udp + 4])[0] != 4791:
            continue
        if want is not None and frame[udp + 8] != want:
            continue
        t = time.time()
        f.write(struct.pack('<IIII', int(t), int((t % 1) * 1e6), len(frame), len(frame)) + frame)
        f.flush()
        n += 1
print('%s: %d frames' % (iface, n))
