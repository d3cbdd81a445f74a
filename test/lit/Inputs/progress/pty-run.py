"""pty-run.py [--signal-after=SECONDS] -- COMMAND...

Runs COMMAND with its stderr on a pseudo-terminal (200 columns; stdout and
stdin stay as they are) and prints what reached the terminal: first the raw
transcript, each "\\r" starting a line of its own marked <CR>, erase-to-end-
of-line shown as <EL>; then the screen those bytes leave, one "screen: " line
per terminal line; then "exit: N" (or "signal: N").  --signal-after sends
SIGTERM to COMMAND after that many seconds."""
import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading

args = sys.argv[1:]
signal_after = None
while args and args[0] != "--":
    opt = args.pop(0)
    if opt.startswith("--signal-after="):
        signal_after = float(opt.split("=", 1)[1])
    else:
        sys.exit("pty-run.py: unknown option " + opt)
command = args[1:]

master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 200, 0, 0))
# No output processing: the bytes the program writes are the bytes we read.
attrs = termios.tcgetattr(slave)
attrs[1] &= ~termios.OPOST
termios.tcsetattr(slave, termios.TCSANOW, attrs)

proc = subprocess.Popen(command, stderr=slave)
os.close(slave)
if signal_after is not None:
    timer = threading.Timer(signal_after, proc.send_signal, (signal.SIGTERM,))
    timer.start()

data = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:   # EIO: every writer closed the terminal
        break
    if not chunk:
        break
    data += chunk
status = proc.wait()
if signal_after is not None:
    timer.cancel()

text = data.decode("utf-8", "replace")
print(text.replace("\x1b[K", "<EL>").replace("\r", "\n<CR>"))

# The screen: "\r" goes to column 0, ESC[K erases from the cursor on.
lines, cursor = [""], 0
i = 0
while i < len(text):
    if text.startswith("\x1b[K", i):
        lines[-1] = lines[-1][:cursor]
        i += 3
        continue
    c = text[i]
    if c == "\r":
        cursor = 0
    elif c == "\n":
        lines.append("")
        cursor = 0
    else:
        line = lines[-1].ljust(cursor)
        lines[-1] = line[:cursor] + c + line[cursor + 1:]
        cursor += 1
    i += 1
for line in lines:
    print("screen: " + line)
print("signal: %d" % -status if status < 0 else "exit: %d" % status)
