#!/usr/bin/env python3
"""silent-server.py PORT: accept TCP connections on 127.0.0.1:PORT and never
send a byte, until killed: a remote store that hangs."""
import socket
import sys

server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", int(sys.argv[1])))
server.listen(16)
held = []
while True:
    connection, _ = server.accept()
    held.append(connection)
