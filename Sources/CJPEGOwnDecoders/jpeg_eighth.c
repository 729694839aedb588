#include "jpeg_eighth.h"
#include "jpeg_huffman.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct cjpeg_eighth {
    const cjpeg_eighth_layout *layout;
    table dc[4], ac[4];
    int32_t fast_dc[4][1 << FAST_BITS], fast_ac[4][1 << FAST_BITS];
    int blocks;              /* per MCU */
    int record_size;
    /* Per block of the MCU: component, and where its record starts. */
    uint8_t block_component[10];
    uint8_t block_x[10], block_y[10];  /* the block's place in its component's part of the MCU */
    uint8_t block_scaled[10];
    int block_record[10];
    const table *block_dc[10], *block_ac[10];
    const int32_t *block_fast_dc[10], *block_fast_ac[10];
};

cjpeg_eighth *cjpeg_eighth_make(const cjpeg_eighth_layout *layout) {
    if (layout->components != 1 && layout->components != 3) return NULL;
    cjpeg_eighth *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->layout = layout;
    for (int c = 0; c < layout->components; c++) {
        const cjpeg_eighth_component *comp = &layout->comp[c];
        if (comp->dc_table > 3 || comp->ac_table > 3 ||
            !cjpeg_huff_make_table(&d->dc[comp->dc_table], layout->dc_bits[comp->dc_table], layout->dc_values[comp->dc_table], 1) ||
            !cjpeg_huff_make_table(&d->ac[comp->ac_table], layout->ac_bits[comp->ac_table], layout->ac_values[comp->ac_table], 0)) {
            free(d);
            return NULL;
        }
        cjpeg_huff_make_fast(&d->dc[comp->dc_table], d->fast_dc[comp->dc_table], 0);
        cjpeg_huff_make_fast(&d->ac[comp->ac_table], d->fast_ac[comp->ac_table], 1);
        for (int b = 0; b < comp->h * comp->v; b++) {
            if (d->blocks == 10) {
                free(d);
                return NULL;
            }
            d->block_component[d->blocks] = (uint8_t)c;
            d->block_scaled[d->blocks] = comp->scaled;
            d->block_dc[d->blocks] = &d->dc[comp->dc_table];
            d->block_ac[d->blocks] = &d->ac[comp->ac_table];
            d->block_fast_dc[d->blocks] = d->fast_dc[comp->dc_table];
            d->block_fast_ac[d->blocks] = d->fast_ac[comp->ac_table];
            d->block_x[d->blocks] = (uint8_t)(b % comp->h);
            d->block_y[d->blocks] = (uint8_t)(b / comp->h);
            d->block_record[d->blocks++] = d->record_size;
            d->record_size += comp->scaled == 2 ? 4 : 1;
        }
    }
    return d;
}

void cjpeg_eighth_free(cjpeg_eighth *d) { free(d); }

int cjpeg_eighth_record_size(const cjpeg_eighth *d) { return d->record_size; }

void cjpeg_eighth_cursor_start(const cjpeg_eighth *d, cjpeg_eighth_cursor *c) {
    memset(c, 0, sizeof *c);
    c->restarts_left = d->layout->restart_interval;
}

void cjpeg_eighth_cursor_at(const cjpeg_eighth *d, cjpeg_eighth_cursor *c, size_t at, int marker) {
    const uint8_t *s = d->layout->scan;
    memset(c, 0, sizeof *c);
    c->pos = at;
    /* Bytes before `at` that carry data: all but the zero after each stuffed FF and
       the restart markers (two bytes each). */
    uint64_t skipped = 0;
    const uint8_t *p = s, *end = s + at;
    while (p + 1 < end && (p = memchr(p, 0xFF, (size_t)(end - 1 - p))) != NULL) {
        skipped += p[1] == 0 ? 1 : 2;
        p += 2;
    }
    c->data_bytes = at - skipped;
    if (marker >= 0 && d->layout->restart_interval > 0) {
        c->restarts_left = d->layout->restart_interval;
        c->next_marker = (marker + 1) & 7;
    }
}

uint64_t cjpeg_eighth_position(const cjpeg_eighth_cursor *c) {
    return c->data_bytes * 8 - (uint64_t)(int64_t)c->count;
}

/* libjpeg-turbo's SSE2 2x2 IDCT (jsimd_idct_2x2_sse2) in its own arithmetic:
   dequantizing keeps 16 bits of each product, sums wrap at 32 bits, and the first
   pass's odd columns are saturated to 16 bits before the second. Its AC part is done
   here, from the dequantized coefficients: out[0] is the odd sum of column 0 (rows 1,
   3, 5 and 7), out[1] and out[2] the second pass's odd sums for output rows 0 and 1.
   idct_2x2_samples finishes with the DC term, once the predictor is known. */
