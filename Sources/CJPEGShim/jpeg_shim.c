#include "jpeg_shim.h"
#include "jpeg_entropy.h"
#include "jpeg_reader.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

static void shim_error_exit(j_common_ptr cinfo) {
    shim_error_mgr *e = (shim_error_mgr *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    e->base.format_message(cinfo, text);
    /* Precision and process errors get a plain statement of what is unsupported
       in front of libjpeg's own words. */
    if (e->base.msg_code == JERR_NO_BACKING_STORE) {
        snprintf(e->message, sizeof e->message,
                 "decoding needs more memory than the budget of %ld bytes allows (libjpeg: %s)",
                 cinfo->mem->max_memory_to_use, text);
    } else if (e->base.msg_code == JERR_BAD_PRECISION) {
        snprintf(e->message, sizeof e->message,
                 "%d-bit JPEG is not supported, only 8-bit (libjpeg: %s)", cinfo->err->msg_parm.i[0], text);
    } else if (e->base.msg_code == JERR_SOF_UNSUPPORTED && cinfo->err->msg_parm.i[0] == 0xc3) {
        snprintf(e->message, sizeof e->message, "lossless JPEG is not supported (libjpeg: %s)", text);
    } else {
        snprintf(e->message, sizeof e->message, "%s", text);
    }
    longjmp(e->jump, 1);
}

/* libjpeg reports truncated and corrupt entropy data as warnings and fills the rest
   of the picture with grey. A thumbnail of half a photo is worse than an error, so by
   default every warning fails the decode; the reader's fail_severity says from which
   severity on (CJPEG_SEVERITY_*), and a warning below it is counted, its first message
   kept for the caller to report, and libjpeg goes on. */
static int severity(int code) {
    switch (code) {
    case JWRN_JPEG_EOF:
        return CJPEG_SEVERITY_TRUNCATED;
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_BOGUS_PROGRESSION:
        return CJPEG_SEVERITY_ERROR;
    default:
        return CJPEG_SEVERITY_WARNING;
    }
}

static void shim_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) {
        return;
    }
    cjpeg_reader *r = (cjpeg_reader *)cinfo->client_data;
    if (r && r->replaying) {
        return;
    }
    if (!r || severity(cinfo->err->msg_code) >= r->fail_severity) {
        if (r) r->failed_severity = severity(cinfo->err->msg_code);
        cinfo->err->error_exit(cinfo);
    }
    if (r->tolerated++ == 0) {
        cinfo->err->format_message(cinfo, r->first_warning);
    }
    cinfo->err->num_warnings++;
}

static void shim_output_message(j_common_ptr cinfo) {
    (void)cinfo;
}

static void init_error(shim_error_mgr *e) {
    jpeg_std_error(&e->base);
    e->base.error_exit = shim_error_exit;
    e->base.emit_message = shim_emit_message;
    e->base.output_message = shim_output_message;
    e->message[0] = 0;
}

static void copy_message(char *err, size_t err_size, const char *message) {
    if (err && err_size) {
        snprintf(err, err_size, "%s", message);
    }
}


/* Each progressive scan is a pass over the blocks of its components, so a file of
   thousands of tiny scans, or of a few hundred over a huge image, takes minutes to
   decode (libjpeg-turbo's known slow path). Real encoders write about 10 scans; 500 is
   libjpeg-turbo's own suggested limit (tjbench, fuzzers). And the blocks all scans visit
   may add up to 32 passes over the whole image plus 16M blocks (a third of a second at
   libjpeg's ~20 ns a block): a 12 MP photo's ten scans visit about 1.3M blocks. */
#define MAX_SCANS 500
#define SCAN_BLOCK_PASSES 32
#define SCAN_BLOCK_SLACK (16u << 20)

