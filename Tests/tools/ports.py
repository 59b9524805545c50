"""TCP ports for the servers a Python suite starts, handed out in turn below the kernel's ephemeral range (32768 and up
on Linux). A port the kernel gave out for a moment (bind to port 0) can be taken by any outgoing connection on the
machine before the server binds it — the Swift tests beside a suite make thousands — and the server or SMTP sink then
fails to start. The Swift tests take 20000–31999; these take 16000–19999."""
import random
import socket

_LOW, _HIGH = 16_000, 20_000
_next = random.randrange(_LOW, _HIGH)


def free_port() -> int:
    """A port nobody listens on right now, one this process has not handed out lately."""
    global _next
    for _ in range(_HIGH - _LOW):
        port, _next = _next, _LOW if _next + 1 >= _HIGH else _next + 1
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free TCP port between {_LOW} and {_HIGH}")
