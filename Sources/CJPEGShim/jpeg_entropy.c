#include "jpeg_entropy.h"
#include "jpeg_huffman.h"

#include <stdlib.h>
#include <string.h>
#include <jerror.h>

/* libjpeg's entropy decoder interface (jpegint.h, not installed). Its layout has been
   the same since libjpeg 6b; libjpeg calls decode_mcu once per MCU in order, with
   zeroed blocks, or with NULL for MCUs it skips (jpeg_skip_scanlines). */
struct jpeg_entropy_decoder {
    void (*start_pass)(j_decompress_ptr cinfo);
    boolean (*decode_mcu)(j_decompress_ptr cinfo, JBLOCKROW *MCU_data);
    boolean insufficient_data;
};

#define MAX_BLOCKS D_MAX_BLOCKS_IN_MCU

/* What decoding one block of an MCU needs, in one place. */
typedef struct {
    const table *dc, *ac;
    const int32_t *fast_dc, *fast_ac;
    uint8_t component;
    /* As libjpeg decides (jdhuff.c): a component it does not output is skipped, and
       one scaled to a sample per block needs its DC term only. */
    uint8_t dc_needed, ac_needed;
} block_info;

/* Decoding state between MCUs: the cursor stands at an MCU's start. Coefficients go
   out as libjpeg's decoder writes them: natural order, not dequantized, the DC term as
   a 16-bit cut of the int predictor. */
typedef struct cjpeg_entropy {
    struct jpeg_entropy_decoder pub;  /* first: libjpeg holds a pointer to it */
    cjpeg_reader *owner;
    table dc[NUM_HUFF_TBLS], ac[NUM_HUFF_TBLS];
    /* Per table, see cjpeg_huff_make_fast. */
    int32_t fast_dc[NUM_HUFF_TBLS][1 << FAST_BITS], fast_ac[NUM_HUFF_TBLS][1 << FAST_BITS];
    int blocks;
    block_info block[MAX_BLOCKS];
    const uint8_t *scan;
    size_t scan_size;
    reader r;
    uint32_t restart_interval, restarts_left;
    int next_marker;
    int32_t predictors[MAX_COMPS_IN_SCAN];
    uint64_t mcu, mcus;
    uint32_t mcus_per_row, column, first_column, last_column;
    /* The libjpeg decompressor that took over, once one has. */
    struct jpeg_decompress_struct *shadow;
} cjpeg_entropy;

static void start_pass(j_decompress_ptr cinfo) { (void)cinfo; }

/* Decodes one MCU into `blocks` (NULL: codes only, predictors still carried). Returns 0,
   changing nothing but coefficients, when the data is not what a conforming encoder
   writes, or the scan's last MCU is not followed by just padding and EOI. */
static int decode_one(cjpeg_entropy *e, JBLOCKROW *blocks) {
    const uint8_t *s = e->scan;
    size_t n = e->scan_size;
    reader r = e->r;
    uint32_t restarts_left = e->restarts_left;
    int next_marker = e->next_marker;
    int32_t pred[MAX_COMPS_IN_SCAN];
    memcpy(pred, e->predictors, sizeof pred);
    if (e->restart_interval && restarts_left == 0) {
        if (!restart(&r, s, n, &next_marker)) return 0;
        restarts_left = e->restart_interval;
        memset(pred, 0, sizeof pred);
    }
    int bad = 0;
    const block_info *info = e->block;
    for (int b = 0, count = e->blocks; b < count; b++, info++) {
        if (r.count < 32) refill(&r, s, n);
        int32_t diff, f = info->fast_dc[r.bits >> (64 - FAST_BITS)];
        if (f) {
            diff = f >> 16;
            consume(&r, f & 0xFF);
        } else {
            diff = dc_difference(info->dc, &r, s, n, &bad);
        }
        JCOEF *block = blocks ? blocks[b][0] : NULL;
        if (info->dc_needed) {
            /* libjpeg's int predictor wraps; the coefficient keeps 16 bits of it. */
            int32_t p = (int32_t)((uint32_t)pred[info->component] + (uint32_t)diff);
            pred[info->component] = p;
            if (block) block[0] = (JCOEF)p;
        }
        if (block && info->ac_needed) {
            const int32_t *fast = info->fast_ac;
            for (int k = 1; k < 64; k++) {
                if (r.count < 32) refill(&r, s, n);
                f = fast[r.bits >> (64 - FAST_BITS)];
                if (f) {
                    k += (f >> 8) & 0xFF;
                    block[cjpeg_huff_natural[k]] = (JCOEF)(f >> 16);
                    consume(&r, f & 0xFF);
                    continue;
                }
                uint32_t sym = next_symbol(info->ac, &r, &bad);
                consume(&r, sym & 0xFF);
                int size = (sym >> 8) & 15, run = (int)(sym >> 12);
                if (size) {
                    /* A run past the end lands on 63, as in libjpeg. */
                    k += run;
                    block[cjpeg_huff_natural[k]] = (JCOEF)take_value(&r, size);
                } else {
                    if (run != 15) break;
                    k += 15;
                }
            }
        } else {
            skip_ac(info->ac, &r, s, n, &bad);
        }
    }
    if (bad || r.count < 0) return 0;
    if (e->mcu + 1 == e->mcus && !(r.count < 8 && r.pos + 1 < n && s[r.pos] == 0xFF && s[r.pos + 1] == 0xD9)) return 0;
    e->r = r;
    e->restarts_left = restarts_left - (e->restart_interval ? 1 : 0);
    e->next_marker = next_marker;
    memcpy(e->predictors, pred, sizeof pred);
    return 1;
}