static void scan_limit(j_common_ptr cinfo) {
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    cjpeg_reader *r = (cjpeg_reader *)((char *)d - offsetof(cjpeg_reader, cinfo));
    shim_error_mgr *e = (shim_error_mgr *)cinfo->err;
    if (d->input_scan_number > MAX_SCANS) {
        snprintf(e->message, sizeof e->message, "more than %d progressive scans; refusing a decode that could take minutes", MAX_SCANS);
        longjmp(e->jump, 1);
    }
    if (d->input_scan_number != r->last_scan) {
        r->last_scan = d->input_scan_number;
        for (int i = 0; i < d->comps_in_scan; i++) {
            jpeg_component_info *c = d->cur_comp_info[i];
            r->blocks_visited += (uint64_t)c->width_in_blocks * c->height_in_blocks;
        }
        if (r->blocks_visited > r->max_blocks_visited) {
            snprintf(e->message, sizeof e->message,
                     "%d scans add up to more than %d passes over the image; refusing a decode that could take minutes",
                     d->input_scan_number, SCAN_BLOCK_PASSES);
            longjmp(e->jump, 1);
        }
    }
}

#define ICC_MARKER (JPEG_APP0 + 2)
#define EXIF_MARKER (JPEG_APP0 + 1)
/* The XMP namespace that opens an APP1 XMP segment, NUL included. */
#define XMP_HEADER "http://ns.adobe.com/xap/1.0/"
#define XMP_HEADER_LENGTH 29

/* An ICC profile may span several APP2 segments, each "ICC_PROFILE\0" + seq + count. */
static void collect_icc(cjpeg_reader *r, cjpeg_info *info) {
    enum { HEADER = 14 };
    jpeg_saved_marker_ptr m;
    int count = 0;
    size_t total = 0;
    size_t sizes[256] = {0};
    const uint8_t *parts[256] = {0};
    for (m = r->cinfo.marker_list; m; m = m->next) {
        if (m->marker != ICC_MARKER || m->data_length < HEADER ||
            memcmp(m->data, "ICC_PROFILE\0", 12) != 0) {
            continue;
        }
        int seq = m->data[12];
        int n = m->data[13];
        if (seq == 0 || n == 0 || seq > n || (count && n != count) || parts[seq]) {
            return;
        }
        count = n;
        parts[seq] = m->data + HEADER;
        sizes[seq] = m->data_length - HEADER;
        total += sizes[seq];
    }
    if (!count || total == 0 || total > 0xffffffffu) {
        return;
    }
    for (int i = 1; i <= count; i++) {
        if (!parts[i]) {
            return;
        }
    }
    r->icc = malloc(total);
    if (!r->icc) {
        return;
    }
    size_t at = 0;
    for (int i = 1; i <= count; i++) {
        memcpy(r->icc + at, parts[i], sizes[i]);
        at += sizes[i];
    }
    info->icc = r->icc;
    info->icc_length = (uint32_t)total;
}

