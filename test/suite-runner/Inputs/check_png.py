# Checks a PNG written by bench/suite/runner/ks_png.py with an independent
# reader: the signature, every chunk's CRC-32, IHDR (size, 8-bit RGB), the IDAT
# stream inflating to exactly height x (1 + 3 x width) bytes with a valid filter
# byte per row; prints the size and, per table row of the chart, the length in
# pixels of the blue (vs seed) bar, so tests can check the log scale.
#   check_png.py FILE [--rows N] [--top 78] [--row-h 30] [--speedups V0,V1,...]
# With --speedups (>= 1, one per row, 0 for none) it also checks the bars are
# proportional to log10(speedup) within 2 pixels ("log scale ok").
import struct
import sys
import zlib


def fail(msg):
    print("check_png: " + msg)
    sys.exit(1)


def main():
    path = sys.argv[1]
    args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("bad signature")
    pos, chunks = 8, []
    while pos < len(data):
        if pos + 8 > len(data):
            fail("truncated chunk header at %d" % pos)
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            fail("CRC mismatch in %s" % kind.decode())
        chunks.append((kind, body))
        pos += 12 + n
    kinds = [k for k, _ in chunks]
    if kinds[0] != b"IHDR" or kinds[-1] != b"IEND" or b"IDAT" not in kinds:
        fail("chunk order %s" % kinds)
    w, h, depth, ctype, comp, filt, inter = struct.unpack(">IIBBBBB", chunks[0][1])
    if (depth, ctype, comp, filt, inter) != (8, 2, 0, 0, 0):
        fail("not 8-bit RGB non-interlaced: %s" % ((depth, ctype, comp, filt, inter),))
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    stride = 1 + 3 * w
    if len(raw) != h * stride:
        fail("IDAT inflates to %d bytes, expected %d" % (len(raw), h * stride))
    if any(raw[y * stride] > 4 for y in range(h)):
        fail("bad filter byte")
    if any(raw[y * stride] != 0 for y in range(h)):
        fail("unexpected filter (the writer uses filter 0)")
    print("png ok %dx%d, %d chunks" % (w, h, len(chunks)))
    rows, top, row_h = int(args.get("--rows", 0)), int(args.get("--top", 78)), int(args.get("--row-h", 30))
    blue = bytes((31, 119, 180))
    lengths = []
    for i in range(rows):
        y = top + i * row_h + 4 + 5  # the middle of the row's first (vs seed) bar
        line = raw[y * stride + 1:(y + 1) * stride]
        n = sum(1 for x in range(w) if line[3 * x:3 * x + 3] == blue)
        print("row %d blue %d" % (i, n))
        lengths.append(n)
    if "--speedups" in args:
        import math
        sp = [float(v) for v in args["--speedups"].split(",")]
        ref = max(range(len(sp)), key=lambda i: sp[i])
        per_decade = lengths[ref] / math.log10(sp[ref])
        for i, v in enumerate(sp):
            want = per_decade * math.log10(v) if v > 0 else 0
            if abs(lengths[i] - want) > 2:
                fail("row %d: bar %d px, %.1f px expected on the log scale" % (i, lengths[i], want))
        print("log scale ok")


main()
