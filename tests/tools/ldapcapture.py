#!/usr/bin/python3
"""ldapcapture: an LDAP capture proxy for tests (what ldbench really sent).

Listens on 127.0.0.1, forwards every connection byte for byte to the real
server, and writes one JSON line per *request* (client to server) it decodes,
in the order the proxy read them.  Responses are forwarded untouched and not
recorded.  Decoding uses the RFC 4511 ASN.1 types of python3-ldap3 (pyasn1).

Usage:
  /usr/bin/python3 tests/tools/ldapcapture.py --upstream HOST:PORT --out FILE
        [--port-file FILE] [--port N]
  --upstream   the real server (127.0.0.1 only: the tests never send elsewhere)
  --out        the JSON lines file (appended to, flushed after each line)
  --port-file  written with the listening port once it listens
  --port       the port to listen on (default 0: a free one)
  --entries    also record each search result entry the server sent back:
               {"conn", "msgid", "op": "searchResEntry", "dn"}, in the order
               the proxy read them (how a client received them)
Stops on SIGTERM/SIGINT: stops accepting, lets the open connections finish
(up to 5 s: a client's last request, an unbind, is then on file), exits.
Every request is written before it is forwarded, so a request the server
answered is on file by the time the client has its answer.  Use it from bash through tests/fixture/ldapcapture.sh.

Each line is one JSON object.  Keys present on every line:
  conn      the connection's number, 1, 2, ... in the order accepted
  msgid     the messageID
  op        the protocolOp's name as RFC 4511 spells it: bindRequest,
            unbindRequest, searchRequest, modifyRequest, addRequest,
            delRequest, modDNRequest, compareRequest, abandonRequest,
            extendedReq (or "undecodable" with "hex": the frame, on a
            decoding error)
  controls  a list of {"oid", "critical" (bool), "value" (base64 or null)}
Keys by op (strings are UTF-8; byte values that are not UTF-8 are given with
Python's backslashreplace):
  bindRequest     version, dn, auth ("simple" or "sasl"), password (simple),
                  mech and credentials (base64 or null) (sasl)
  searchRequest   base, scope (0 base, 1 one, 2 sub, 3 children), deref,
                  sizelimit, timelimit, typesonly, filter (RFC 4515 string,
                  values escaped as RFC 4515 requires), attributes (list)
  modifyRequest   dn, changes: list of {"op": "add"|"delete"|"replace"|
                  "increment", "type", "values": [..]}
  addRequest      dn, attributes: list of {"type", "values": [..]}
  delRequest      dn
  modDNRequest    dn, newrdn, deleteoldrdn (bool), newsuperior (or null)
  compareRequest  dn, type, value
  abandonRequest  abandon (the messageID abandoned)
  extendedReq     name (the OID), value (base64 or null)
This interface is stable: tests read these keys.  Add keys, never rename.
"""

import argparse
import base64
import json
import os
import select
import signal
import socket
import sys
import threading

from pyasn1.codec.ber import decoder
from ldap3.protocol.rfc4511 import LDAPMessage

LOCK = threading.Lock()
OUT = None
ACTIVE = 0  # connections being served
STOP = threading.Event()
ENTRIES = False  # --entries: the server's search result entries recorded too
SCOPES = {0: 0, 1: 1, 2: 2, 3: 3}
MODOPS = {0: "add", 1: "delete", 2: "replace", 3: "increment"}


def text(v):
    return bytes(v).decode("utf-8", "backslashreplace")


def b64(v):
    if v is None or not v.hasValue():
        return None
    return base64.b64encode(bytes(v)).decode("ascii")


def escape(v):
    out = []
    for ch in bytes(v):
        if ch in b"*()\\" or ch == 0 or ch > 0x7E:
            out.append("\\%02x" % ch)
        else:
            out.append(chr(ch))
    return "".join(out)


def tlv(buf, i):
    """(tag, value start, value end) of the BER element at buf[i]."""
    tag = buf[i]
    n = buf[i + 1]
    j = i + 2
    if n >= 0x80:
        k = n & 0x7F
        n = int.from_bytes(buf[j:j + k], "big")
        j += k
    return tag, j, j + n


def children(buf, start, end):
    i = start
    while i < end:
        t, s, e = tlv(buf, i)
        yield t, s, e, i
        i = e