cjpeg_reader *cjpeg_reader_open(const uint8_t *data, size_t size, size_t max_memory, int fail_severity,
                                cjpeg_info *info, char *err, size_t err_size) {
    cjpeg_reader *r = calloc(1, sizeof *r);
    if (!r) {
        copy_message(err, err_size, "out of memory");
        return NULL;
    }
    init_error(&r->error);
    r->cinfo.err = &r->error.base;
    if (setjmp(r->error.jump)) {
        copy_message(err, err_size, r->error.message);
        info->failed_severity = r->failed_severity;
        cjpeg_reader_close(r);
        return NULL;
    }
    jpeg_create_decompress(&r->cinfo);
    r->cinfo.client_data = r;
    r->fail_severity = fail_severity;
    /* libjpeg's own budget: with no backing store (jmemnobs), a whole-image buffer
       beyond it fails with JERR_NO_BACKING_STORE instead of being allocated. */
    r->cinfo.mem->max_memory_to_use = max_memory > (size_t)LONG_MAX ? LONG_MAX : (long)max_memory;
    r->progress.progress_monitor = scan_limit;
    r->cinfo.progress = &r->progress;
    r->data = data;
    r->size = size;
    jpeg_mem_src(&r->cinfo, data, (unsigned long)size);
    jpeg_save_markers(&r->cinfo, EXIF_MARKER, 0xffff);
    jpeg_save_markers(&r->cinfo, ICC_MARKER, 0xffff);
    /* Comments are only counted, for `info`; keep none of their bytes. */
    jpeg_save_markers(&r->cinfo, JPEG_COM, 0);
    jpeg_read_header(&r->cinfo, TRUE);

    memset(info, 0, sizeof *info);
    info->width = r->cinfo.image_width;
    info->height = r->cinfo.image_height;
    info->components = r->cinfo.num_components;
    info->progressive = r->cinfo.progressive_mode;
    info->arithmetic = r->cinfo.arith_code;
    switch (r->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
        info->color = CJPEG_COLOR_GRAY;
        break;
    case JCS_YCbCr:
    case JCS_RGB:
        info->color = CJPEG_COLOR_RGB;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        info->color = CJPEG_COLOR_CMYK;
        break;
    default:
        snprintf(r->error.message, sizeof r->error.message,
                 "unsupported JPEG colour space with %d components", r->cinfo.num_components);
        copy_message(err, err_size, r->error.message);
        cjpeg_reader_close(r);
        return NULL;
    }
    info->adobe_inverted = r->cinfo.saw_Adobe_marker;
    /* Progressive and multi-scan files keep every coefficient of the image (a JBLOCK of
       64 shorts per 8x8 block) until the last scan; the rest decode an iMCU row at a time. */
    uint64_t blocks = 0;
    for (int i = 0; i < r->cinfo.num_components; i++) {
        jpeg_component_info *c = &r->cinfo.comp_info[i];
        blocks += (uint64_t)c->width_in_blocks * c->height_in_blocks;
    }
    r->max_blocks_visited = blocks * SCAN_BLOCK_PASSES + SCAN_BLOCK_SLACK;
    if (r->cinfo.progressive_mode || r->cinfo.comps_in_scan < r->cinfo.num_components) {
        info->coefficient_bytes = blocks * sizeof(JBLOCK);
    }
    for (jpeg_saved_marker_ptr m = r->cinfo.marker_list; m; m = m->next) {
        if (m->marker == EXIF_MARKER && !info->exif && m->data_length >= 6 &&
            memcmp(m->data, "Exif\0\0", 6) == 0) {
            info->exif = m->data + 6;
            info->exif_length = m->data_length - 6;
        } else if (m->marker == EXIF_MARKER && !info->xmp && m->data_length >= XMP_HEADER_LENGTH &&
                   memcmp(m->data, XMP_HEADER, XMP_HEADER_LENGTH) == 0) {
            info->xmp = m->data + XMP_HEADER_LENGTH;
            info->xmp_length = m->data_length - XMP_HEADER_LENGTH;
        } else if (m->marker == JPEG_COM) {
            info->comments++;
        }
    }
    collect_icc(r, info);
    return r;
}

static void choose_output(cjpeg_reader *r, int scale_denom) {
    switch (r->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
        r->cinfo.out_color_space = JCS_GRAYSCALE;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        r->cinfo.out_color_space = JCS_CMYK;
        break;
    default:
        r->cinfo.out_color_space = JCS_RGB;
        break;
    }
    r->cinfo.scale_num = 1;
    r->cinfo.scale_denom = (unsigned int)scale_denom;
}

static void describe_output(cjpeg_reader *r, cjpeg_output *output) {
    output->width = r->cinfo.output_width;
    output->height = r->cinfo.output_height;
    output->channels = r->cinfo.output_components;
}

void cjpeg_reader_libjpeg_only(cjpeg_reader *r) { r->libjpeg_only = 1; }

