#include "png_shim.h"
#include "png_unfilter.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* ISA-L's AVX code (the chunk CRCs checked at open, the inflating) returns with the
   upper halves of the vector registers still in use, and the SSE2 unfiltering after it
   on the same thread then ran at half speed: Paeth over 108 MP took 0.89 s instead of
   0.41 s. Cleared before each run of rows. */
#if defined(__x86_64__)
__attribute__((target("avx"))) static void clear_upper_avx(void) { _mm256_zeroupper(); }
static void clear_upper(void) {
    if (__builtin_cpu_supports("avx")) clear_upper_avx();
}
#else
static void clear_upper(void) {}
#endif

/* The fast path for the commonest PNGs: 8-bit gray, gray+alpha, RGB or RGBA, not
   interlaced, no tRNS. Every chunk's CRC is checked up front; the IDAT stream is
   inflated by ISA-L straight from the chunks, a row at a time (no whole-image buffer),
   and unfiltered here. Anything else, and any error, is left to libpng.
   The zlib header and checksum are read here and ISA-L is fed only the deflate data
   between them, so that the Adler-32 is summed by the unfiltering side: on a gigapixel
   PNG the sum was 13% of the inflating thread, which alone sets the pace. (ISA-L's
   raw mode cannot be asked where the deflate data ended: before 2.32 the bytes after
   it stay in its bit buffer.) */
struct cpng_fast {
    const uint8_t *data;
    size_t size;
    uint32_t width, height, channels;
    size_t rowbytes;
    /* Inflating's: it may run on another thread than unfiltering. */
    size_t next_idat;      /* offset of the next IDAT chunk header to feed */
    size_t next_start;     /* where in the zlib stream that chunk's data starts */
    size_t fed, end;       /* the stream's bytes fed so far, and where its deflate data ends */
    uint32_t rows_inflated;
    struct inflate_state state;
    uint32_t trailer;      /* the stream's Adler-32 */
    int ended;             /* finish found the deflate data ending at the checksum */
    /* Unfiltering's. */
    uint8_t *prev;         /* the previous unfiltered row (zeros before the first) */
    uint32_t rows_unfiltered;
    uint32_t adler;        /* of the inflated bytes unfiltered so far */
    /* read_rows's: one call's rows, inflated. */
    uint8_t *raw;
    size_t raw_rows;
};

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* n bytes from offset `at` of the zlib stream the IDAT chunks from `idat` on carry. */
static void stream_bytes(const uint8_t *data, size_t idat, size_t at, uint8_t *out, size_t n) {
    size_t start = 0;
    while (n > 0) {
        uint32_t len = be32(data + idat);
        while (n > 0 && at < start + len) {
            *out++ = data[idat + 8 + (at - start)];
            at++;
            n--;
        }
        start += len;
        idat += 12 + (size_t)len;
    }
}

cpng_fast *cpng_fast_open(const uint8_t *data, size_t size) {
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    if (size < 8 + 25 + 12 || memcmp(data, sig, 8) != 0) return NULL;
    const uint8_t *ihdr = data + 8;
    if (be32(ihdr) != 13 || memcmp(ihdr + 4, "IHDR", 4) != 0) return NULL;
    uint32_t width = be32(ihdr + 8), height = be32(ihdr + 12);
    int depth = ihdr[16], type = ihdr[17];
    if (depth != 8 || ihdr[18] != 0 || ihdr[19] != 0 || ihdr[20] != 0 || width == 0 || height == 0) return NULL;
    uint32_t channels = type == 0 ? 1 : type == 2 ? 3 : type == 4 ? 2 : type == 6 ? 4 : 0;
    if (!channels) return NULL;
    /* Every chunk whole, its CRC right, IDATs together and followed only by IEND,
       nothing libpng would treat differently (tRNS, an unknown critical chunk). */
    size_t at = 8, first_idat = 0, stream = 0;
    int idat_state = 0; /* 0 before, 1 inside, 2 after */
    int ended = 0;
    while (at + 12 <= size) {
        uint32_t len = be32(data + at);
        if (len > 0x7fffffffu || len > size - at - 12) return NULL;
        const uint8_t *type_bytes = data + at + 4;
        uint32_t crc = be32(data + at + 8 + len);
        if (crc32_gzip_refl(0, (unsigned char *)type_bytes, 4 + (uint64_t)len) != crc) return NULL;
        int idat = memcmp(type_bytes, "IDAT", 4) == 0;
        if (idat) {
            stream += len;
            if (idat_state == 2) return NULL;
            if (idat_state == 0) first_idat = at;
            idat_state = 1;
        } else if (idat_state == 1) {
            idat_state = 2;
        }
        /* After the image data only IEND: libpng checks the content of chunks there
           (and warns, which the strict default fails on), this path does not read them. */
        if (idat_state == 2 && memcmp(type_bytes, "IEND", 4) != 0) return NULL;
        if (memcmp(type_bytes, "tRNS", 4) == 0) return NULL;
        int critical = !(type_bytes[0] & 0x20);
        if (critical && !idat && memcmp(type_bytes, "IHDR", 4) && memcmp(type_bytes, "PLTE", 4) && memcmp(type_bytes, "IEND", 4)) return NULL;
        at += 12 + (size_t)len;
        if (memcmp(type_bytes, "IEND", 4) == 0) {
            ended = len == 0;
            break;
        }
    }
    if (!ended || idat_state == 0 || stream < 2 + 1 + 4) return NULL;
    /* A zlib header for deflate with no preset dictionary. */
    uint8_t z[2], sum[4];
    stream_bytes(data, first_idat, 0, z, 2);
    if ((z[0] & 15) != 8 || (z[0] >> 4) > 7 || (z[1] & 0x20) || ((uint32_t)z[0] << 8 | z[1]) % 31) return NULL;
    stream_bytes(data, first_idat, stream - 4, sum, 4);
    cpng_fast *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->data = data;
    f->size = size;
    f->next_idat = first_idat;
    f->fed = 2;
    f->end = stream - 4;
    f->trailer = be32(sum);
    f->width = width;
    f->height = height;
    f->channels = channels;
    f->rowbytes = (size_t)width * channels;
    f->prev = calloc(f->rowbytes, 1);
    if (!f->prev) {
        cpng_fast_close(f);
        return NULL;
    }
    isal_inflate_init(&f->state);
    f->state.crc_flag = ISAL_DEFLATE;
    f->adler = 1;
    return f;
}