static inline int32_t wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t wrap_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static inline int32_t saturate16(int32_t v) { return v > 32767 ? 32767 : v < -32768 ? -32768 : v; }

static int32_t odd_sum(int32_t r1, int32_t r3, int32_t r5, int32_t r7) {
    /* Two pmaddwd pairs: neither sum can leave 32 bits; their total wraps. */
    return wrap_add(r1 * 29692 + r3 * -10426, r5 * 6967 + r7 * -5906);
}

static void idct_2x2_ac(const int32_t *dq, int32_t *out) {
    static const int cols[4] = {1, 3, 5, 7};
    int32_t a[4], b[4];
    for (int i = 0; i < 4; i++) {
        int c = cols[i];
        int32_t tmp10 = dq[c] * (1 << 15);
        int32_t tmp0 = odd_sum(dq[8 + c], dq[24 + c], dq[40 + c], dq[56 + c]);
        a[i] = saturate16(wrap_add(wrap_add(tmp10, tmp0), 4096) >> 13);
        b[i] = saturate16(wrap_add(wrap_sub(tmp10, tmp0), 4096) >> 13);
    }
    out[0] = odd_sum(dq[8], dq[24], dq[40], dq[56]);
    out[1] = odd_sum(a[0], a[1], a[2], a[3]);
    out[2] = odd_sum(b[0], b[1], b[2], b[3]);
}

static inline uint8_t clamp_sample(int32_t v);

/* The four samples (row by row) from the quantized DC coefficient, its quantizer and
   the block's AC part. */
static inline void idct_2x2_samples(int32_t dc, int32_t q0, const int32_t *ac, uint8_t *row0, uint8_t *row1) {
    int32_t dq = (int16_t)(uint16_t)(uint32_t)(dc * q0);
    int32_t tmp10 = dq * (1 << 15);
    int32_t a0 = wrap_add(wrap_add(tmp10, ac[0]), 4096) >> 13, b0 = wrap_add(wrap_sub(tmp10, ac[0]), 4096) >> 13;
    int32_t x = (int32_t)((uint32_t)a0 << 15), y = (int32_t)((uint32_t)b0 << 15);
    row0[0] = clamp_sample(wrap_add(wrap_add(x, ac[1]), 1 << 19) >> 20);
    row0[1] = clamp_sample(wrap_add(wrap_sub(x, ac[1]), 1 << 19) >> 20);
    row1[0] = clamp_sample(wrap_add(wrap_add(y, ac[2]), 1 << 19) >> 20);
    row1[1] = clamp_sample(wrap_add(wrap_sub(y, ac[2]), 1 << 19) >> 20);
}

/* Natural positions the 2x2 IDCT reads: rows and columns 0, 1, 3, 5 and 7. */
static const uint64_t used_by_2x2 = 0xAB00AB00AB00ABABull;

long cjpeg_eighth_decode(const cjpeg_eighth *d, cjpeg_eighth_cursor *cur, long count,
                         int32_t *records, uint64_t *positions, cjpeg_eighth_cursor *ends, uint64_t first) {
    const cjpeg_eighth_layout *L = d->layout;
    const uint8_t *s = L->scan;
    size_t n = L->scan_size;
    reader r = {.bits = cur->bits, .count = cur->count, .pos = cur->pos, .data = cur->data_bytes};
    uint32_t restarts_left = cur->restarts_left;
    int next_marker = cur->next_marker;
    long done = 0;
    int32_t block[64];
    memset(block, 0, sizeof block);
    for (; done < count; done++) {
        if (L->restart_interval && restarts_left == 0) {
            if (!restart(&r, s, n, &next_marker)) break;
            restarts_left = L->restart_interval;
        }
        reader before = r;
        if (positions) positions[done] = r.data * 8 - (uint64_t)(int64_t)r.count;
        int32_t *rec = records + (size_t)done * (size_t)d->record_size;
        int bad = 0;
        for (int b = 0; b < d->blocks; b++) {
            const table *dc = d->block_dc[b], *ac = d->block_ac[b];
            int32_t *out = rec + d->block_record[b];
            out[0] = fast_dc_difference(dc, d->block_fast_dc[b], &r, s, n, &bad);
            if (d->block_scaled[b] == 1) {
                skip_ac(ac, &r, s, n, &bad);
            } else {
                /* Only the coefficients the 2x2 IDCT reads are kept, dequantized to 16
                   bits as its pmullw does. */
                const uint16_t *quant = L->comp[d->block_component[b]].quant;
                int any = 0;
                for (int k = 1; k < 64; k++) {
                    int32_t v = next_ac(ac, d->block_fast_ac[b], &r, s, n, &k, &bad);
                    int at = cjpeg_huff_natural[k];
                    if (v && ((used_by_2x2 >> at) & 1)) {
                        block[at] = (int16_t)(uint16_t)(uint32_t)(v * quant[at]);
                        any = 1;
                    }
                }
                if (any) {
                    idct_2x2_ac(block, out + 1);
                    memset(block, 0, sizeof block);
                } else {
                    out[1] = out[2] = out[3] = 0;
                }
            }
        }
        if (bad || r.count < 0) {
            r = before;
            break;
        }
        if (L->restart_interval) restarts_left--;
        if (ends) {
            cjpeg_eighth_cursor a = {.pos = r.pos, .bits = r.bits, .count = r.count, .data_bytes = r.data,
                                     .restarts_left = restarts_left, .next_marker = next_marker};
            ends[(first + (uint64_t)done) % CJPEG_EIGHTH_ENDS] = a;
        }
    }
    cjpeg_eighth_cursor c = {.pos = r.pos, .bits = r.bits, .count = r.count, .data_bytes = r.data,
                             .restarts_left = restarts_left, .next_marker = next_marker};
    *cur = c;
    return done;
}

