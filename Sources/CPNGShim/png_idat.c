#include "png_idat.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The IDAT stream of an 8-bit image, written after libpng has written the header
   chunks. libpng's own writer spends most of a photo's encode in zlib's match search
   (level 6 takes about 5 s for 12 MP), which finds almost nothing in filtered photo
   rows; zlib's run-length strategy gives a file within 2% of it in a tenth of the
   time. It does badly on screenshots and line art, where level 6 is fast anyway, so
   each segment of about 256 KiB is judged on a sample: run-length when it is no
   larger there than zlib level 1's matches (on photos it is 10-15% smaller), else
   the level asked for with the filtered strategy, as libpng would. Levels 7-9 always
   search. The choice depends only on the bytes, so the output does too. */
#define SEGMENT (256 * 1024)
#define SAMPLE (32 * 1024)
#define CHUNK (64 * 1024)

struct cpng_idat {
    size_t rowbytes, bpp;
    int level, filter;
    int strategy;          /* the one the stream runs with now */
    int started;
    uint8_t *prev;         /* the previous row unfiltered; zeros before the first */
    uint8_t *candidates;   /* five filtered rows, filter byte first */
    uint8_t *segment;      /* filtered rows waiting to be deflated */
    size_t segment_size, segment_capacity;
    uint8_t chunk[CHUNK];  /* compressed bytes not yet in an IDAT */
    z_stream z;
    z_stream probe;
    uint8_t *probe_out;
    uint8_t *out;          /* the file so far */
    size_t out_size, out_capacity;
    int failed;
};

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

static int append(cpng_idat *w, const void *bytes, size_t n) {
    if (n > w->out_capacity - w->out_size) {
        size_t capacity = w->out_capacity ? w->out_capacity : CHUNK;
        while (capacity - w->out_size < n) {
            if (capacity > SIZE_MAX / 2) return -1;
            capacity *= 2;
        }
        uint8_t *grown = realloc(w->out, capacity);
        if (!grown) return -1;
        w->out = grown;
        w->out_capacity = capacity;
    }
    memcpy(w->out + w->out_size, bytes, n);
    w->out_size += n;
    return 0;
}

static int write_chunk(cpng_idat *w, const char *type, const uint8_t *data, size_t n) {
    uint8_t head[8], tail[4];
    put32(head, (uint32_t)n);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(crc32(0, NULL, 0), head + 4, 4);
    if (n) crc = crc32(crc, data, (uInt)n);
    put32(tail, (uint32_t)crc);
    return append(w, head, 8) || (n && append(w, data, n)) || append(w, tail, 4) ? -1 : 0;
}

/* Moves whatever zlib has produced into an IDAT. */
static int emit(cpng_idat *w) {
    size_t n = CHUNK - w->z.avail_out;
    if (n && write_chunk(w, "IDAT", w->chunk, n)) return -1;
    w->z.next_out = w->chunk;
    w->z.avail_out = CHUNK;
    return 0;
}

cpng_idat *cpng_idat_open(uint32_t width, int channels, int level, int filter,
                          uint8_t *header, size_t header_size, size_t header_capacity) {
    cpng_idat *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->out = header;
    w->out_size = header_size;
    w->out_capacity = header_capacity;
    w->rowbytes = (size_t)width * (size_t)channels;
    w->bpp = (size_t)channels;
    w->level = level < 0 ? 6 : level > 9 ? 9 : level;
    w->filter = filter;
    w->strategy = filter ? Z_FILTERED : Z_DEFAULT_STRATEGY;
    w->prev = calloc(w->rowbytes, 1);
    w->candidates = malloc(5 * (w->rowbytes + 1));
    w->segment_capacity = w->rowbytes + 1 > SEGMENT ? w->rowbytes + 1 : SEGMENT + w->rowbytes + 1;
    w->segment = malloc(w->segment_capacity);
    w->probe_out = malloc(compressBound(SAMPLE));
    if (!w->prev || !w->candidates || !w->segment || !w->probe_out ||
        deflateInit2(&w->z, w->level, Z_DEFLATED, 15, 8, w->strategy) != Z_OK) {
        w->out = NULL;  /* the caller still owns the header on failure */
        cpng_idat_close(w);
        return NULL;
    }
    w->started = 1;
    if (deflateInit2(&w->probe, 1, Z_DEFLATED, 15, 8, Z_FILTERED) != Z_OK) {
        w->out = NULL;
        cpng_idat_close(w);
        return NULL;
    }
    w->started = 2;
    w->z.next_out = w->chunk;
    w->z.avail_out = CHUNK;
    return w;
}

void cpng_idat_close(cpng_idat *w) {
    if (!w) return;
    if (w->started >= 1) deflateEnd(&w->z);
    if (w->started >= 2) deflateEnd(&w->probe);
    free(w->prev);
    free(w->candidates);
    free(w->segment);
    free(w->probe_out);
    free(w->out);
    free(w);
}

