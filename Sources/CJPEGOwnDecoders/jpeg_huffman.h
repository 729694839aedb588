#ifndef IMGSCALE_JPEG_HUFFMAN_H
#define IMGSCALE_JPEG_HUFFMAN_H

/* Huffman tables and the bit reader shared by imgscale's own entropy decoders (the
   1/8 records and libjpeg's replacement entropy decoder). Private to the shim. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Codes up to this long are found by one table lookup; longer ones by libjpeg's
   canonical search. */
#define LOOKAHEAD 9
/* Codes whose code and value bits fit in this many are decoded by one lookup in a
   `fast` table (cjpeg_huff_make_fast). */
#define FAST_BITS 10
/* Runs of AC codes (with their values) that fit in this many bits are skipped by one
   lookup (`table.runs`). */
#define RUN_BITS 12
/* One or two AC codes with their values that fit in this many bits are decoded by one
   lookup in a `pairs` table (cjpeg_huff_make_pairs). */
#define PAIR_BITS 10

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
    /* AC tables: the codes wholly inside the next RUN_BITS, up to and including one
       that ends the block, as bits used | how far they move the coefficient index,
       their end of block aside, << 4 | 1 << 10 when one ends the block. 0 when the
       first code does not fit; the run stops before it would move the index past 63. */
    uint16_t runs[1 << RUN_BITS];
    int32_t maxcode[18];     /* largest code of each length, -1 for none; [17] sentinel */
    int32_t offset[17];      /* values index of a length's first code, less that code */
    uint8_t values[256];
} table;


/* libjpeg's natural order, then 63 for every k a run can reach past the end: a corrupt
   run lands on coefficient 63, as in libjpeg, and the fast AC table's end of block
   (k + 255) stores a zero there, harmlessly: a value at 63 would have ended the block. */
extern const uint8_t cjpeg_huff_natural[64 + 256];

static inline uint16_t skip_word(int length, uint8_t symbol) {
    int s = symbol & 15, r = symbol >> 4;
    return (uint16_t)((length + s) | (s ? r + 1 : r == 15 ? 16 : 64) << 8);
}


/* Builds a table as libjpeg's jpeg_make_d_derived_tbl does, refusing what it refuses:
   0 then. */
int cjpeg_huff_make_table(table *t, const uint8_t bits[17], const uint8_t values[256], int dc);

/* A code longer than the lookahead, by libjpeg's canonical search; length 0 when no
   code matches. */
entry cjpeg_huff_slow_symbol(const table *t, uint64_t bits);

/* A table's codes with their values, per FAST_BITS of data: the value << 16 | how far
   the coefficient index moves less one (AC; 255 at the end of the block) << 8 | bits
   used, or 0 when the code and its value do not fit. */
void cjpeg_huff_make_fast(const table *t, int32_t fast[1 << FAST_BITS], int ac);

/* An AC table's first code with its value per PAIR_BITS of data, and the second too
   when it also fits (never after the end of the block), as a word: bits used by both
   | a bound << 8 | where the first value goes << 16 and the second << 24, both from
   the coefficient index before them | the first value << 32 | the second << 48. The
   bound is how far the first code moves the index when a second follows (the second
   is the block's only if the index stays below 64 then), 0 when none does, and 255
   when the first code and value do not fit: the decoder takes the entry when the
   index plus the bound is at most 63. With no second code, the second value (0) goes
   where the first does, and is overwritten by it. Moves are run + 1 for a value, 16
   for a run of 16 zeros and 64 for the end of the block. Two codes a lookup shorten
   the serial chain of lookup and shift that bounds a block's decoding. */
void cjpeg_huff_make_pairs(const table *t, uint64_t pairs[1 << PAIR_BITS]);

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

/* Tops the bit buffer up to at least 56 bits, or as far as the data goes: not past a
   marker, whose place the bits after stay zero, as libjpeg pads them. Bits past
   `count` are zero or the data's next bits (never a marker's), so eight bytes without
   0xFF are ORed in whole, unmasked: the shortest path from a lookup's length to the
   next lookup, which is what bounds decoding. */
