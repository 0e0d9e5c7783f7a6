# The suite's plot as a PNG, with the Python standard library only (zlib and
# struct; the GPU machine has no matplotlib): an RGB canvas, filled rectangles,
# a 5x7 bitmap font drawn here, and a minimal PNG encoder (IHDR, one IDAT with
# filter 0 on every row, IEND; CRC-32 per chunk). chart_png() draws one row per
# task: speedup vs the seed and vs PyTorch on a log scale, and the roofline
# fraction before and after.
import math
import struct
import zlib

# 5x7 glyphs, '#' = ink. Lowercase text is drawn in capitals.
_FONT = {
    "A": [" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"],
    "B": ["#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "],
    "C": [" ### ", "#   #", "#    ", "#    ", "#    ", "#   #", " ### "],
    "D": ["#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### "],
    "E": ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"],
    "F": ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "],
    "G": [" ### ", "#   #", "#    ", "# ###", "#   #", "#   #", " ####"],
    "H": ["#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"],
    "I": [" ### ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
    "J": ["  ###", "   # ", "   # ", "   # ", "   # ", "#  # ", " ##  "],
    "K": ["#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"],
    "L": ["#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"],
    "M": ["#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"],
    "N": ["#   #", "##  #", "# # #", "#  ##", "#   #", "#   #", "#   #"],
    "O": [" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "],
    "P": ["#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "],
    "Q": [" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"],
    "R": ["#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"],
    "S": [" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "],
    "T": ["#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "],
    "U": ["#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "],
    "V": ["#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "],
    "W": ["#   #", "#   #", "#   #", "# # #", "# # #", "# # #", " # # "],
    "X": ["#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"],
    "Y": ["#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "],
    "Z": ["#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"],
    "0": [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "],
    "1": ["  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
    "2": [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"],
    "3": ["#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "],
    "4": ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "],
    "5": ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "],
    "6": ["  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "],
    "7": ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "],
    "8": [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "],
    "9": [" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "],
    ".": ["     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "],
    ",": ["     ", "     ", "     ", "     ", " ##  ", "  #  ", " #   "],
    ":": ["     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "],
    "-": ["     ", "     ", "     ", "#####", "     ", "     ", "     "],
    "_": ["     ", "     ", "     ", "     ", "     ", "     ", "#####"],
    "%": ["##   ", "##  #", "   # ", "  #  ", " #   ", "#  ##", "   ##"],
    "/": ["     ", "    #", "   # ", "  #  ", " #   ", "#    ", "     "],
    "(": ["   # ", "  #  ", " #   ", " #   ", " #   ", "  #  ", "   # "],
    ")": [" #   ", "  #  ", "   # ", "   # ", "   # ", "  #  ", " #   "],
    "=": ["     ", "     ", "#####", "     ", "#####", "     ", "     "],
    ">": [" #   ", "  #  ", "   # ", "    #", "   # ", "  #  ", " #   "],
    "+": ["     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     "],
    " ": ["     "] * 7,
}

WHITE, BLACK, GREY = (255, 255, 255), (0, 0, 0), (200, 200, 200)
BLUE, ORANGE = (31, 119, 180), (255, 127, 14)
SEED_GREY, GREEN, RED = (150, 150, 150), (44, 160, 44), (214, 39, 40)


class Canvas:
    def __init__(self, w, h, bg=WHITE):
        self.w, self.h = w, h
        self.px = bytearray(bytes(bg) * (w * h))

    def rect(self, x0, y0, x1, y1, c):
        """Fills [x0, x1) x [y0, y1), clipped to the canvas."""
        x0, x1 = max(0, int(round(min(x0, x1)))), min(self.w, int(round(max(x0, x1))))
        y0, y1 = max(0, int(round(min(y0, y1)))), min(self.h, int(round(max(y0, y1))))
        if x1 <= x0:
            return
        row = bytes(c) * (x1 - x0)
        for y in range(y0, y1):
            i = 3 * (y * self.w + x0)
            self.px[i:i + len(row)] = row

    def text(self, x, y, s, c=BLACK, scale=1):
        """Draws s with its top-left corner at (x, y); returns the x after it."""
        for ch in s.upper():
            g = _FONT.get(ch, _FONT[" "])
            for gy, line in enumerate(g):
                for gx, p in enumerate(line):
                    if p == "#":
                        self.rect(x + gx * scale, y + gy * scale, x + (gx + 1) * scale, y + (gy + 1) * scale, c)
            x += 6 * scale
        return x

    def png(self):
        raw = bytearray()
        stride = 3 * self.w
        for y in range(self.h):
            raw.append(0)  # filter type 0 (None) for every scanline
            raw += self.px[y * stride:(y + 1) * stride]
        return encode_png(self.w, self.h, bytes(raw))


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(w, h, filtered_rows):
    """8-bit RGB PNG from already-filtered scanlines (1 filter byte + 3*w bytes each)."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(filtered_rows, 9))
            + _chunk(b"IEND", b""))


def text_width(s, scale=1):
    return 6 * scale * len(s)


def chart_png(rows):
    """rows: report.derive() dicts, in table order."""
    n = max(1, len(rows))
    row_h, top, bottom = 30, 78, 40
    label_w, sp_x0, sp_x1, rf_x0, rf_x1 = 250, 262, 742, 800, 1160
    W, H = 1200, top + n * row_h + bottom
    cv = Canvas(W, H)

    # Legend.
    cv.text(10, 8, "KERNELSKILL SUITE: SPEEDUP PER TASK (LOG SCALE) AND ROOFLINE FRACTION", BLACK, 2)
    x = 10
    for c, s in ((BLUE, "vs seed"), (ORANGE, "vs PyTorch eager"), (SEED_GREY, "roofline seed"),
                 (GREEN, "roofline KernelSkill"), (RED, "80% / 1x")):
        cv.rect(x, 36, x + 14, 50, c)
        x = cv.text(x + 20, 36, s, BLACK, 2) + 24

    # Speedup axis: whole decades around every value and 1x.
    vals = [v for r in rows for v in (r.get("speedup_seed"), r.get("speedup_torch")) if v]
    # Half a decade of room beyond the extreme bars, for their value labels.
    lo = math.floor(math.log10(min(vals + [0.5]) / 3))
    hi = math.ceil(math.log10(max(vals + [2.0]) * 3))
    lo, hi = min(lo, -1), max(hi, 1)

    def sx(v):
        return sp_x0 + (math.log10(v) - lo) / (hi - lo) * (sp_x1 - sp_x0)

    def rx(f):
        return rf_x0 + max(0.0, min(1.0, f)) * (rf_x1 - rf_x0)

    y_end = top + n * row_h
    for k in range(lo, hi + 1):
        xx = sx(10.0 ** k)
        cv.rect(xx, top - 4, xx + 1, y_end, GREY)
        lab = ("%gX" % (10.0 ** k)) if k >= 0 else ("0." + "0" * (-k - 1) + "1X")
        cv.text(xx - text_width(lab) / 2, y_end + 6, lab)
    for p in range(0, 101, 20):
        xx = rx(p / 100.0)
        cv.rect(xx, top - 4, xx + 1, y_end, GREY)
        lab = "%d%%" % p
        cv.text(xx - text_width(lab) / 2, y_end + 6, lab)
    cv.text(sp_x0, y_end + 20, "SPEEDUP (LOG SCALE)", BLACK, 1)
    cv.text(rf_x0, y_end + 20, "FRACTION OF ROOFLINE", BLACK, 1)

    for i, r in enumerate(rows):
        y = top + i * row_h
        if i % 2:
            cv.rect(0, y, W, y + row_h, (245, 245, 245))
        name = str(r.get("name", "?"))[:20]
        cv.text(label_w - text_width(name, 2), y + 8, name, BLACK if r.get("correct") else RED, 2)
        one = sx(1.0)
        for j, (v, c) in enumerate(((r.get("speedup_seed"), BLUE), (r.get("speedup_torch"), ORANGE))):
            y0 = y + 4 + j * 11
            if v:
                cv.rect(min(one, sx(v)), y0, max(one, sx(v)) + 1, y0 + 10, c)
                lab = "%.2fx" % v if v < 10 else "%.0fx" % v
                lx = sx(v) + 4 if v >= 1 else sx(v) - 4 - text_width(lab)
                cv.text(max(sp_x0 - 10, min(lx, sp_x1 + 4)), y0 + 1, lab, BLACK)
            else:
                cv.text(one + 4, y0 + 1, "N/A", (120, 120, 120))
        for j, (f, c) in enumerate(((r.get("roof_seed"), SEED_GREY), (r.get("roof_best"), GREEN))):
            y0 = y + 4 + j * 11
            if f is not None:
                cv.rect(rf_x0, y0, rx(f) + 1, y0 + 10, c)
                lab = "%.0f%%" % (100 * f)
                cv.text(min(rx(f) + 4, rf_x1 + 4), y0 + 1, lab, BLACK)
    # Reference lines on top of the bars: 1x and 80% of the roofline.
    cv.rect(sx(1.0), top - 4, sx(1.0) + 2, y_end, RED)
    cv.rect(rx(0.8), top - 4, rx(0.8) + 2, y_end, RED)
    cv.rect(sp_x0, y_end, sp_x1 + 1, y_end + 1, BLACK)
    cv.rect(rf_x0, y_end, rf_x1 + 1, y_end + 1, BLACK)
    return cv.png()