void cpng_fast_close(cpng_fast *f) {
    if (!f) return;
    free(f->raw);
    free(f->prev);
    free(f);
}

/* Points the inflater at the next of the deflate data in an IDAT chunk; 0 when none is left. */
static int feed(cpng_fast *f) {
    while (f->fed < f->end && f->next_idat + 12 <= f->size && memcmp(f->data + f->next_idat + 4, "IDAT", 4) == 0) {
        uint32_t len = be32(f->data + f->next_idat);
        size_t start = f->next_start;
        const uint8_t *body = f->data + f->next_idat + 8;
        f->next_idat += 12 + (size_t)len;
        f->next_start += len;
        size_t from = f->fed - start, to = f->end < start + len ? f->end - start : len;
        if (f->fed >= start + len || to <= from) continue;
        f->state.next_in = (uint8_t *)body + from;
        f->state.avail_in = (uint32_t)(to - from);
        f->fed = start + to;
        return 1;
    }
    return 0;
}

int cpng_fast_inflate_rows(cpng_fast *f, uint8_t *raw, uint32_t rows) {
    if (rows > f->height - f->rows_inflated) return -1;
    size_t want = (size_t)rows * (f->rowbytes + 1), filled = 0;
    while (filled < want) {
        /* ISA-L may hold decoded bytes back when the output was full: it is called
           again even with no input left, and only no progress at all is an error. */
        int fed = f->state.avail_in == 0 && f->state.block_state != ISAL_BLOCK_FINISH ? feed(f) : 0;
        uint32_t in_before = f->state.avail_in;
        size_t room = want - filled;
        f->state.next_out = raw + filled;
        f->state.avail_out = room > 0x40000000 ? 0x40000000 : (uint32_t)room;
        uint32_t out_before = f->state.avail_out;
        if (isal_inflate(&f->state) != ISAL_DECOMP_OK) return -1;
        size_t got = out_before - f->state.avail_out;
        filled += got;
        if (got == 0 && f->state.avail_in == in_before && !fed) return -1;
    }
    f->rows_inflated += rows;
    return 0;
}

int cpng_fast_unfilter_rows(cpng_fast *f, const uint8_t *raw, uint8_t *pixels, size_t stride, uint32_t rows) {
    if (rows > f->height - f->rows_unfiltered) return -1;
    clear_upper();
    for (uint32_t r = 0; r < rows; r++) {
        const uint8_t *in = raw + (size_t)r * (f->rowbytes + 1);
        if (in[0] > 4) return -1;
        uint8_t *out = pixels + (size_t)r * stride;
        /* The row above is the one just written, except for the first of a call. */
        const uint8_t *above = r == 0 ? f->prev : out - stride;
        cpng_unfilter(out, in + 1, above, f->rowbytes, f->channels, in[0]);
    }
    f->adler = isal_adler32(f->adler, raw, (uint64_t)rows * (f->rowbytes + 1));
    if (rows) memcpy(f->prev, pixels + (size_t)(rows - 1) * stride, f->rowbytes);
    f->rows_unfiltered += rows;
    return 0;
}

int cpng_fast_read_rows(cpng_fast *f, uint8_t *pixels, size_t stride, uint32_t rows) {
    if (rows > f->raw_rows) {
        uint8_t *grown = realloc(f->raw, (size_t)rows * (f->rowbytes + 1));
        if (!grown) return -1;
        f->raw = grown;
        f->raw_rows = rows;
    }
    if (cpng_fast_inflate_rows(f, f->raw, rows)) return -1;
    return cpng_fast_unfilter_rows(f, f->raw, pixels, stride, rows);
}

int cpng_fast_finish(cpng_fast *f) {
    if (f->rows_inflated != f->height) return -1;
    /* The deflate data must end with nothing left over (libpng warns on extra
       compressed data, which the strict default fails on); verify checks the sum. */
    uint8_t spare[16];
    while (f->state.block_state != ISAL_BLOCK_FINISH) {
        int fed = f->state.avail_in == 0 ? feed(f) : 0;
        uint32_t in_before = f->state.avail_in;
        f->state.next_out = spare;
        f->state.avail_out = sizeof spare;
        if (isal_inflate(&f->state) != ISAL_DECOMP_OK || f->state.avail_out != sizeof spare) return -1;
        if (f->state.block_state != ISAL_BLOCK_FINISH && f->state.avail_in == in_before && !fed) return -1;
    }
    /* Every byte fed was deflate data: none left, in its buffer (before 2.32) or given
       back (since), or still to feed. */
    if (f->state.avail_in != 0 || f->state.read_in_length >= 8 || feed(f)) return -1;
    f->ended = 1;
    return 0;
}

int cpng_fast_verify(cpng_fast *f) {
    return f->ended && f->rows_unfiltered == f->height && f->adler == f->trailer ? 0 : -1;
}
