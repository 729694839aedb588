"""A small HEIF writer for crafting hostile HEIC and AVIF files (the tests and
scripts/make-hostile): any items, properties, associations and references around a
real coded image taken from a file heif-enc made."""
import struct

def box(t, payload):
    return struct.pack('>I', 8 + len(payload)) + t + payload

def full(t, version, flags, payload):
    return box(t, bytes([version]) + flags.to_bytes(3, 'big') + payload)

def children(b, start, end):
    out = []
    while start + 8 <= end:
        size, t = struct.unpack('>I4s', b[start:start + 8])
        out.append((t, start + 8, start + size))
        start += size
    return out

def coded(path):
    """The coded item of a one-image heif-enc file: type, its properties as raw boxes, its bitstream."""
    b = open(path, 'rb').read()
    meta = [c for c in children(b, 0, len(b)) if c[0] == b'meta'][0]
    kids = {t: (s, e) for t, s, e in children(b, meta[1] + 4, meta[2])}
    s, e = kids[b'iprp']
    ipco = [c for c in children(b, s, e) if c[0] == b'ipco'][0]
    props = {t: b[s - 8:e] for t, s, e in children(b, ipco[1], ipco[2])}
    s, e = kids[b'iinf']
    infe = children(b, s + 6, e)[0]
    itype = b[infe[1] + 8:infe[1] + 12]
    s, e = kids[b'iloc']
    # heif-enc writes iloc version 0 or 1 with 4-byte offsets and lengths and one extent.
    v = b[s]
    sizes, more = b[s + 4], b[s + 5]
    p = s + 8
    p += 2  # item id
    if v >= 1: p += 2
    p += 2  # data ref
    off_size, len_size, base_size = sizes >> 4, sizes & 15, more >> 4
    base = int.from_bytes(b[p:p + base_size], 'big'); p += base_size
    p += 2  # extent count: heif-enc writes one
    off = base + int.from_bytes(b[p:p + off_size], 'big'); p += off_size
    ln = int.from_bytes(b[p:p + len_size], 'big')
    return itype, props, b[off:off + ln]

def ispe(w, h):
    return full(b'ispe', 0, 0, struct.pack('>II', w, h))

def heif(brand, items, props, assoc, refs, primary, idat_items=()):
    """items: [(id, type, data)], props: [raw boxes], assoc: {id: [1-based prop index]},
    refs: [(type, from, [to...])]; items in idat_items keep their data in idat."""
    ftyp = box(b'ftyp', brand + b'\0\0\0\0' + b'mif1' + brand + b'miaf')
    hdlr = full(b'hdlr', 0, 0, b'\0\0\0\0pict' + b'\0' * 12 + b'\0')
    pitm = full(b'pitm', 0, 0, struct.pack('>H', primary))
    iinf = full(b'iinf', 0, 0, struct.pack('>H', len(items)) +
                b''.join(full(b'infe', 2, 0, struct.pack('>HH', i, 0) + t + b'\0') for i, t, _ in items))
    iref = full(b'iref', 0, 0, b''.join(box(t, struct.pack('>HH', f, len(to)) + b''.join(struct.pack('>H', x) for x in to))
                                        for t, f, to in refs)) if refs else b''
    ipco = box(b'ipco', b''.join(props))
    ipma = full(b'ipma', 0, 0, struct.pack('>I', len(assoc)) + b''.join(
        struct.pack('>HB', i, len(ps)) + bytes(0x80 | p if p < 0x80 else p for p in ps) for i, ps in sorted(assoc.items())))
    iprp = box(b'iprp', ipco + ipma)
    idat_payload = b''.join(d for i, t, d in items if i in idat_items)
    idat = box(b'idat', idat_payload) if idat_items else b''
    def build(mdat_start):
        entries = b''
        off_mdat, off_idat = mdat_start + 8, 0
        for i, t, d in items:
            if i in idat_items:
                entries += struct.pack('>HHHHII', i, 1, 0, 1, off_idat, len(d)); off_idat += len(d)
            else:
                entries += struct.pack('>HHHHII', i, 0, 0, 1, off_mdat, len(d)); off_mdat += len(d)
        iloc = full(b'iloc', 1, 0, bytes([0x44, 0x00]) + struct.pack('>H', len(items)) + entries)
        return box(b'meta', b'\0\0\0\0' + hdlr + pitm + iloc + iinf + iref + iprp + idat)
    meta = build(0)
    meta = build(len(ftyp) + len(meta))
    mdat = box(b'mdat', b''.join(d for i, t, d in items if i not in idat_items))
    return ftyp + meta + mdat

def grid(rows, cols, w, h):
    return struct.pack('>BBBBHH', 0, 0, rows - 1, cols - 1, w, h)