/* A second decompressor over the same file, at the same scale, whose own entropy
   decoder has read the MCUs this one has: from here on it decodes, so damage is met,
   reported and concealed by libjpeg itself. Errors jump out through the shared error
   manager. */
static void start_shadow(cjpeg_entropy *e, j_decompress_ptr cinfo) {
    cjpeg_reader *owner = e->owner;
    struct jpeg_decompress_struct *sh = calloc(1, sizeof *sh);
    if (!sh) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    sh->err = cinfo->err;
    sh->client_data = owner;
    jpeg_create_decompress(sh);
    e->shadow = sh;
    sh->mem->max_memory_to_use = cinfo->mem->max_memory_to_use;
    /* The header's warnings were reported by the first decompressor already. */
    owner->replaying = 1;
    jpeg_mem_src(sh, owner->data, (unsigned long)owner->size);
    jpeg_read_header(sh, TRUE);
    sh->scale_num = cinfo->scale_num;
    sh->scale_denom = cinfo->scale_denom;
    sh->out_color_space = cinfo->out_color_space;
    jpeg_start_decompress(sh);
    owner->replaying = 0;
    for (uint64_t i = 0; i < e->mcu; i++) sh->entropy->decode_mcu(sh, NULL);
}

static boolean decode_mcu(j_decompress_ptr cinfo, JBLOCKROW *MCU_data) {
    cjpeg_entropy *e = (cjpeg_entropy *)cinfo->entropy;
    if (!e->shadow) {
        /* Blocks libjpeg crops away are never transformed: their codes are enough. */
        int wanted = MCU_data && e->column >= e->first_column && e->column <= e->last_column;
        if (decode_one(e, wanted ? MCU_data : NULL)) {
            e->mcu++;
            if (++e->column == e->mcus_per_row) e->column = 0;
            if (e->mcu == e->mcus) {
                /* libjpeg reads the markers after the scan from the EOI on. */
                cinfo->src->next_input_byte = e->scan + e->r.pos;
                cinfo->src->bytes_in_buffer = e->scan_size - e->r.pos;
            }
            return TRUE;
        }
        if (MCU_data) {
            for (int b = 0; b < e->blocks; b++) memset(MCU_data[b], 0, sizeof(JBLOCK));
        }
        start_shadow(e, cinfo);
    }
    struct jpeg_decompress_struct *sh = e->shadow;
    boolean done = sh->entropy->decode_mcu(sh, MCU_data);
    e->pub.insufficient_data = sh->entropy->insufficient_data;
    cinfo->src->next_input_byte = sh->src->next_input_byte;
    cinfo->src->bytes_in_buffer = sh->src->bytes_in_buffer;
    cinfo->unread_marker = sh->unread_marker;
    return done;
}

