#include "jpeg_eighth.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Codes up to this long are found by one table lookup; longer ones by libjpeg's
   canonical search. */
#define LOOKAHEAD 9

/* A code: its length (0: none matches, or longer than LOOKAHEAD in a lookup table)
   and its symbol. */
typedef struct {
    uint8_t length, symbol;
} entry;

/* Lookup entries as 16-bit words, so the decoding loops stay a load and a few shifts:
   symbols are length | symbol << 8; skips, for AC codes of a block kept at its DC, are
   the bits to skip (code and value) | how far the coefficient index moves (64 at the
   end of the block) << 8. 0 sends the code to the canonical search. */
typedef struct {
    uint16_t symbols[1 << LOOKAHEAD];
    uint16_t skips[1 << LOOKAHEAD];
    int32_t maxcode[18];     /* largest code of each length, -1 for none; [17] sentinel */
    int32_t offset[17];      /* values index of a length's first code, less that code */
    uint8_t values[256];
} table;

struct cjpeg_eighth {
    const cjpeg_eighth_layout *layout;
    table dc[4], ac[4];
    int blocks;              /* per MCU */
    int record_size;
    /* Per block of the MCU: component, and where its record starts. */
    uint8_t block_component[10];
    uint8_t block_x[10], block_y[10];  /* the block's place in its component's part of the MCU */
    uint8_t block_scaled[10];
    int block_record[10];
    const table *block_dc[10], *block_ac[10];
};

/* libjpeg's natural order, with the 16 entries past the end it keeps so a corrupt run
   lands on coefficient 63 instead of outside the block. */
