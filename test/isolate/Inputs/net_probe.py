#!/usr/bin/env python3
"""net_probe.py KS_ISOLATE -- listen on 127.0.0.1, run a client under ks-isolate
that tries to connect (TCP) and to send a UDP datagram, then say whether
anything arrived. No timing: the client has exited before we look."""
import socket, subprocess, sys

srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
srv.setblocking(False)
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind(("127.0.0.1", 0))
udp.setblocking(False)
client = (
    "import socket,sys\n"
    "for kind, fam, typ, addr in [('tcp', socket.AF_INET, socket.SOCK_STREAM, ('127.0.0.1', %d)),\n"
    "                              ('udp', socket.AF_INET, socket.SOCK_DGRAM, ('127.0.0.1', %d))]:\n"
    "    try:\n"
    "        s = socket.socket(fam, typ)\n"
    "        s.connect(addr) if kind == 'tcp' else s.sendto(b'x', addr)\n"
    "        print(kind, 'client: sent')\n"
    "    except OSError as e:\n"
    "        print(kind, 'client: refused:', e.strerror)\n"
) % (srv.getsockname()[1], udp.getsockname()[1])
argv = sys.argv[1:] + [sys.executable, "-c", client]
out = subprocess.run(argv, capture_output=True, text=True)
sys.stdout.write(out.stdout)
try:
    srv.accept()
    print("tcp server: connection arrived")
except BlockingIOError:
    print("tcp server: nothing arrived")
try:
    udp.recvfrom(16)
    print("udp server: datagram arrived")
except BlockingIOError:
    print("udp server: nothing arrived")
