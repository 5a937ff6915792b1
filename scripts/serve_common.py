"""What the scripts that measure `loaz serve` share: a server on a free
loopback port for the length of a `with` block. Standard library only."""

import contextlib
import subprocess


@contextlib.contextmanager
def running_server(loaz, *options):
    """Starts `loaz serve --port 0 OPTIONS...`; yields its port; stops it."""
    server = subprocess.Popen([loaz, "serve", "--port", "0", *options], stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()  # "loaz serve: http://127.0.0.1:PORT/ ..."
        yield int(line.split("http://127.0.0.1:")[1].split("/")[0])
    finally:
        server.terminate()
        server.wait(timeout=10)
