#!/usr/bin/env python3
"""Exit 0 if a PNG screenshot has content, 1 if it is blank (one colour, or nearly all
white). Standard library only: decodes 8-bit RGB/RGBA PNGs as Chromium writes them.
    tests/png_has_content.py shot.png"""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit(f"{path}: expected an 8-bit RGB or RGBA PNG, not interlaced")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    rows = []
    at = 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else upper_left)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def main():
    width, height, channels, rows = pixels(sys.argv[1])
    colours, inked = set(), 0
    for row in rows[::4]:
        for x in range(0, width * channels, channels * 4):
            rgb = row[x:x + 3]
            colours.add(rgb)
            inked += rgb != b"\xff\xff\xff"
    sampled = len(rows[::4]) * len(range(0, width * channels, channels * 4))
    share = inked / sampled
    print(f"{sys.argv[1]}: {width}x{height}, {len(colours)} colours sampled, {share:.1%} not white")
    return 0 if len(colours) >= 8 and share >= 0.01 else 1


if __name__ == "__main__":
    sys.exit(main())
