"""Drives `mcp-gen-ui init` under a real pseudo-terminal, answering its prompts like a person.

Usage: init_pty.py BIN DIR SERVER_COMMAND
Exits 0 when every prompt appeared and init succeeded; prints the transcript either way.
"""
import os
import pty
import select
import sys
import time

BIN, DIR, SERVER = sys.argv[1], sys.argv[2], sys.argv[3]
transcript = b""
seen = 0  # where the search for the next prompt starts


def read_until(fd, needle, timeout=30.0):
    global transcript, seen
    end = time.time() + timeout
    while time.time() < end:
        at = transcript.find(needle.encode(), seen)
        if at >= 0:
            seen = at + len(needle)
            return True
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            transcript += chunk
    return False


pid, fd = pty.fork()
if pid == 0:
    os.chdir(DIR)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["TERM"] = "xterm"
    os.execve(BIN, [BIN, "init"], env)

steps = [
    ("MCP server", SERVER + "\r"),
    ("Found", None),
    ("Generator", "\r"),          # the default: builtin
    ("Output directory", "\r"),   # the default: ui
    ("pre-commit hook", "n"),
    ("Wrote", None),
]
ok = True
for needle, answer in steps:
    if not read_until(fd, needle):
        print(f"prompt not seen: {needle!r}")
        ok = False
        break
    if answer is not None:
        time.sleep(0.2)
        os.write(fd, answer.encode())
read_until(fd, "Next:", 10)
_, status = os.waitpid(pid, 0)
sys.stdout.write(transcript.decode(errors="replace"))
code = os.waitstatus_to_exitcode(status)
print(f"\n[exit {code}]")
sys.exit(0 if ok and code == 0 else 1)
