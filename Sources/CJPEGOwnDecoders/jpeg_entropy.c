#include "jpeg_entropy.h"
#include "jpeg_huffman.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <jerror.h>

int cjpeg_own_decoders_built(void) { return CJPEG_OWN_DECODERS; }

#if CJPEG_OWN_DECODERS

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
    const int32_t *fast_dc;
    const uint64_t *pairs;
    uint8_t component;
    /* As libjpeg decides (jdhuff.c): a component it does not output is skipped, and
       one scaled to a sample per block needs its DC term only. */
    uint8_t dc_needed, ac_needed;
} block_info;

/* Where decoding stands, at an MCU's start. */
typedef struct {
    reader r;
    uint32_t restarts_left;
    int next_marker;
    int32_t predictors[MAX_COMPS_IN_SCAN];
    uint64_t mcu;
    uint32_t column;
} cursor;

/* Pages of decoded MCUs passed from the producing thread to libjpeg's. An MCU is a
   count, then per coefficient (block * 64 + natural index) << 16 | its 16 bits; an MCU
   libjpeg crops away has none. Whole MCUs only: at most PAGE_ROOM words each. */
#define PAGE_WORDS (1 << 16)
#define PAGE_ROOM (1 + 64 * MAX_BLOCKS)
#define PAGES 8
typedef struct {
    uint32_t words[PAGE_WORDS];
    uint32_t mcus;
} page;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    page pages[PAGES];
    /* Under the lock: pages published and pages given back; the producer's end. */
    uint64_t produced, released;
    int stopped, cancelled;
    /* The producer's cursor: once stopped, at the MCU it could not decode (or the end). */
    cursor at;
    /* libjpeg's thread's alone: while `reading`, page `released` is its, with the next
       MCU at `word` and `left` MCUs to go. */
    uint32_t word, left;
    int reading;
} pipe_state;

/* Decoding state between MCUs. Coefficients go out as libjpeg's decoder writes them:
   natural order, not dequantized, the DC term as a 16-bit cut of the int predictor. */
typedef struct cjpeg_entropy {
    struct jpeg_entropy_decoder pub;  /* first: libjpeg holds a pointer to it */
    cjpeg_reader *owner;
    table dc[NUM_HUFF_TBLS], ac[NUM_HUFF_TBLS];
    /* Per table, see cjpeg_huff_make_fast (DC) and cjpeg_huff_make_pairs (AC). */
    int32_t fast_dc[NUM_HUFF_TBLS][1 << FAST_BITS];
    uint64_t pairs[NUM_HUFF_TBLS][1 << PAIR_BITS];
    int blocks;
    block_info block[MAX_BLOCKS];
    const uint8_t *scan;
    size_t scan_size;
    uint32_t restart_interval;
    uint64_t mcus;
    uint32_t mcus_per_row, first_column, last_column;
    /* libjpeg's place: what decode_mcu has given it. */
    cursor at;
    /* Pages from another thread decoding ahead (cjpeg_reader_produce), while `piped`. */
    pipe_state *pipe;
    int piped;
    /* The libjpeg decompressor that took over, once one has. */
    struct jpeg_decompress_struct *shadow;
} cjpeg_entropy;

static void start_pass(j_decompress_ptr cinfo) { (void)cinfo; }

/* Decodes the MCU at `c` into `blocks` (NULL: codes only, predictors still carried),
   or as coefficient words into `words` when not NULL. Returns the words written plus
   one and moves `c` on; 0, changing nothing but coefficients, when the data is not
   what a conforming encoder writes, or the scan's last MCU is not followed by just
   padding and EOI. Inlined into each caller, so each decodes to its own form. */