int cjpeg_reader_start(cjpeg_reader *r, int scale_denom, uint32_t crop_x, uint32_t crop_width,
                       cjpeg_output *output, char *err, size_t err_size) {
    if (setjmp(r->error.jump)) {
        copy_message(err, err_size, r->error.message);
        return -1;
    }
    choose_output(r, scale_denom);
    jpeg_start_decompress(&r->cinfo);
    r->started = 1;
    return cjpeg_reader_crop(r, crop_x, crop_width, output, err, err_size);
}

int cjpeg_reader_crop(cjpeg_reader *r, uint32_t crop_x, uint32_t crop_width,
                      cjpeg_output *output, char *err, size_t err_size) {
    if (setjmp(r->error.jump)) {
        copy_message(err, err_size, r->error.message);
        return -1;
    }
    output->x_offset = 0;
    /* Written so that no sum can wrap in 32 bits. */
    if (crop_width > 0 && crop_width < r->cinfo.output_width &&
        crop_x <= r->cinfo.output_width - crop_width) {
        JDIMENSION x = crop_x, w = crop_width;
        jpeg_crop_scanline(&r->cinfo, &x, &w);
        output->x_offset = x;
    }
    if (!r->libjpeg_only) cjpeg_entropy_install(r, output->x_offset);
    describe_output(r, output);
    return 0;
}

/* libjpeg's choice of a component's IDCT size at 1/8 (jdmaster.c): chroma is scaled
   up in the IDCT by powers of two while that leaves whole upsampling ratios. */
static int eighth_scaled(int h, int v, int max_h, int max_v) {
    int size = 1;
    while (size < 8 && max_h % (h * size * 2) == 0 && max_v % (v * size * 2) == 0) size *= 2;
    return size;
}

int cjpeg_reader_start_eighth(cjpeg_reader *r, cjpeg_eighth_layout *layout, cjpeg_output *output,
                              char *err, size_t err_size) {
    if (setjmp(r->error.jump)) {
        copy_message(err, err_size, r->error.message);
        return -1;
    }
    struct jpeg_decompress_struct *ci = &r->cinfo;
    int fast = cjpeg_single_sequential_scan(ci) &&
               ((ci->num_components == 1 && ci->jpeg_color_space == JCS_GRAYSCALE) ||
                (ci->num_components == 3 && ci->jpeg_color_space == JCS_YCbCr));
    memset(layout, 0, sizeof *layout);
    layout->components = ci->num_components;
    layout->max_h = layout->max_v = 1;
    for (int c = 0; fast && c < ci->num_components; c++) {
        jpeg_component_info *comp = &ci->comp_info[c];
        /* The scan header's table numbers (0-15 as read) are not checked by libjpeg
           until its own decoder starts: a number past 3 would index past the tables. */
        fast = ci->cur_comp_info[c] == comp && comp->quant_tbl_no >= 0 && comp->quant_tbl_no < NUM_QUANT_TBLS &&
               ci->quant_tbl_ptrs[comp->quant_tbl_no] != NULL && comp->dc_tbl_no >= 0 &&
               comp->dc_tbl_no < NUM_HUFF_TBLS && comp->ac_tbl_no >= 0 && comp->ac_tbl_no < NUM_HUFF_TBLS &&
               ci->dc_huff_tbl_ptrs[comp->dc_tbl_no] != NULL && ci->ac_huff_tbl_ptrs[comp->ac_tbl_no] != NULL;
        if (!fast) break;
        /* A lone component's scan is not interleaved: one block per MCU. */
        int h = ci->num_components == 1 ? 1 : comp->h_samp_factor, v = ci->num_components == 1 ? 1 : comp->v_samp_factor;
        layout->comp[c].h = (uint8_t)h;
        layout->comp[c].v = (uint8_t)v;
        if (h > layout->max_h) layout->max_h = (uint8_t)h;
        if (v > layout->max_v) layout->max_v = (uint8_t)v;
        layout->comp[c].dc_table = (uint8_t)comp->dc_tbl_no;
        layout->comp[c].ac_table = (uint8_t)comp->ac_tbl_no;
        const JQUANT_TBL *q = ci->quant_tbl_ptrs[comp->quant_tbl_no];
        for (int i = 0; i < 64; i++) {
            /* libjpeg-turbo's SIMD IDCTs hold quantizers in 16 signed bits. */
            if (q->quantval[i] > 32767) fast = 0;
            layout->comp[c].quant[i] = q->quantval[i];
        }
        const JHUFF_TBL *dc = ci->dc_huff_tbl_ptrs[comp->dc_tbl_no], *ac = ci->ac_huff_tbl_ptrs[comp->ac_tbl_no];
        memcpy(layout->dc_bits[comp->dc_tbl_no], dc->bits, 17);
        memcpy(layout->dc_values[comp->dc_tbl_no], dc->huffval, 256);
        memcpy(layout->ac_bits[comp->ac_tbl_no], ac->bits, 17);
        memcpy(layout->ac_values[comp->ac_tbl_no], ac->huffval, 256);
    }
    for (int c = 0; fast && c < ci->num_components; c++) {
        cjpeg_eighth_component *comp = &layout->comp[c];
        comp->scaled = (uint8_t)eighth_scaled(comp->h, comp->v, layout->max_h, layout->max_v);
        fast = comp->scaled <= 2 && layout->max_h % (comp->h * comp->scaled) == 0 &&
               layout->max_v % (comp->v * comp->scaled) == 0;
    }
    choose_output(r, 8);
    jpeg_start_decompress(ci);
    r->started = 1;
    describe_output(r, output);
    output->x_offset = 0;
    if (!fast || ci->unread_marker != 0 || ci->src->bytes_in_buffer == 0) return 0;
    /* What libjpeg settled on must be what the fast path assumed. */
    for (int c = 0; c < ci->num_components; c++) {
        jpeg_component_info *comp = &ci->comp_info[c];
        if (comp->DCT_scaled_size != layout->comp[c].scaled || comp->quant_table == NULL ||
            memcmp(comp->quant_table->quantval, layout->comp[c].quant, sizeof layout->comp[c].quant) != 0) {
            return 0;
        }
    }
    layout->mcus_per_row = ci->MCUs_per_row;
    layout->mcu_rows = ci->MCU_rows_in_scan;
    layout->restart_interval = ci->restart_interval;
    layout->out_width = ci->output_width;
    layout->out_height = ci->output_height;
    layout->scan = ci->src->next_input_byte;
    layout->scan_size = ci->src->bytes_in_buffer;
    return 1;
}

