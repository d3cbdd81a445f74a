#!/usr/bin/env python3
"""free-port.py: print a TCP port on 127.0.0.1 that nothing listens on now."""
import socket

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])