/* zlib's compressed size of `data` with `strategy` at `level`, fresh each time. */
static size_t probe(cpng_idat *w, const uint8_t *data, size_t n, int level, int strategy) {
    deflateReset(&w->probe);
    deflateParams(&w->probe, level, strategy);
    w->probe.next_in = (uint8_t *)data;
    w->probe.avail_in = (uInt)n;
    w->probe.next_out = w->probe_out;
    w->probe.avail_out = (uInt)compressBound(SAMPLE);
    deflate(&w->probe, Z_FINISH);
    return w->probe.total_out;
}

static int choose(cpng_idat *w) {
    if (w->level < 1 || w->level > 6 || !w->filter) return w->strategy;
    size_t n = w->segment_size < SAMPLE ? w->segment_size : SAMPLE;
    size_t rle = probe(w, w->segment, n, w->level, Z_RLE);
    size_t lz = probe(w, w->segment, n, 1, Z_FILTERED);
    return rle <= lz ? Z_RLE : Z_FILTERED;
}

static int deflate_segment(cpng_idat *w, int flush) {
    int strategy = choose(w);
    if (strategy != w->strategy) {
        /* zlib compresses what it holds with the old strategy first; it needs room. */
        int status;
        while ((status = deflateParams(&w->z, w->level, strategy)) == Z_BUF_ERROR)
            if (emit(w)) return -1;
        if (status != Z_OK) return -1;
        w->strategy = strategy;
    }
    w->z.next_in = w->segment;
    w->z.avail_in = (uInt)w->segment_size;
    for (;;) {
        int status = deflate(&w->z, flush);
        if (status == Z_STREAM_END) break;
        if (status != Z_OK && status != Z_BUF_ERROR) return -1;
        if (w->z.avail_out == 0) {
            if (emit(w)) return -1;
        } else if (w->z.avail_in == 0 && flush == Z_NO_FLUSH) {
            break;
        }
    }
    w->segment_size = 0;
    return flush == Z_FINISH ? emit(w) : 0;
}

static uint8_t paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    int bc = pb <= pc ? b : c;
    return (uint8_t)(pa <= pb && pa <= pc ? a : bc);
}

/* libpng's heuristic: the filter whose bytes, read as signed, sum smallest in
   magnitude. Every predictor reads unfiltered bytes, so each loop vectorises. */
static void filter_row(cpng_idat *w, const uint8_t *row, uint8_t *dest) {
    size_t n = w->rowbytes, bpp = w->bpp;
    const uint8_t *up = w->prev;
    if (!w->filter) {
        dest[0] = 0;
        memcpy(dest + 1, row, n);
        return;
    }
    uint64_t best_sum = UINT64_MAX;
    int best = 0;
    for (int type = 0; type < 5; type++) {
        uint8_t *o = w->candidates + (size_t)type * (n + 1) + 1;
        size_t first = bpp < n ? bpp : n;
        switch (type) {
        case 0:
            memcpy(o, row, n);
            break;
        case 1:
            memcpy(o, row, first);
            for (size_t i = bpp; i < n; i++) o[i] = (uint8_t)(row[i] - row[i - bpp]);
            break;
        case 2:
            for (size_t i = 0; i < n; i++) o[i] = (uint8_t)(row[i] - up[i]);
            break;
        case 3:
            for (size_t i = 0; i < first; i++) o[i] = (uint8_t)(row[i] - (up[i] >> 1));
            for (size_t i = bpp; i < n; i++) o[i] = (uint8_t)(row[i] - ((row[i - bpp] + up[i]) >> 1));
            break;
        default:
            for (size_t i = 0; i < first; i++) o[i] = (uint8_t)(row[i] - up[i]);
            for (size_t i = bpp; i < n; i++) o[i] = (uint8_t)(row[i] - paeth(row[i - bpp], up[i], up[i - bpp]));
            break;
        }
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++) {
            int v = (int8_t)o[i];
            sum += (uint32_t)(v < 0 ? -v : v);
        }
        if (sum < best_sum) {
            best_sum = sum;
            best = type;
        }
    }
    dest[0] = (uint8_t)best;
    memcpy(dest + 1, w->candidates + (size_t)best * (n + 1) + 1, n);
}

int cpng_idat_write_rows(cpng_idat *w, const uint8_t *pixels, size_t stride, uint32_t rows) {
    if (w->failed) return -1;
    for (uint32_t y = 0; y < rows; y++) {
        const uint8_t *row = pixels + (size_t)y * stride;
        filter_row(w, row, w->segment + w->segment_size);
        w->segment_size += w->rowbytes + 1;
        memcpy(w->prev, row, w->rowbytes);
        if (w->segment_size >= SEGMENT && deflate_segment(w, Z_NO_FLUSH)) {
            w->failed = 1;
            return -1;
        }
    }
    return 0;
}

int cpng_idat_finish(cpng_idat *w, uint8_t **out, size_t *out_size) {
    if (w->failed || deflate_segment(w, Z_FINISH) || write_chunk(w, "IEND", NULL, 0)) {
        w->failed = 1;
        return -1;
    }
    *out = w->out;
    *out_size = w->out_size;
    w->out = NULL;
    return 0;
}