static inline __attribute__((always_inline)) uint32_t decode_one(const cjpeg_entropy *e, cursor *c, JBLOCKROW *blocks,
                                                                 uint32_t *words) {
    const uint8_t *s = e->scan;
    size_t n = e->scan_size;
    reader r = c->r;
    uint32_t restarts_left = c->restarts_left;
    int next_marker = c->next_marker;
    int32_t pred[MAX_COMPS_IN_SCAN];
    memcpy(pred, c->predictors, sizeof pred);
    if (e->restart_interval && restarts_left == 0) {
        if (!restart(&r, s, n, &next_marker)) return 0;
        restarts_left = e->restart_interval;
        memset(pred, 0, sizeof pred);
    }
    int bad = 0;
    uint32_t count = 0;
    const block_info *info = e->block;
    for (int b = 0, blocks_in_mcu = e->blocks; b < blocks_in_mcu; b++, info++) {
        int32_t diff = fast_dc_difference(info->dc, info->fast_dc, &r, s, n, &bad);
        JCOEF *block = blocks ? blocks[b][0] : NULL;
        uint32_t at = (uint32_t)b << 22;
        if (info->dc_needed) {
            /* libjpeg's int predictor wraps; the coefficient keeps 16 bits of it. */
            int32_t p = (int32_t)((uint32_t)pred[info->component] + (uint32_t)diff);
            pred[info->component] = p;
            if (block) block[0] = (JCOEF)p;
            if (words) words[count++] = at | (uint16_t)p;
        }
        if (block && info->ac_needed) {
            /* A zero (the end of a run of 16 or of the block) is stored harmlessly. */
#define STORE_IN_BLOCK(position, value) (block[(position)] = (JCOEF)(value))
            DECODE_AC_PAIRS(info->ac, info->pairs, &r, s, n, &bad, STORE_IN_BLOCK);
#undef STORE_IN_BLOCK
        } else if (words && info->ac_needed) {
            /* Zeros are not words. */
#define STORE_AS_WORD(position, value)                                                    \
    do {                                                                                  \
        int32_t value_ = (value);                                                         \
        if (value_) words[count++] = at | (uint32_t)(position) << 16 | (uint16_t)value_; \
    } while (0)
            DECODE_AC_PAIRS(info->ac, info->pairs, &r, s, n, &bad, STORE_AS_WORD);
#undef STORE_AS_WORD
        } else {
            skip_ac(info->ac, &r, s, n, &bad);
        }
    }
    if (bad || r.count < 0) return 0;
    if (c->mcu + 1 == e->mcus && !(r.count < 8 && r.pos + 1 < n && s[r.pos] == 0xFF && s[r.pos + 1] == 0xD9)) return 0;
    c->r = r;
    c->restarts_left = restarts_left - (e->restart_interval ? 1 : 0);
    c->next_marker = next_marker;
    memcpy(c->predictors, pred, sizeof pred);
    c->mcu++;
    if (++c->column == e->mcus_per_row) c->column = 0;
    return count + 1;
}

static int wanted_column(const cjpeg_entropy *e, uint32_t column) {
    return column >= e->first_column && column <= e->last_column;
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
    for (uint64_t i = 0; i < e->at.mcu; i++) sh->entropy->decode_mcu(sh, NULL);
}

/* The next MCU's words from the producer, waiting for a page when needed; NULL when
   it stopped before this MCU (its cursor is then libjpeg's place). */
static const uint32_t *take(pipe_state *p) {
    if (p->left == 0) {
        pthread_mutex_lock(&p->lock);
        if (p->reading) {
            p->released++;
            pthread_cond_broadcast(&p->changed);
        }
        p->reading = 0;
        while (p->produced == p->released && !p->stopped) pthread_cond_wait(&p->changed, &p->lock);
        if (p->produced > p->released) {
            p->reading = 1;
            p->word = 0;
            p->left = p->pages[p->released % PAGES].mcus;
        }
        pthread_mutex_unlock(&p->lock);
        if (!p->reading) return NULL;
    }
    const uint32_t *w = p->pages[p->released % PAGES].words + p->word;
    p->word += 1 + w[0];
    p->left--;
    return w;
}

static void finish_scan(cjpeg_entropy *e, j_decompress_ptr cinfo) {
    /* libjpeg reads the markers after the scan from the EOI on. */
    cinfo->src->next_input_byte = e->scan + e->at.r.pos;
    cinfo->src->bytes_in_buffer = e->scan_size - e->at.r.pos;
}