def filter_at(buf, i):
    """The RFC 4515 string of the BER Filter at buf[i] (the ASN.1 types
    shipped with ldap3 do not decode nested filters, so this walks the BER)."""
    t, s, e = tlv(buf, i)
    kind = t & 0x1F
    if kind in (0, 1):  # and, or
        return "(" + "&|"[kind] + "".join(filter_at(buf, c[3]) for c in children(buf, s, e)) + ")"
    if kind == 2:  # not
        return "(!" + filter_at(buf, s) + ")"
    if kind == 7:  # present
        return "(" + text(buf[s:e]) + "=*)"
    parts = list(children(buf, s, e))
    if kind in (3, 5, 6, 8):  # equality, >=, <=, ~=
        op = {3: "=", 5: ">=", 6: "<=", 8: "~="}[kind]
        return "(" + text(buf[parts[0][1]:parts[0][2]]) + op + escape(buf[parts[1][1]:parts[1][2]]) + ")"
    if kind == 4:  # substrings
        init = fin = ""
        anys = []
        for st, ss, se, _ in children(buf, parts[1][1], parts[1][2]):
            v = escape(buf[ss:se])
            if st & 0x1F == 0:
                init = v
            elif st & 0x1F == 1:
                anys.append(v)
            else:
                fin = v
        return "(" + text(buf[parts[0][1]:parts[0][2]]) + "=" + init + "*" + "".join(a + "*" for a in anys) + fin + ")"
    if kind == 9:  # extensible
        rule = typ = val = ""
        dn = False
        for st, ss, se, _ in parts:
            k = st & 0x1F
            if k == 1:
                rule = ":" + text(buf[ss:se])
            elif k == 2:
                typ = text(buf[ss:se])
            elif k == 3:
                val = escape(buf[ss:se])
            elif k == 4:
                dn = buf[ss] != 0
        return "(" + typ + (":dn" if dn else "") + rule + ":=" + val + ")"
    return "(?%d)" % kind


def search_filter(frame):
    """The filter string of the searchRequest in frame (the whole LDAPMessage)."""
    _, s, e = tlv(frame, 0)
    op = list(children(frame, s, e))[1]
    fields = list(children(frame, op[1], op[2]))
    return filter_at(frame, fields[6][3])


def attr_list(attrs):
    return [{"type": text(a["type"]), "values": [text(v) for v in a["vals"]]} for a in attrs]


def op_fields(name, r, frame):
    if name == "bindRequest":
        auth = r["authentication"]
        d = {"version": int(r["version"]), "dn": text(r["name"]), "auth": auth.getName()}
        if auth.getName() == "simple":
            d["password"] = text(auth["simple"])
        elif auth.getName() == "sasl":
            d["mech"] = text(auth["sasl"]["mechanism"])
            d["credentials"] = b64(auth["sasl"]["credentials"])
        return d
    if name == "searchRequest":
        return {"base": text(r["baseObject"]), "scope": int(r["scope"]),
                "deref": int(r["derefAliases"]), "sizelimit": int(r["sizeLimit"]),
                "timelimit": int(r["timeLimit"]), "typesonly": bool(r["typesOnly"]),
                "filter": search_filter(frame),
                "attributes": [text(a) for a in r["attributes"]]}
    if name == "modifyRequest":
        ch = [{"op": MODOPS.get(int(c["operation"]), str(int(c["operation"]))),
               "type": text(c["modification"]["type"]),
               "values": [text(v) for v in c["modification"]["vals"]]} for c in r["changes"]]
        return {"dn": text(r["object"]), "changes": ch}
    if name == "addRequest":
        return {"dn": text(r["entry"]), "attributes": attr_list(r["attributes"])}
    if name == "delRequest":
        return {"dn": text(r)}
    if name == "modDNRequest":
        ns = r["newSuperior"]
        return {"dn": text(r["entry"]), "newrdn": text(r["newrdn"]),
                "deleteoldrdn": bool(r["deleteoldrdn"]),
                "newsuperior": text(ns) if ns.hasValue() else None}
    if name == "compareRequest":
        return {"dn": text(r["entry"]), "type": text(r["ava"]["attributeDesc"]),
                "value": text(r["ava"]["assertionValue"])}
    if name == "abandonRequest":
        return {"abandon": int(r)}
    if name == "extendedReq":
        return {"name": text(r["requestName"]), "value": b64(r["requestValue"])}
    return {}