int cjpeg_reader_read(cjpeg_reader *r, uint8_t *pixels, size_t stride, uint32_t max_rows,
                      char *err, size_t err_size) {
    /* volatile: read after a longjmp back into this frame. */
    volatile uint32_t done = 0;
    if (setjmp(r->error.jump)) {
        copy_message(err, err_size, r->error.message);
        return -1;
    }
    /* Up to 16 rows a call: libjpeg emits a whole iMCU row (8 or 16 lines at full
       size) at once, and fewer calls cost less than one per line. */
    while (done < max_rows && r->cinfo.output_scanline < r->cinfo.output_height) {
        JSAMPROW rows[16];
        uint32_t n = max_rows - done < 16 ? max_rows - done : 16;
        for (uint32_t i = 0; i < n; i++) {
            rows[i] = pixels + (size_t)(done + i) * stride;
        }
        done += jpeg_read_scanlines(&r->cinfo, rows, n);
    }
    return (int)done;
}

int cjpeg_reader_tolerated(const cjpeg_reader *r, char *first, size_t first_size) {
    if (r->tolerated) {
        copy_message(first, first_size, r->first_warning);
    }
    return r->tolerated;
}

int cjpeg_reader_failed_severity(const cjpeg_reader *r) { return r->failed_severity; }

int cjpeg_reader_skip(cjpeg_reader *r, uint32_t rows, char *err, size_t err_size) {
    if (setjmp(r->error.jump)) {
        copy_message(err, err_size, r->error.message);
        return -1;
    }
    return (int)jpeg_skip_scanlines(&r->cinfo, rows);
}

