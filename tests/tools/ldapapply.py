#!/usr/bin/python3
"""ldapapply: send protocolOps given as hex to a server, for tests.

Reads lines "write KIND conn=C op=O HEX" (tests/tools/auditmatch's output;
other lines are ignored) from stdin, binds (simple) as BINDDN with the
password in PWFILE, sends each HEX as the protocolOp of an LDAPMessage with
the next message id, one at a time, and checks that the response's
resultCode is 0.  The bytes are sent as they are: what ldb_audit_encode
made is what the server decodes.

Usage: /usr/bin/python3 tests/tools/ldapapply.py HOST PORT BINDDN PWFILE < LINES
Exit: 0 every operation succeeded (prints "applied N"), 1 a result other
than 0 (its line names the operation, the code and the server's message),
2 usage.  HOST must be 127.0.0.1: the tests never send elsewhere.
"""
import socket
import sys


def tlv(tag, content):
    n = len(content)
    if n < 128:
        head = bytes([tag, n])
    else:
        b = n.to_bytes((n.bit_length() + 7) // 8, "big")
        head = bytes([tag, 0x80 | len(b)]) + b
    return head + content


def integer(v):
    return tlv(0x02, v.to_bytes((v.bit_length() + 8) // 8, "big"))


def read_tlv(data, i):
    tag = data[i]
    n = data[i + 1]
    i += 2
    if n & 0x80:
        k = n & 0x7F
        n = int.from_bytes(data[i:i + k], "big")
        i += k
    return tag, data[i:i + n], i + n


def recv_message(sock):
    buf = b""
    while True:
        if len(buf) >= 2:
            n = buf[1]
            head = 2 + (n & 0x7F if n & 0x80 else 0)
            if len(buf) >= head:
                total = head + (int.from_bytes(buf[2:head], "big") if n & 0x80 else n)
                if len(buf) >= total:
                    return buf[:total]
        chunk = sock.recv(65536)
        if not chunk:
            sys.exit("ldapapply: the server closed the connection")
        buf += chunk


def result_of(msg):
    """(protocolOp tag, resultCode, diagnosticMessage) of an LDAPResult."""
    _, body, _ = read_tlv(msg, 0)
    _, _, i = read_tlv(body, 0)  # messageID
    tag, op, _ = read_tlv(body, i)
    _, code, j = read_tlv(op, 0)
    _, _, j = read_tlv(op, j)  # matchedDN
    _, diag, _ = read_tlv(op, j)
    return tag, int.from_bytes(code, "big"), diag.decode("utf-8", "replace")


def main():
    if len(sys.argv) != 5 or sys.argv[1] != "127.0.0.1":
        sys.stderr.write(__doc__)
        return 2
    host, port, dn, pwfile = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    with open(pwfile, "rb") as f:
        pw = f.read().strip()
    sock = socket.create_connection((host, port))
    bind = tlv(0x60, integer(3) + tlv(0x04, dn.encode()) + tlv(0x80, pw))
    sock.sendall(tlv(0x30, integer(1) + bind))
    _, code, diag = result_of(recv_message(sock))
    if code != 0:
        print("ldapapply: bind as %s: result %d %s" % (dn, code, diag))
        return 1
    msgid, applied = 1, 0
    for line in sys.stdin:
        words = line.split()
        if len(words) != 5 or words[0] != "write":
            continue
        msgid += 1
        sock.sendall(tlv(0x30, integer(msgid) + bytes.fromhex(words[4])))
        _, code, diag = result_of(recv_message(sock))
        if code != 0:
            print("ldapapply: %s %s %s: result %d %s" % tuple(words[1:4] + [code, diag]))
            return 1
        applied += 1
    sock.sendall(tlv(0x30, integer(msgid + 1) + bytes([0x42, 0])))
    sock.close()
    print("applied %d" % applied)
    return 0


if __name__ == "__main__":
    sys.exit(main())
