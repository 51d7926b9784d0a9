#!/usr/bin/env python3
"""Big logs for the join's speed (bench/join_big.sh), from one real run:
its op-log and the server's stats log (slapd, loglevel stats) of that run.

  join_big.py run   OPLOG LOG MB OUT_OPLOG OUT_LOG
      a log of about MB megabytes made only of the run's operations: the
      run's lines K times, copy k's conn= moved up by k x 100000 and its
      tags' connection numbers by k x (the run's connections); the op-log
      the run's records K times, copy k's connections moved up the same and
      its send times by k x the run's length (its own sample windows).
  join_big.py window OPLOG LOG MB OUT_LOG
      a log of about MB megabytes where the run is a window inside other
      traffic: copies of the run's lines as other runs' (another run id in
      the tags, conn= moved up), half before the run's own lines, half after.
"""
import re
import struct
import sys

HEAD = struct.Struct("<8sIIIIQQQQIIQQ")  # struct ldb_oplog_head, 80 bytes
REC = struct.Struct("<QQIIiBBH")  # struct ldb_oprec, 32 bytes
PARTS = re.compile(rb"(conn=)(\d+)|(\(description=ldbench-)([0-9a-f]{8})-(\d{10})")


def template(log):
    """The log split at each conn= number and each tag: text, then tuples."""
    data = open(log, "rb").read()
    out, at = [], 0
    for m in PARTS.finditer(data):
        out.append(data[at:m.start()])
        if m.group(1):
            out.append(("conn", int(m.group(2))))
        else:
            out.append(("tag", m.group(4), int(m.group(5))))
        at = m.end()
    out.append(data[at:])
    return out, len(data)


def render(parts, conn_add, tag_add, run_id=None):
    b = []
    for p in parts:
        if isinstance(p, bytes):
            b.append(p)
        elif p[0] == "conn":
            b.append(b"conn=%d" % (p[1] + conn_add))
        else:
            b.append(b"(description=ldbench-%s-%010d" % (run_id or p[1], p[2] + tag_add))
    return b"".join(b)


def main():
    mode, oplog, log, mb = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    parts, size = template(log)
    copies = max(1, (mb * 1000000 + size - 1) // size)
    raw = open(oplog, "rb").read()
    head = list(HEAD.unpack_from(raw, 0))
    recs = raw[HEAD.size:]
    n = len(recs) // REC.size
    nconn = max((REC.unpack_from(recs, i * REC.size)[2] for i in range(n)), default=0)
    if mode == "run":
        with open(sys.argv[6], "wb") as f:
            for k in range(copies):
                f.write(render(parts, k * 100000, k * nconn))
        with open(sys.argv[5], "wb") as f:
            t_end = head[8]
            head[6] = n * copies  # records
            head[8] = t_end * copies
            f.write(HEAD.pack(*head))
            for k in range(copies):
                out = bytearray(recs[: n * REC.size])
                for i in range(n):
                    r = list(REC.unpack_from(out, i * REC.size))
                    r[0] += k * t_end
                    r[2] += k * nconn
                    REC.pack_into(out, i * REC.size, *r)
                f.write(out)
    else:
        other = b"%08x" % ((head[3] ^ 0x5A5A5A5A) & 0xFFFFFFFF)
        with open(sys.argv[5], "wb") as f:
            for k in range(1, copies):
                if k == copies // 2 + 1 or (copies == 1 and k == 1):
                    f.write(render(parts, 0, 0))
                f.write(render(parts, k * 100000, k * nconn, other))
            if copies <= 1:
                f.write(render(parts, 0, 0))
    print("copies %d, seed %d bytes, records %d" % (copies, size, n))


main()