int cjpeg_reader_finish(cjpeg_reader *r, char *err, size_t err_size) {
    if (setjmp(r->error.jump)) {
        copy_message(err, err_size, r->error.message);
        return -1;
    }
    while (r->cinfo.output_scanline < r->cinfo.output_height) {
        if (jpeg_skip_scanlines(&r->cinfo, r->cinfo.output_height - r->cinfo.output_scanline) == 0) {
            break;
        }
    }
    jpeg_finish_decompress(&r->cinfo);
    r->started = 0;
    return 0;
}

void cjpeg_reader_close(cjpeg_reader *r) {
    if (!r) {
        return;
    }
    /* jpeg_destroy never reports an error, so no jump target is needed here. */
    jpeg_destroy_decompress(&r->cinfo);
    cjpeg_entropy_free(r);
    free(r->icc);
    free(r);
}

/* ICC profiles go in APP2 segments of at most 65519 bytes of payload each. */
static void write_icc(j_compress_ptr cinfo, const uint8_t *icc, uint32_t length) {
    enum { MAX_PART = 65533 - 14 };
    unsigned count = (length + MAX_PART - 1) / MAX_PART;
    if (count == 0 || count > 255) {
        return;
    }
    for (unsigned i = 0; i < count; i++) {
        unsigned part = length - i * MAX_PART;
        if (part > MAX_PART) {
            part = MAX_PART;
        }
        jpeg_write_m_header(cinfo, ICC_MARKER, part + 14);
        const char *tag = "ICC_PROFILE";
        for (int c = 0; c < 12; c++) {
            jpeg_write_m_byte(cinfo, tag[c]);
        }
        jpeg_write_m_byte(cinfo, (int)(i + 1));
        jpeg_write_m_byte(cinfo, (int)count);
        for (unsigned b = 0; b < part; b++) {
            jpeg_write_m_byte(cinfo, icc[i * MAX_PART + b]);
        }
    }
}

struct cjpeg_writer {
    struct jpeg_compress_struct cinfo;
    shim_error_mgr error;
    unsigned char *buffer;
    unsigned long size;
};

static void writer_destroy(cjpeg_writer *w) {
    jpeg_destroy_compress(&w->cinfo);
    free(w->buffer);
    free(w);
}

/* One APP segment: a fixed header, then the payload. The caller checks the length. */
static void write_segment(j_compress_ptr cinfo, int marker, const char *header, unsigned header_length,
                          const uint8_t *data, unsigned length) {
    jpeg_write_m_header(cinfo, marker, header_length + length);
    for (unsigned i = 0; i < header_length; i++) {
        jpeg_write_m_byte(cinfo, header[i]);
    }
    for (unsigned i = 0; i < length; i++) {
        jpeg_write_m_byte(cinfo, data[i]);
    }
}

/* EXIF, ICC and XMP segments, between the frame's start and its first scan. A marker
   segment holds at most 65533 bytes after its length field. */
static void write_metadata(j_compress_ptr cinfo, const cjpeg_metadata *metadata) {
    if (metadata && metadata->exif && metadata->exif_length && metadata->exif_length <= 65533 - 6) {
        write_segment(cinfo, EXIF_MARKER, "Exif\0", 6, metadata->exif, metadata->exif_length);
    }
    if (metadata && metadata->icc && metadata->icc_length) {
        write_icc(cinfo, metadata->icc, metadata->icc_length);
    }
    if (metadata && metadata->xmp && metadata->xmp_length && metadata->xmp_length <= 65533 - XMP_HEADER_LENGTH) {
        write_segment(cinfo, EXIF_MARKER, XMP_HEADER, XMP_HEADER_LENGTH, metadata->xmp, metadata->xmp_length);
    }
}

