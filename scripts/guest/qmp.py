# SPDX-License-Identifier: GPL-2.0
"""A small QMP client (QEMU Machine Protocol over a unix socket)."""
import json
import socket
import time


class QMPError(Exception):
    pass


class QMP:
    def __init__(self, path, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise QMPError("cannot connect to QMP at " + path)
                time.sleep(0.1)
        self.sock.settimeout(timeout)
        self.buf = b""
        self.events = []
        self._read()  # greeting
        self.cmd("qmp_capabilities")

    def _read(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise QMPError("QMP connection closed")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line)

    def cmd(self, execute, **arguments):
        """Run a command; return its "return" value or raise QMPError."""
        msg = {"execute": execute}
        if arguments:
            msg["arguments"] = arguments
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self._read()
            if "event" in reply:
                self.events.append(reply)
                continue
            if "error" in reply:
                raise QMPError("%s: %s" % (execute, reply["error"]))
            return reply.get("return")

    def close(self):
        self.sock.close()
