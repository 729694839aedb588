#include "jpeg_huffman.h"

#define PAST16 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63
const uint8_t cjpeg_huff_natural[64 + 256] = {
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
    28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61,
    54, 47, 55, 62, 63,
    PAST16, PAST16, PAST16, PAST16, PAST16, PAST16, PAST16, PAST16,
    PAST16, PAST16, PAST16, PAST16, PAST16, PAST16, PAST16, PAST16};

int cjpeg_huff_make_table(table *t, const uint8_t bits[17], const uint8_t values[256], int dc) {
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
        /* As libjpeg's jdhuff.c: a length's codes may not reach all ones (a code of
           all 1 bits is reserved), so `code` must stay below 2^l. */
        if (code >= (1u << l)) return 0;
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
    memset(t->runs, 0, sizeof t->runs);
    for (int i = 0; !dc && i < 1 << RUN_BITS; i++) {
        /* Bits past the window read as zeros: a code is taken only when it and its
           value end inside, and then those zeros did not choose it. */
        uint64_t window = (uint64_t)i << (64 - RUN_BITS);
        int used = 0, moved = 0, end = 0;
        for (;;) {
            uint64_t at = window << used;
            uint32_t e = t->symbols[at >> (64 - LOOKAHEAD)];
            entry code = {(uint8_t)(e & 0xFF), (uint8_t)(e >> 8)};
            if (!e) code = cjpeg_huff_slow_symbol(t, at);
            int size = code.symbol & 15, run = code.symbol >> 4;
            if (code.length == 0 || used + code.length + size > RUN_BITS) break;
            if (size == 0 && run != 15) {
                used += code.length;
                end = 1;
                break;
            }
            int step = size ? run + 1 : 16;
            if (moved + step > 63) break;
            used += code.length + size;
            moved += step;
        }
        t->runs[i] = (uint16_t)(used ? used | moved << 4 | end << 10 : 0);
    }
    return 1;
}

void cjpeg_huff_make_fast(const table *t, int32_t fast[1 << FAST_BITS], int ac) {
    for (int i = 0; i < 1 << FAST_BITS; i++) {
        uint32_t e = t->symbols[i >> (FAST_BITS - LOOKAHEAD)];
        int length = (int)(e & 0xFF), size = (int)(e >> 8) & 15, run = ac ? (int)(e >> 12) : 0;
        fast[i] = 0;
        if (length == 0 || length + size > FAST_BITS) continue;
        if (size == 0) {
            /* A DC difference of 0; a run of 16 zeros, which stores a zero 15 on; the end
               of the block, one past 63. */
            fast[i] = (!ac ? 0 : run == 15 ? 15 : 255) << 8 | length;
            continue;
        }
        int32_t v = (i >> (FAST_BITS - length - size)) & ((1 << size) - 1);
        if (v < (1 << (size - 1))) v += 1 - (1 << size);
        fast[i] = (int32_t)((uint32_t)v << 16) | run << 8 | (length + size);
    }
}

/* The code at the top of `window` (bits past it zero) with its value, when both end
   within `room` bits: its bits, how far it moves the coefficient index, and its value;
   0 bits when not. */
static int pair_code(const table *t, uint64_t window, int room, int *advance, int32_t *value) {
    uint32_t e = t->symbols[window >> (64 - LOOKAHEAD)];
    entry code = {(uint8_t)(e & 0xFF), (uint8_t)(e >> 8)};
    if (!e) code = cjpeg_huff_slow_symbol(t, window);
    int size = code.symbol & 15, run = code.symbol >> 4;
    if (code.length == 0 || code.length + size > room) return 0;
    *value = 0;
    if (size == 0) {
        *advance = run == 15 ? 16 : 64;
    } else {
        *advance = run + 1;
        int32_t v = (int32_t)((window << code.length) >> (64 - size));
        *value = v < (1 << (size - 1)) ? v - (1 << size) + 1 : v;
    }
    return code.length + size;
}

void cjpeg_huff_make_pairs(const table *t, uint64_t pairs[1 << PAIR_BITS]) {
    for (int i = 0; i < 1 << PAIR_BITS; i++) {
        uint64_t window = (uint64_t)i << (64 - PAIR_BITS);
        int a1 = 0, a2 = 0;
        int32_t v1 = 0, v2 = 0;
        int used1 = pair_code(t, window, PAIR_BITS, &a1, &v1), used2 = 0;
        if (!used1) {
            pairs[i] = (uint64_t)0xFF << 8;
            continue;
        }
        if (a1 != 64) used2 = pair_code(t, window << used1, PAIR_BITS - used1, &a2, &v2);
        if (!used2) a2 = 0, v2 = 0;
        pairs[i] = (uint64_t)(used1 + used2) | (uint64_t)(used2 ? a1 : 0) << 8 | (uint64_t)(a1 - 1) << 16 |
                   (uint64_t)(a1 + a2 - 1) << 24 | (uint64_t)(uint16_t)v1 << 32 | (uint64_t)(uint16_t)v2 << 48;
    }
}

entry cjpeg_huff_slow_symbol(const table *t, uint64_t bits) {
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