cjpeg_writer *cjpeg_writer_open(uint32_t width, uint32_t height, int channels,
                                const cjpeg_encode_options *options, const cjpeg_metadata *metadata,
                                char *err, size_t err_size) {
    if (channels != 1 && channels != 3) {
        copy_message(err, err_size, "JPEG output needs 1 or 3 channels");
        return NULL;
    }
    cjpeg_writer *w = calloc(1, sizeof *w);
    if (!w) {
        copy_message(err, err_size, "out of memory");
        return NULL;
    }
    init_error(&w->error);
    w->cinfo.err = &w->error.base;
    if (setjmp(w->error.jump)) {
        copy_message(err, err_size, w->error.message);
        writer_destroy(w);
        return NULL;
    }
    jpeg_create_compress(&w->cinfo);
    jpeg_mem_dest(&w->cinfo, &w->buffer, &w->size);
    w->cinfo.image_width = width;
    w->cinfo.image_height = height;
    w->cinfo.input_components = channels;
    w->cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&w->cinfo);
    jpeg_set_quality(&w->cinfo, options->quality, TRUE);
    /* Huffman tables fitted to the image save 2-5% of the file, but libjpeg then holds
       every coefficient (3 bytes a pixel at 4:2:0, 6 at 4:4:4) and codes them all after
       the last row: 20 ms and 19 MB for 800x8000. Past 2048x2048 pixels the standard
       tables stream instead, in flat memory, with nothing left to do at the end. */
    w->cinfo.optimize_coding = (uint64_t)width * height <= 2048u * 2048u;
    if (channels == 3) {
        /* Luma sampling factors decide the chroma subsampling: 2x2 is 4:2:0. */
        int h = options->subsampling == 444 ? 1 : 2;
        int v = options->subsampling == 420 ? 2 : 1;
        w->cinfo.comp_info[0].h_samp_factor = h;
        w->cinfo.comp_info[0].v_samp_factor = v;
        for (int c = 1; c < 3; c++) {
            w->cinfo.comp_info[c].h_samp_factor = 1;
            w->cinfo.comp_info[c].v_samp_factor = 1;
        }
    }
    if (options->progressive) {
        jpeg_simple_progression(&w->cinfo);
    }
    jpeg_start_compress(&w->cinfo, TRUE);
    write_metadata(&w->cinfo, metadata);
    return w;
}

int cjpeg_writer_write_rows(cjpeg_writer *w, const uint8_t *pixels, size_t stride, uint32_t rows,
                            char *err, size_t err_size) {
    if (setjmp(w->error.jump)) {
        copy_message(err, err_size, w->error.message);
        return -1;
    }
    for (uint32_t y = 0; y < rows; y++) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)y * stride);
        jpeg_write_scanlines(&w->cinfo, &row, 1);
    }
    return 0;
}

int cjpeg_writer_finish(cjpeg_writer *w, uint8_t **out, size_t *out_size, char *err, size_t err_size) {
    if (setjmp(w->error.jump)) {
        copy_message(err, err_size, w->error.message);
        return -1;
    }
    jpeg_finish_compress(&w->cinfo);
    *out = w->buffer;
    *out_size = w->size;
    w->buffer = NULL;
    return 0;
}

void cjpeg_writer_close(cjpeg_writer *w) {
    if (w) {
        writer_destroy(w);
    }
}

