#!/usr/bin/env python3
"""with-jobserver.py TOKENS COMMAND...: run COMMAND as make -jN runs a recipe,
with a jobserver pipe holding TOKENS tokens (the recipe's own implicit token
comes on top), then check that every token came back."""
import fcntl
import os
import subprocess
import sys

tokens = int(sys.argv[1])
read_fd, write_fd = os.pipe()
os.write(write_fd, b"+" * tokens)
env = dict(os.environ)
env["MAKEFLAGS"] = " -j%d --jobserver-auth=%d,%d" % (tokens + 1, read_fd, write_fd)
status = subprocess.call(sys.argv[2:], env=env, pass_fds=(read_fd, write_fd))
fcntl.fcntl(read_fd, fcntl.F_SETFL, os.O_NONBLOCK)
try:
    returned = len(os.read(read_fd, 4096))
except BlockingIOError:
    returned = 0
if returned != tokens:
    print("with-jobserver: %d of %d tokens came back" % (returned, tokens))
    sys.exit(1)
sys.exit(status)