int cjpeg_entropy_install(cjpeg_reader *owner, uint32_t crop_x) {
    j_decompress_ptr ci = &owner->cinfo;
    if (owner->entropy || !owner->data || !cjpeg_single_sequential_scan(ci) || ci->comps_in_scan > MAX_COMPS_IN_SCAN ||
        ci->blocks_in_MCU > MAX_BLOCKS || ci->unread_marker != 0 ||
        ci->src->bytes_in_buffer == 0 || ci->src->next_input_byte < owner->data ||
        ci->src->next_input_byte + ci->src->bytes_in_buffer != owner->data + owner->size ||
        ci->output_scanline != 0) {
        return 0;
    }
    cjpeg_entropy *e = calloc(1, sizeof *e);
    if (!e) return 0;
    e->owner = owner;
    int made_dc[NUM_HUFF_TBLS] = {0}, made_ac[NUM_HUFF_TBLS] = {0};
    for (int c = 0; c < ci->comps_in_scan; c++) {
        const jpeg_component_info *comp = ci->cur_comp_info[c];
        int d = comp->dc_tbl_no, a = comp->ac_tbl_no;
        if (d < 0 || d >= NUM_HUFF_TBLS || a < 0 || a >= NUM_HUFF_TBLS || !ci->dc_huff_tbl_ptrs[d] ||
            !ci->ac_huff_tbl_ptrs[a]) {
            free(e);
            return 0;
        }
        if (!made_dc[d]) {
            made_dc[d] = cjpeg_huff_make_table(&e->dc[d], ci->dc_huff_tbl_ptrs[d]->bits, ci->dc_huff_tbl_ptrs[d]->huffval, 1);
            if (made_dc[d]) cjpeg_huff_make_fast(&e->dc[d], e->fast_dc[d], 0);
        }
        if (!made_ac[a]) {
            made_ac[a] = cjpeg_huff_make_table(&e->ac[a], ci->ac_huff_tbl_ptrs[a]->bits, ci->ac_huff_tbl_ptrs[a]->huffval, 0);
            if (made_ac[a]) cjpeg_huff_make_fast(&e->ac[a], e->fast_ac[a], 1);
        }
        if (!made_dc[d] || !made_ac[a]) {
            free(e);
            return 0;
        }
    }
    e->blocks = ci->blocks_in_MCU;
    for (int b = 0; b < e->blocks; b++) {
        int c = ci->MCU_membership[b];
        const jpeg_component_info *comp = ci->cur_comp_info[c];
        block_info *info = &e->block[b];
        info->component = (uint8_t)c;
        info->dc = &e->dc[comp->dc_tbl_no];
        info->ac = &e->ac[comp->ac_tbl_no];
        info->fast_dc = e->fast_dc[comp->dc_tbl_no];
        info->fast_ac = e->fast_ac[comp->ac_tbl_no];
        info->dc_needed = comp->component_needed != 0;
        info->ac_needed = comp->component_needed && comp->DCT_scaled_size > 1;
    }
    e->scan = ci->src->next_input_byte;
    e->scan_size = ci->src->bytes_in_buffer;
    e->restart_interval = ci->restart_interval;
    e->restarts_left = ci->restart_interval;
    e->mcus_per_row = ci->MCUs_per_row;
    e->mcus = (uint64_t)ci->MCUs_per_row * ci->MCU_rows_in_scan;
    /* The iMCU columns jpeg_crop_scanline keeps (it moved crop_x to the start of one),
       widened by one either side. */
    unsigned align = (unsigned)ci->min_DCT_scaled_size * (ci->comps_in_scan == 1 ? 1u : (unsigned)ci->max_h_samp_factor);
    uint32_t first = crop_x / align, last = (uint32_t)(((uint64_t)crop_x + ci->output_width + align - 1) / align);
    e->first_column = first > 0 ? first - 1 : 0;
    e->last_column = last;
    e->pub.start_pass = start_pass;
    e->pub.decode_mcu = decode_mcu;
    ci->entropy = &e->pub;
    owner->entropy = e;
    return 1;
}

void cjpeg_entropy_free(cjpeg_reader *owner) {
    cjpeg_entropy *e = owner->entropy;
    if (!e) return;
    if (e->shadow) {
        jpeg_destroy_decompress(e->shadow);
        free(e->shadow);
    }
    free(e);
    owner->entropy = NULL;
}