int cjpeg_write_coefficients(uint32_t width, uint32_t height, const cjpeg_coefficients *c,
                             const cjpeg_metadata *metadata, uint8_t **out, size_t *out_size,
                             char *err, size_t err_size) {
    struct jpeg_compress_struct cinfo;
    shim_error_mgr error;
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    jpeg_scan_info *volatile scans = NULL;
    init_error(&error);
    cinfo.err = &error.base;
    if (setjmp(error.jump)) {
        /* The memory destination may have moved its buffer without telling `buffer`,
           so it is left, not freed twice; nothing here fails but an allocation. */
        copy_message(err, err_size, error.message);
        jpeg_destroy_compress(&cinfo);
        free(scans);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = c->components;
    cinfo.in_color_space = c->components == 1 ? JCS_GRAYSCALE : JCS_YCbCr;
    jpeg_set_defaults(&cinfo);
    jpeg_set_colorspace(&cinfo, c->components == 1 ? JCS_GRAYSCALE : JCS_YCbCr);
    int max_h = 1, max_v = 1;
    for (int i = 0; i < c->components; i++) {
        unsigned table[DCTSIZE2];
        for (int k = 0; k < DCTSIZE2; k++) {
            table[k] = c->quant[i][k];
        }
        jpeg_add_quant_table(&cinfo, i == 0 ? 0 : 1, table, 100, TRUE);
        cinfo.comp_info[i].quant_tbl_no = i == 0 ? 0 : 1;
        cinfo.comp_info[i].h_samp_factor = c->h[i];
        cinfo.comp_info[i].v_samp_factor = c->v[i];
        max_h = c->h[i] > max_h ? c->h[i] : max_h;
        max_v = c->v[i] > max_v ? c->v[i] : max_v;
    }
    cinfo.optimize_coding = TRUE;
    if (c->num_scans < 0) {
        jpeg_simple_progression(&cinfo);
    } else if (c->num_scans > 0) {
        scans = calloc((size_t)c->num_scans, sizeof *scans);
        if (!scans) {
            ERREXIT1(&cinfo, JERR_OUT_OF_MEMORY, 0);
        }
        for (int s = 0; s < c->num_scans; s++) {
            const int *f = c->scans + 9 * s;
            scans[s].comps_in_scan = f[0];
            for (int k = 0; k < 4; k++) {
                scans[s].component_index[k] = f[1 + k];
            }
            scans[s].Ss = f[5];
            scans[s].Se = f[6];
            scans[s].Ah = f[7];
            scans[s].Al = f[8];
        }
        cinfo.scan_info = scans;
        cinfo.num_scans = c->num_scans;
    }
    jvirt_barray_ptr arrays[3];
    for (int i = 0; i < c->components; i++) {
        /* libjpeg's own sizes (jcmaster's initial_setup), rounded to whole MCUs. */
        JDIMENSION wide = (JDIMENSION)(((uint64_t)width * c->h[i] + 8u * max_h - 1) / (8u * max_h));
        JDIMENSION high = (JDIMENSION)(((uint64_t)height * c->v[i] + 8u * max_v - 1) / (8u * max_v));
        if (wide != c->width_in_blocks[i] || high != c->height_in_blocks[i]) {
            copy_message(err, err_size, "coefficient planes do not match the frame");
            jpeg_destroy_compress(&cinfo);
            free(scans);
            return -1;
        }
        arrays[i] = (*cinfo.mem->request_virt_barray)((j_common_ptr)&cinfo, JPOOL_IMAGE, TRUE,
                                                      (wide + c->h[i] - 1) / c->h[i] * c->h[i],
                                                      (high + c->v[i] - 1) / c->v[i] * c->v[i], (JDIMENSION)c->v[i]);
    }
    jpeg_write_coefficients(&cinfo, arrays);
    for (int i = 0; i < c->components; i++) {
        for (JDIMENSION y = 0; y < c->height_in_blocks[i]; y++) {
            JBLOCKARRAY row = (*cinfo.mem->access_virt_barray)((j_common_ptr)&cinfo, arrays[i], y, 1, TRUE);
            memcpy(row[0], c->blocks[i] + (size_t)y * c->width_in_blocks[i] * DCTSIZE2,
                   (size_t)c->width_in_blocks[i] * sizeof(JBLOCK));
        }
    }
    write_metadata(&cinfo, metadata);
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(scans);
    *out = buffer;
    *out_size = size;
    return 0;
}

void cjpeg_free(void *p) {
    free(p);
}

/* libjpeg-turbo has no run-time version call before its TurboJPEG 3 API; the
   header's number is the library it was built against (the soname pins the ABI). */
int cjpeg_version(void) { return LIBJPEG_TURBO_VERSION_NUMBER; }