def record(conn, frame):
    try:
        msg, _ = decoder.decode(frame, asn1Spec=LDAPMessage())
        op = msg["protocolOp"]
        name = op.getName()
        line = {"conn": conn, "msgid": int(msg["messageID"]), "op": name}
        line.update(op_fields(name, op[name], frame))
        ctrls = []
        if msg["controls"].hasValue():
            for c in msg["controls"]:
                crit = c["criticality"]
                ctrls.append({"oid": text(c["controlType"]),
                              "critical": bool(crit) if crit.hasValue() else False,
                              "value": b64(c["controlValue"])})
        line["controls"] = ctrls
    except Exception as e:  # a frame the types do not decode: kept, not fatal
        line = {"conn": conn, "msgid": -1, "op": "undecodable", "hex": frame.hex(),
                "error": str(e), "controls": []}
    s = json.dumps(line, sort_keys=True)
    with LOCK:
        OUT.write(s + "\n")
        OUT.flush()


def record_entry(conn, frame):
    """A searchResEntry (APPLICATION 4) from the server: its DN on file."""
    try:
        _, s, e = tlv(frame, 0)
        _, ms, me = tlv(frame, s)
        op, os_, _ = tlv(frame, me)
        if op != 0x64:
            return
        _, ds, de = tlv(frame, os_)
        line = {"conn": conn, "msgid": int.from_bytes(frame[ms:me], "big"), "op": "searchResEntry",
                "dn": frame[ds:de].decode("utf-8", "backslashreplace")}
    except (IndexError, ValueError):
        return
    s = json.dumps(line, sort_keys=True)
    with LOCK:
        OUT.write(s + "\n")
        OUT.flush()


def frame_length(buf):
    """The whole BER frame's length at buf's start, or None if incomplete."""
    if len(buf) < 2:
        return None
    n = buf[1]
    if n < 0x80:
        return 2 + n
    k = n & 0x7F
    if len(buf) < 2 + k:
        return None
    return 2 + k + int.from_bytes(buf[2:2 + k], "big")


def serve(conn, client, upstream):
    global ACTIVE
    with LOCK:
        ACTIVE += 1
    try:
        serve_one(conn, client, upstream)
    finally:
        with LOCK:
            ACTIVE -= 1


def serve_one(conn, client, upstream):
    try:
        server = socket.create_connection(upstream)
    except OSError:
        client.close()
        return
    buf = b""
    back = b""  # the server's bytes not yet a whole frame (--entries)
    socks = [client, server]
    try:
        while True:
            r, _, _ = select.select(socks, [], [])
            if client in r:
                data = client.recv(65536)
                if not data:
                    break
                buf += data
                while True:  # recorded before the server can answer it
                    n = frame_length(buf)
                    if n is None or len(buf) < n:
                        break
                    record(conn, buf[:n])
                    buf = buf[n:]
                server.sendall(data)
            if server in r:
                data = server.recv(65536)
                if not data:
                    break
                if ENTRIES:
                    back += data
                    while True:
                        n = frame_length(back)
                        if n is None or len(back) < n:
                            break
                        record_entry(conn, back[:n])
                        back = back[n:]
                client.sendall(data)
    except OSError:
        pass
    finally:
        client.close()
        server.close()


def main():
    global OUT, ENTRIES
    p = argparse.ArgumentParser(description="LDAP capture proxy for tests")
    p.add_argument("--upstream", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--port-file")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--entries", action="store_true")
    a = p.parse_args()
    ENTRIES = a.entries
    host, _, port = a.upstream.rpartition(":")
    if host not in ("127.0.0.1", "localhost"):
        print("ldapcapture: --upstream must be on 127.0.0.1", file=sys.stderr)
        return 2
    OUT = open(a.out, "a", encoding="utf-8")
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", a.port))
    ls.listen(128)
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    signal.signal(signal.SIGINT, lambda *_: STOP.set())
    ls.settimeout(0.1)
    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % ls.getsockname()[1])
        os.rename(tmp, a.port_file)
    n = 0
    while not STOP.is_set():
        try:
            c, _ = ls.accept()
        except socket.timeout:
            continue
        c.settimeout(None)
        n += 1
        threading.Thread(target=serve, args=(n, c, (host, int(port))), daemon=True).start()
    ls.close()
    for _ in range(50):  # up to 5 s for the connections still open to finish
        with LOCK:
            if ACTIVE == 0:
                break
        threading.Event().wait(0.1)
    with LOCK:
        OUT.close()
        os._exit(0)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(0)