int cjpeg_eighth_at_end(const cjpeg_eighth *d, const cjpeg_eighth_cursor *c) {
    const uint8_t *s = d->layout->scan;
    size_t n = d->layout->scan_size;
    return c->count >= 0 && c->count < 8 && c->pos + 1 < n && s[c->pos] == 0xFF && s[c->pos + 1] == 0xD9;
}

/* libjpeg's clamp after its 1x1 IDCT: the value is taken modulo 1024 (a table
   lookup), so only -512 to 511 clamp as expected. */
static inline uint8_t idct_1x1_sample(int32_t v) {
    int32_t w = ((v & 1023) ^ 512) - 512;
    w += 128;
    return (uint8_t)(w < 0 ? 0 : w > 255 ? 255 : w);
}

/* The clamp after its SIMD 2x2 IDCT, which saturates to 8 signed bits. */
static inline uint8_t clamp_sample(int32_t v) {
    v += 128;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static inline uint8_t clamp255(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* libjpeg's YCbCr to RGB tables (jdcolor.c): 16-bit fixed point, rounded. */
typedef struct {
    int cr_r[256], cb_b[256];
    int32_t cr_g[256], cb_g[256];
} ycc_tables;

static ycc_tables ycc;
static pthread_once_t ycc_once = PTHREAD_ONCE_INIT;

static void make_ycc(void) {
    for (int i = 0; i < 256; i++) {
        int32_t x = i - 128;
        ycc.cr_r[i] = (int)((91881 * x + 32768) >> 16);   /* FIX(1.40200) */
        ycc.cb_b[i] = (int)((116130 * x + 32768) >> 16);  /* FIX(1.77200) */
        ycc.cr_g[i] = -46802 * x;                          /* -FIX(0.71414) */
        ycc.cb_g[i] = -22554 * x + 32768;                  /* -FIX(0.34414), rounding */
    }
}

int cjpeg_eighth_rows(const cjpeg_eighth *d, const int32_t *records, uint64_t first_mcu,
                      int32_t *predictors, uint32_t x0, uint32_t width,
                      uint8_t *out, size_t stride, uint32_t rows) {
    const cjpeg_eighth_layout *L = d->layout;
    pthread_once(&ycc_once, make_ycc);
    /* One MCU row of each component's samples, replicated to the pixel grid later. */
    uint32_t pw[3], m0 = x0 / L->max_h, m1 = (x0 + width + L->max_h - 1) / L->max_h;
    if (m1 > L->mcus_per_row) m1 = L->mcus_per_row;
    uint8_t *plane[3];
    size_t total = 0;
    for (int c = 0; c < L->components; c++) {
        pw[c] = L->mcus_per_row * L->comp[c].h * L->comp[c].scaled;
        total += (size_t)pw[c] * L->comp[c].v * L->comp[c].scaled;
    }
    uint8_t *buffer = malloc(total ? total : 1);
    if (!buffer) return -1;
    total = 0;
    for (int c = 0; c < L->components; c++) {
        plane[c] = buffer + total;
        total += (size_t)pw[c] * L->comp[c].v * L->comp[c].scaled;
    }
    /* Where each block's samples go in the planes, from its MCU's first column. */
    uint8_t *base[10];
    uint32_t step[10], q0[3];
    for (int c = 0; c < L->components; c++) q0[c] = L->comp[c].quant[0];
    for (int b = 0; b < d->blocks; b++) {
        int ci = d->block_component[b];
        uint32_t sc = d->block_scaled[b], h = L->comp[ci].h;
        base[b] = plane[ci] + (size_t)d->block_y[b] * sc * pw[ci] + d->block_x[b] * sc;
        step[b] = h * sc;
    }
    /* MCUs to the next restart (the predictors start again there). */
    uint64_t ri = L->restart_interval, left = ri ? (ri - first_mcu % ri) % ri : UINT64_MAX;
    const int32_t *rec = records;
    for (uint32_t m = 0; m < L->mcus_per_row; m++, rec += d->record_size) {
        if (left-- == 0) {
            left = ri - 1;
            predictors[0] = predictors[1] = predictors[2] = 0;
        }
        if (m < m0 || m >= m1) {
            /* Outside the columns asked for only the predictors move on. */
            for (int b = 0; b < d->blocks; b++) {
                int ci = d->block_component[b];
                predictors[ci] = (int32_t)((uint32_t)predictors[ci] + (uint32_t)rec[d->block_record[b]]);
            }
            continue;
        }
        for (int b = 0; b < d->blocks; b++) {
            int ci = d->block_component[b];
            const int32_t *r = rec + d->block_record[b];
            /* libjpeg keeps the predictor in an int and the coefficient in 16 bits. */
            predictors[ci] = (int32_t)((uint32_t)predictors[ci] + (uint32_t)r[0]);
            int32_t dc = (int32_t)(int16_t)predictors[ci] * (int32_t)q0[ci];
            uint8_t *p = base[b] + m * step[b];
            if (d->block_scaled[b] == 1) {
                p[0] = idct_1x1_sample((dc + 4) >> 3);
            } else {
                idct_2x2_samples((int16_t)predictors[ci], (int32_t)q0[ci], r + 1, p, p + pw[ci]);
            }
        }
    }
    /* Components sampled coarser than the pixels are replicated, as libjpeg's plain
       upsampling does at 1/8 (its fancy upsampling needs a larger scale). */
    uint8_t *wide[3] = {NULL, NULL, NULL};
    int status = 0;
    for (int c = 0; c < L->components; c++) {
        if (L->max_h / (L->comp[c].h * L->comp[c].scaled) > 1) {
            wide[c] = malloc(width ? width : 1);
            if (!wide[c]) {
                rows = 0;
                status = -1;
            }
        }
    }
    for (uint32_t y = 0; y < rows; y++) {
        uint8_t *o = out + (size_t)y * stride;
        const uint8_t *row[3];
        for (int c = 0; c < L->components; c++) {
            const cjpeg_eighth_component *comp = &L->comp[c];
            uint32_t fy = L->max_v / (comp->v * comp->scaled), fx = L->max_h / (comp->h * comp->scaled);
            const uint8_t *src = plane[c] + (size_t)(y / fy) * pw[c];
            if (fx == 1) {
                row[c] = src + x0;
                continue;
            }
            uint32_t i = x0 / fx, j = x0 % fx;
            for (uint32_t x = 0; x < width; x++) {
                wide[c][x] = src[i];
                if (++j == fx) {
                    j = 0;
                    i++;
                }
            }
            row[c] = wide[c];
        }
        if (L->components == 1) {
            memcpy(o, row[0], width);
            continue;
        }
        const uint8_t *py = row[0], *pb = row[1], *pr = row[2];
        for (uint32_t x = 0; x < width; x++) {
            int yy = py[x], cb = pb[x], cr = pr[x];
            o[0] = clamp255(yy + ycc.cr_r[cr]);
            o[1] = clamp255(yy + (int)((ycc.cb_g[cb] + ycc.cr_g[cr]) >> 16));
            o[2] = clamp255(yy + ycc.cb_b[cb]);
            o += 3;
        }
    }
    for (int c = 0; c < 3; c++) free(wide[c]);
    free(buffer);
    return status;
}

void cjpeg_eighth_carry(const cjpeg_eighth *d, const int32_t *records, uint64_t first_mcu, uint64_t mcus,
                        int32_t *predictors) {
    const cjpeg_eighth_layout *L = d->layout;
    uint32_t p[3] = {(uint32_t)predictors[0], (uint32_t)predictors[1], (uint32_t)predictors[2]};
    uint64_t ri = L->restart_interval, left = ri ? (ri - first_mcu % ri) % ri : UINT64_MAX;
    for (uint64_t m = 0; m < mcus; m++, records += d->record_size) {
        if (left-- == 0) {
            left = ri - 1;
            p[0] = p[1] = p[2] = 0;
        }
        for (int b = 0; b < d->blocks; b++) p[d->block_component[b]] += (uint32_t)records[d->block_record[b]];
    }
    for (int c = 0; c < 3; c++) predictors[c] = (int32_t)p[c];
}