static const uint8_t natural[64 + 16] = {
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
    28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61,
    54, 47, 55, 62, 63,
    63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

static uint16_t skip_word(int length, uint8_t symbol) {
    int s = symbol & 15, r = symbol >> 4;
    return (uint16_t)((length + s) | (s ? r + 1 : r == 15 ? 16 : 64) << 8);
}

/* Builds a table as libjpeg's jpeg_make_d_derived_tbl does, refusing what it refuses. */
static int make_table(table *t, const uint8_t bits[17], const uint8_t values[256], int dc) {
    int total = 0;
    for (int l = 1; l <= 16; l++) total += bits[l];
    if (total > 256) return 0;
    memcpy(t->values, values, 256);
    uint16_t codes[256];
    uint8_t lengths[256];
    int k = 0;
    uint32_t code = 0;
    for (int l = 1; l <= 16; l++) {
        for (int i = 0; i < bits[l]; i++) {
            lengths[k] = (uint8_t)l;
            codes[k++] = (uint16_t)code++;
        }
        if (code > (1u << l)) return 0;
        code <<= 1;
    }
    k = 0;
    for (int l = 1; l <= 16; l++) {
        if (bits[l]) {
            t->offset[l] = k - (int32_t)codes[k];
            k += bits[l];
            t->maxcode[l] = codes[k - 1];
        } else {
            t->maxcode[l] = -1;
        }
    }
    t->maxcode[17] = 0x7FFFFFFF;
    memset(t->symbols, 0, sizeof t->symbols);
    memset(t->skips, 0, sizeof t->skips);
    for (int i = 0; i < total; i++) {
        if (dc && values[i] > 15) return 0;
        if (lengths[i] > LOOKAHEAD) continue;
        int spare = LOOKAHEAD - lengths[i];
        for (int j = 0; j < 1 << spare; j++) {
            t->symbols[(codes[i] << spare) | j] = (uint16_t)(lengths[i] | values[i] << 8);
            t->skips[(codes[i] << spare) | j] = skip_word(lengths[i], values[i]);
        }
    }
    return 1;
}

cjpeg_eighth *cjpeg_eighth_make(const cjpeg_eighth_layout *layout) {
    if (layout->components != 1 && layout->components != 3) return NULL;
    cjpeg_eighth *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->layout = layout;
    for (int c = 0; c < layout->components; c++) {
        const cjpeg_eighth_component *comp = &layout->comp[c];
        if (comp->dc_table > 3 || comp->ac_table > 3 ||
            !make_table(&d->dc[comp->dc_table], layout->dc_bits[comp->dc_table], layout->dc_values[comp->dc_table], 1) ||
            !make_table(&d->ac[comp->ac_table], layout->ac_bits[comp->ac_table], layout->ac_values[comp->ac_table], 0)) {
            free(d);
            return NULL;
        }
        for (int b = 0; b < comp->h * comp->v; b++) {
            if (d->blocks == 10) {
                free(d);
                return NULL;
            }
            d->block_component[d->blocks] = (uint8_t)c;
            d->block_scaled[d->blocks] = comp->scaled;
            d->block_dc[d->blocks] = &d->dc[comp->dc_table];
            d->block_ac[d->blocks] = &d->ac[comp->ac_table];
            d->block_x[d->blocks] = (uint8_t)(b % comp->h);
            d->block_y[d->blocks] = (uint8_t)(b / comp->h);
            d->block_record[d->blocks++] = d->record_size;
            d->record_size += comp->scaled == 2 ? 5 : 1;
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

static inline uint64_t load_be64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}

/* The bit reader's state in locals, so it stays in registers through the MCU loop. */
typedef struct {
    uint64_t bits;
    int count;
    size_t pos;
    uint64_t data;
} reader;

/* Tops the bit buffer up to at least 57 bits, or as far as the data goes: not past a
   marker, whose place the bits after stay zero, as libjpeg pads them. */
static inline __attribute__((always_inline)) void refill(reader *r, const uint8_t *s, size_t n) {
    if (r->count < 0) return;  /* past the end already: the MCU fails */
    if (r->pos + 8 <= n) {
        uint64_t v = load_be64(s + r->pos);
        uint64_t x = ~v;
        if (!((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull)) {
            int k = (63 - r->count) >> 3;
            r->bits |= (v >> r->count) & ~(~0ull >> (r->count + 8 * k));
            r->pos += (size_t)k;
            r->data += (uint64_t)k;
            r->count += 8 * k;
            return;
        }
    }
    while (r->count <= 56 && r->pos < n) {
        uint8_t b = s[r->pos];
        if (b == 0xFF) {
            if (r->pos + 1 >= n || s[r->pos + 1] != 0) return;
            r->pos += 2;
        } else {
            r->pos += 1;
        }
        r->bits |= (uint64_t)b << (56 - r->count);
        r->count += 8;
        r->data += 1;
    }
}

/* A code longer than the lookahead, by libjpeg's canonical search; length 0 when no
   code matches. */
static entry slow_symbol(const table *t, uint64_t bits) {
    uint32_t code = (uint32_t)(bits >> 48);
    for (int l = LOOKAHEAD + 1; l <= 16; l++) {
        int32_t v = (int32_t)(code >> (16 - l));
        if (v <= t->maxcode[l]) {
            entry out = {(uint8_t)l, t->values[(t->offset[l] + v) & 0xFF]};
            return out;
        }
    }
    entry none = {0, 0};
    return none;
}

/* The next symbol of `t` as length | symbol << 8; needs 16 bits buffered. A bad code
   sets *bad. */
static inline __attribute__((always_inline)) uint32_t next_symbol(const table *t, const reader *r, int *bad) {
    uint32_t e = t->symbols[r->bits >> (64 - LOOKAHEAD)];
    if (__builtin_expect(e != 0, 1)) return e;
    entry slow = slow_symbol(t, r->bits);
    *bad |= slow.length == 0;
    return slow.length | (uint32_t)slow.symbol << 8;
}

/* The next AC code's skip word (see `table`). */
static inline __attribute__((always_inline)) uint32_t next_skip(const table *t, const reader *r, int *bad) {
    uint32_t e = t->skips[r->bits >> (64 - LOOKAHEAD)];
    if (__builtin_expect(e != 0, 1)) return e;
    entry slow = slow_symbol(t, r->bits);
    *bad |= slow.length == 0;
    return slow.length ? skip_word(slow.length, slow.symbol) : 64u << 8;
}

static inline void consume(reader *r, int n) {
    r->bits <<= n;
    r->count -= n;
}

/* The value of the `s` bits at the top, sign-extended as JPEG does. */
static inline int32_t take_value(reader *r, int s) {
    if (s == 0) return 0;
    int32_t v = (int32_t)(r->bits >> (64 - s));
    consume(r, s);
    return v < (1 << (s - 1)) ? v - (1 << s) + 1 : v;
}

/* The 2x2 samples of a block less its DC term, as libjpeg's jpeg_idct_2x2 computes
   them (columns and rows 0, 1, 3, 5 and 7 of the dequantized block), reduced to what
   is added to the dequantized DC before the last shift by 3. The DC term enters the
   first pass as a multiple of 2^13 and the second as a multiple of 2^17, below every
   rounding, so the sample is ((dc + e) >> 3) exactly. */
static void idct_2x2_terms(const int32_t *dq, int32_t *e) {
    static const int cols[5] = {0, 1, 3, 5, 7};
    int64_t ws[2][8] = {{0}};
    for (int i = 0; i < 5; i++) {
        int col = cols[i];
        int64_t z0 = i == 0 ? 0 : dq[col];
        int64_t tmp10 = z0 * (1 << 15);
        int64_t tmp0 = (int64_t)dq[56 + col] * -5906 + (int64_t)dq[40 + col] * 6967 +
                       (int64_t)dq[24 + col] * -10426 + (int64_t)dq[8 + col] * 29692;
        ws[0][col] = (int32_t)((tmp10 + tmp0 + 4096) >> 13);
        ws[1][col] = (int32_t)((tmp10 - tmp0 + 4096) >> 13);
    }
    for (int r = 0; r < 2; r++) {
        int64_t tmp10 = ws[r][0] * (1 << 15);
        int64_t tmp0 = ws[r][7] * -5906 + ws[r][5] * 6967 + ws[r][3] * -10426 + ws[r][1] * 29692;
        int64_t a = (tmp10 + tmp0 + (1 << 19)) >> 17, b = (tmp10 - tmp0 + (1 << 19)) >> 17;
        /* Within 2^29, so adding a DC term (at most 2^30) cannot overflow 32 bits. */
        e[2 * r] = a > (1 << 29) ? (1 << 29) : a < -(1 << 29) ? -(1 << 29) : (int32_t)a;
        e[2 * r + 1] = b > (1 << 29) ? (1 << 29) : b < -(1 << 29) ? -(1 << 29) : (int32_t)b;
    }
}

/* Natural positions the 2x2 IDCT reads: rows and columns 0, 1, 3, 5 and 7. */
static const uint64_t used_by_2x2 = 0xAB00AB00AB00ABABull;

long cjpeg_eighth_decode(const cjpeg_eighth *d, cjpeg_eighth_cursor *cur, long count,
                         int32_t *records, uint64_t *positions, cjpeg_eighth_cursor *ends, uint64_t first) {
    const cjpeg_eighth_layout *L = d->layout;
    const uint8_t *s = L->scan;
    size_t n = L->scan_size;
    reader r = {cur->bits, cur->count, cur->pos, cur->data_bytes};
    uint32_t restarts_left = cur->restarts_left;
    int next_marker = cur->next_marker;
    long done = 0;
    int32_t block[64];
    memset(block, 0, sizeof block);
    for (; done < count; done++) {
        if (L->restart_interval && restarts_left == 0) {
            /* Whole bytes left over, or anything but the expected marker: libjpeg
               would warn and resynchronise, so let it. */
            if (r.count >= 8 || r.pos + 1 >= n || s[r.pos] != 0xFF || s[r.pos + 1] != 0xD0 + next_marker) break;
            r.pos += 2;
            r.bits = 0;
            r.count = 0;
            next_marker = (next_marker + 1) & 7;
            restarts_left = L->restart_interval;
        }
        reader before = r;
        if (positions) positions[done] = r.data * 8 - (uint64_t)(int64_t)r.count;
        int32_t *rec = records + (size_t)done * (size_t)d->record_size;
        int bad = 0;
        for (int b = 0; b < d->blocks; b++) {
            const table *dc = d->block_dc[b], *ac = d->block_ac[b];
            if (r.count < 32) refill(&r, s, n);
            uint32_t e = next_symbol(dc, &r, &bad);
            consume(&r, e & 0xFF);
            int32_t *out = rec + d->block_record[b];
            out[0] = take_value(&r, (e >> 8) & 15);
            if (d->block_scaled[b] == 1) {
                for (int k = 1; k < 64;) {
                    if (r.count < 32) refill(&r, s, n);
                    e = next_skip(ac, &r, &bad);
                    consume(&r, e & 0xFF);
                    k += e >> 8;
                }
            } else {
                /* Only the coefficients the 2x2 IDCT reads are kept, dequantized. */
                const uint16_t *quant = L->comp[d->block_component[b]].quant;
                int any = 0;
                for (int k = 1; k < 64;) {
                    if (r.count < 32) refill(&r, s, n);
                    e = next_symbol(ac, &r, &bad);
                    consume(&r, e & 0xFF);
                    int sz = (e >> 8) & 15, run = e >> 12;
                    if (sz) {
                        k += run;
                        int at = natural[k];
                        int32_t v = take_value(&r, sz);
                        if ((used_by_2x2 >> at) & 1) {
                            block[at] = v * quant[at];
                            any = 1;
                        }
                        k += 1;
                    } else {
                        k += run == 15 ? 16 : 64;
                    }
                }
                if (any) {
                    idct_2x2_terms(block, out + 1);
                    memset(block, 0, sizeof block);
                } else {
                    out[1] = out[2] = out[3] = out[4] = 4;
                }
            }
        }
        if (bad || r.count < 0) {
            r = before;
            break;
        }
        if (L->restart_interval) restarts_left--;
        if (ends) {
            cjpeg_eighth_cursor a = {r.pos, r.bits, r.count, r.data, restarts_left, next_marker};
            ends[(first + (uint64_t)done) % CJPEG_EIGHTH_ENDS] = a;
        }
    }
    cjpeg_eighth_cursor c = {r.pos, r.bits, r.count, r.data, restarts_left, next_marker};
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

/* The clamp after its SIMD 2x2 IDCT, which saturates. */
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

void cjpeg_eighth_rows(const cjpeg_eighth *d, const int32_t *records, uint64_t first_mcu,
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
    if (!buffer) return;
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
                size_t w = pw[ci];
                p[0] = clamp_sample((dc + r[1]) >> 3);
                p[1] = clamp_sample((dc + r[2]) >> 3);
                p[w] = clamp_sample((dc + r[3]) >> 3);
                p[w + 1] = clamp_sample((dc + r[4]) >> 3);
            }
        }
    }
    /* Components sampled coarser than the pixels are replicated, as libjpeg's plain
       upsampling does at 1/8 (its fancy upsampling needs a larger scale). */
    uint8_t *wide[3] = {NULL, NULL, NULL};
    for (int c = 0; c < L->components; c++) {
        if (L->max_h / (L->comp[c].h * L->comp[c].scaled) > 1) {
            wide[c] = malloc(width ? width : 1);
            if (!wide[c]) rows = 0;
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