static boolean decode_mcu(j_decompress_ptr cinfo, JBLOCKROW *MCU_data) {
    cjpeg_entropy *e = (cjpeg_entropy *)cinfo->entropy;
    if (e->piped) {
        const uint32_t *w = take(e->pipe);
        if (w) {
            if (MCU_data) {
                for (uint32_t i = 1; i <= w[0]; i++) MCU_data[w[i] >> 22][0][(w[i] >> 16) & 63] = (JCOEF)(w[i] & 0xFFFF);
            }
            if (++e->at.mcu == e->mcus) {
                e->at = e->pipe->at;
                finish_scan(e, cinfo);
            }
            return TRUE;
        }
        /* The producer stopped here: from its cursor on this thread decodes, and meets
           what stopped it (the shadow decompressor's business) as without a producer. */
        e->at = e->pipe->at;
        e->piped = 0;
    }
    if (!e->shadow) {
        /* Blocks libjpeg crops away are never transformed: their codes are enough. */
        int wanted = MCU_data && wanted_column(e, e->at.column);
        if (decode_one(e, &e->at, wanted ? MCU_data : NULL, NULL)) {
            if (e->at.mcu == e->mcus) finish_scan(e, cinfo);
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

int cjpeg_reader_pipeline(cjpeg_reader *owner, uint64_t min_mcus) {
    cjpeg_entropy *e = owner->entropy;
    if (!e || e->pipe || e->shadow || e->at.mcu != 0 || e->mcus == 0 || e->mcus < min_mcus) return 0;
    pipe_state *p = calloc(1, sizeof *p);
    if (!p) return 0;
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        return 0;
    }
    if (pthread_cond_init(&p->changed, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        free(p);
        return 0;
    }
    p->at = e->at;
    e->pipe = p;
    e->piped = 1;
    return 1;
}

void cjpeg_reader_produce(cjpeg_reader *owner) {
    cjpeg_entropy *e = owner->entropy;
    pipe_state *p = e ? e->pipe : NULL;
    if (!p) return;
    /* The cursor is this thread's; libjpeg's thread takes it with the last page. */
    cursor c = p->at;
    for (int more = 1; more;) {
        pthread_mutex_lock(&p->lock);
        while (p->produced - p->released == PAGES && !p->cancelled) pthread_cond_wait(&p->changed, &p->lock);
        int cancelled = p->cancelled;
        pthread_mutex_unlock(&p->lock);
        if (cancelled) break;
        page *pg = &p->pages[p->produced % PAGES];
        uint32_t used = 0, mcus = 0;
        while (more && used + PAGE_ROOM <= PAGE_WORDS) {
            uint32_t *w = pg->words + used;
            uint32_t made = wanted_column(e, c.column) ? decode_one(e, &c, NULL, w + 1) : decode_one(e, &c, NULL, NULL);
            if (made) {
                w[0] = made - 1;
                used += made;
                mcus++;
            }
            more = made && c.mcu < e->mcus;
        }
        pg->mcus = mcus;
        pthread_mutex_lock(&p->lock);
        if (mcus) p->produced++;
        if (!more) {
            p->at = c;
            p->stopped = 1;
        }
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->lock);
    }
}

void cjpeg_reader_stop_producing(cjpeg_reader *owner) {
    cjpeg_entropy *e = owner->entropy;
    pipe_state *p = e ? e->pipe : NULL;
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->cancelled = 1;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
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
            if (made_ac[a]) cjpeg_huff_make_pairs(&e->ac[a], e->pairs[a]);
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
        info->pairs = e->pairs[comp->ac_tbl_no];
        info->dc_needed = comp->component_needed != 0;
        info->ac_needed = comp->component_needed && comp->DCT_scaled_size > 1;
    }
    e->scan = ci->src->next_input_byte;
    e->scan_size = ci->src->bytes_in_buffer;
    e->restart_interval = ci->restart_interval;
    e->at.restarts_left = ci->restart_interval;
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
    if (e->pipe) {
        pthread_cond_destroy(&e->pipe->changed);
        pthread_mutex_destroy(&e->pipe->lock);
        free(e->pipe);
    }
    free(e);
    owner->entropy = NULL;
}

#else

/* Another libjpeg: its own entropy decoder decodes every file. */
int cjpeg_reader_pipeline(cjpeg_reader *owner, uint64_t min_mcus) { (void)owner; (void)min_mcus; return 0; }
void cjpeg_reader_produce(cjpeg_reader *owner) { (void)owner; }
void cjpeg_reader_stop_producing(cjpeg_reader *owner) { (void)owner; }
int cjpeg_entropy_install(cjpeg_reader *owner, uint32_t crop_x) { (void)owner; (void)crop_x; return 0; }
void cjpeg_entropy_free(cjpeg_reader *owner) { (void)owner; }

#endif