static inline __attribute__((always_inline)) void refill(reader *r, const uint8_t *s, size_t n) {
    if (r->count < 0) return;  /* past the end already: the MCU fails */
    if (r->pos + 8 <= n) {
        uint64_t v = load_be64(s + r->pos);
        uint64_t x = ~v;
        if (!((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull)) {
            int k = (63 - r->count) >> 3;
            r->bits |= v >> r->count;
            r->pos += (size_t)k;
            r->data += (uint64_t)k;
            r->count |= 56;
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

/* The next symbol of `t` as length | symbol << 8; needs 16 bits buffered. A bad code
   sets *bad. */
static inline __attribute__((always_inline)) uint32_t next_symbol(const table *t, const reader *r, int *bad) {
    uint32_t e = t->symbols[r->bits >> (64 - LOOKAHEAD)];
    if (__builtin_expect(e != 0, 1)) return e;
    entry slow = cjpeg_huff_slow_symbol(t, r->bits);
    *bad |= slow.length == 0;
    return slow.length | (uint32_t)slow.symbol << 8;
}

/* The next AC code's skip word (see `table`). */
static inline __attribute__((always_inline)) uint32_t next_skip(const table *t, const reader *r, int *bad) {
    uint32_t e = t->skips[r->bits >> (64 - LOOKAHEAD)];
    if (__builtin_expect(e != 0, 1)) return e;
    entry slow = cjpeg_huff_slow_symbol(t, r->bits);
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


/* Past the restart marker RSTn (n = *next_marker) at an interval's end: 0, and nothing
   moved, when whole bytes are left over or anything else is there (libjpeg would warn
   and resynchronise). */
static inline int restart(reader *r, const uint8_t *s, size_t n, int *next_marker) {
    if (r->count >= 8 || r->pos + 1 >= n || s[r->pos] != 0xFF || s[r->pos + 1] != 0xD0 + *next_marker) return 0;
    r->pos += 2;
    r->bits = 0;
    r->count = 0;
    *next_marker = (*next_marker + 1) & 7;
    return 1;
}

/* A block's DC difference. */
static inline __attribute__((always_inline)) int32_t dc_difference(const table *dc, reader *r, const uint8_t *s, size_t n,
                                                                   int *bad) {
    if (r->count < 32) refill(r, s, n);
    uint32_t e = next_symbol(dc, r, bad);
    consume(r, e & 0xFF);
    return take_value(r, (e >> 8) & 15);
}

/* A block's DC difference, by one lookup in its `fast` table when the code and value
   fit there. */
static inline __attribute__((always_inline)) int32_t fast_dc_difference(const table *dc, const int32_t *fast, reader *r,
                                                                        const uint8_t *s, size_t n, int *bad) {
    if (r->count < 32) refill(r, s, n);
    int32_t f = fast[r->bits >> (64 - FAST_BITS)];
    if (!f) return dc_difference(dc, r, s, n, bad);
    consume(r, f & 0xFF);
    return f >> 16;
}

/* The next AC code of a block whose coefficient index is *k: moves *k to where the
   value goes (a run past the end lands on 63, as in libjpeg; a run of 16 zeros ends on
   its last, 15 on; the end of the block 255 on, past 63) and returns the value, 0 for
   the last two. The caller moves on by one. */
static inline __attribute__((always_inline)) int32_t next_ac(const table *ac, const int32_t *fast, reader *r,
                                                             const uint8_t *s, size_t n, int *k, int *bad) {
    if (r->count < 32) refill(r, s, n);
    int32_t f = fast ? fast[r->bits >> (64 - FAST_BITS)] : 0;
    if (f) {
        consume(r, f & 0xFF);
        *k += (f >> 8) & 0xFF;
        return f >> 16;
    }
    uint32_t e = next_symbol(ac, r, bad);
    consume(r, (int)(e & 0xFF));
    int size = (e >> 8) & 15, run = (int)(e >> 12);
    if (!size) {
        *k += run == 15 ? 15 : 255;
        return 0;
    }
    *k += run;
    return take_value(r, size);
}

/* Bits a round of DECODE_AC_PAIRS may take between refills: four lookups. */
#define PAIR_ROUND_BITS (4 * PAIR_BITS)

/* One lookup of DECODE_AC_PAIRS at coefficient index k_: one or two codes from the
   `pairs` table, or one the long way (then the buffer is topped up again, as a long
   code and its value may take 27 bits). One compare decides, as whether a second code
   is there is random. */
#define DECODE_AC_PAIR_STEP(ac, pairs, r, s, n, bad, store)                                      \
    do {                                                                                         \
        uint64_t e_ = (pairs)[(r)->bits >> (64 - PAIR_BITS)];                                    \
        if (__builtin_expect(k_ + (int)((e_ >> 8) & 0xFF) <= 63, 1)) {                           \
            consume((r), (int)(e_ & 0xFF));                                                      \
            int p1_ = k_ + (int)((e_ >> 16) & 0xFF), p2_ = k_ + (int)((e_ >> 24) & 0xFF);        \
            store(cjpeg_huff_natural[p2_], (int32_t)(int16_t)(e_ >> 48));                        \
            store(cjpeg_huff_natural[p1_], (int32_t)(int16_t)(e_ >> 32));                        \
            k_ = p2_ + 1;                                                                        \
        } else {                                                                                 \
            int32_t v_ = next_ac((ac), NULL, (r), (s), (n), &k_, (bad));                         \
            store(cjpeg_huff_natural[k_], v_);                                                   \
            k_++;                                                                                \
            if ((r)->count < PAIR_ROUND_BITS) refill((r), (s), (n));                             \
        }                                                                                        \
    } while (0)

/* A block's AC codes by its `pairs` table, each value stored as `store(position in
   natural order, value)` (zeros too, at most at 63, where a value would have ended the
   block), as next_ac would one by one. The buffer is topped up once a round of four
   lookups, not before each: whether a lookup needed it was a branch the processor
   could not foresee. */
#define DECODE_AC_PAIRS(ac, pairs, r, s, n, bad, store)                                          \
    do {                                                                                         \
        int k_ = 1;                                                                              \
        for (;;) {                                                                               \
            if ((r)->count < PAIR_ROUND_BITS) refill((r), (s), (n));                             \
            DECODE_AC_PAIR_STEP(ac, pairs, r, s, n, bad, store);                                 \
            if (k_ >= 64) break;                                                                 \
            DECODE_AC_PAIR_STEP(ac, pairs, r, s, n, bad, store);                                 \
            if (k_ >= 64) break;                                                                 \
            DECODE_AC_PAIR_STEP(ac, pairs, r, s, n, bad, store);                                 \
            if (k_ >= 64) break;                                                                 \
            DECODE_AC_PAIR_STEP(ac, pairs, r, s, n, bad, store);                                 \
            if (k_ >= 64) break;                                                                 \
        }                                                                                        \
    } while (0)

/* Past a block's AC codes, keeping no value. A run of codes is taken at once when it
   keeps the index inside the block; decoding them one by one would take the same bits. */
static inline __attribute__((always_inline)) void skip_ac(const table *ac, reader *r, const uint8_t *s, size_t n, int *bad) {
    for (int k = 1; k < 64;) {
        if (r->count < 32) refill(r, s, n);
        uint32_t m = ac->runs[r->bits >> (64 - RUN_BITS)];
        int moved = (int)(m >> 4) & 63;
        if (m && k + moved < 64) {
            consume(r, (int)(m & 15));
            k += moved + (int)(m >> 10) * 64;
            continue;
        }
        uint32_t e = next_skip(ac, r, bad);
        consume(r, e & 0xFF);
        k += (int)(e >> 8);
    }
}

#endif
