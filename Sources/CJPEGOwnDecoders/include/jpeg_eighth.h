#ifndef IMGSCALE_JPEG_EIGHTH_H
#define IMGSCALE_JPEG_EIGHTH_H

#include <stddef.h>
#include <stdint.h>

/* 1 when imgscale's own entropy decoders were built: the linked libjpeg-turbo is one
   of the versions they were written for (see jpeg_reader.h). IMGSCALE_JPEG_DECODER=libjpeg
   turns them off at run time (JPEGOwnDecoders.swift). */
int cjpeg_own_decoders_built(void);

/* Decoding a single-scan Huffman JPEG at 1/8 size without libjpeg, giving libjpeg's
   bytes. At 1/8 libjpeg keeps one sample per block (the DC term) for every component
   but those it scales 2x2 (4:2:0 chroma), so Huffman decoding is nearly all the work;
   doing it here lets it skip AC values it does not need, use a fast path on files with
   restart markers (libjpeg-turbo 2.1 does not), and run on two threads from a point
   in the middle of the data.

   Decoding is in two steps. cjpeg_eighth_decode turns MCUs into records: per block
   the DC difference and, for a 2x2 component, what its AC terms add to the four
   samples. Records need no DC predictor, so a thread can make them from anywhere in
   the data before it is known which MCU it started at. cjpeg_eighth_rows then turns
   the records of an MCU row into pixels, carrying the predictors. Anything a
   conforming encoder does not write (a bad code, a marker out of place, data running
   out) stops the decode: the caller then lets libjpeg decode, which reports damage
   in its own words. */

typedef struct {
    uint8_t h, v;            /* sampling factors */
    uint8_t scaled;          /* samples per block side at 1/8: 1 (DC) or 2 (libjpeg's 2x2 IDCT) */
    uint8_t dc_table, ac_table;
    uint16_t quant[64];      /* natural order */
} cjpeg_eighth_component;

typedef struct {
    int components;          /* 1 (gray out) or 3 (YCbCr in, RGB out) */
    cjpeg_eighth_component comp[3];
    uint8_t max_h, max_v;
    uint32_t mcus_per_row, mcu_rows;
    uint32_t restart_interval;   /* MCUs, 0 for none */
    uint32_t out_width, out_height;
    const uint8_t *scan;     /* first entropy-coded byte; the data runs to scan + scan_size */
    size_t scan_size;
    uint8_t dc_bits[4][17], dc_values[4][256];
    uint8_t ac_bits[4][17], ac_values[4][256];
} cjpeg_eighth_layout;

typedef struct cjpeg_eighth cjpeg_eighth;

/* Lookup tables for a layout (which must outlive them); NULL when a Huffman table is
   not one libjpeg would accept. */
cjpeg_eighth *cjpeg_eighth_make(const cjpeg_eighth_layout *layout);
void cjpeg_eighth_free(cjpeg_eighth *decoder);

/* int32 values per MCU record. */
int cjpeg_eighth_record_size(const cjpeg_eighth *decoder);

/* Where decoding stands: at an MCU's start between calls. */
typedef struct {
    size_t pos;              /* next byte of scan to load */
    uint64_t bits;           /* unread bits, first at the top; the rest zero */
    int count;               /* how many */
    uint64_t data_bytes;     /* entropy-coded bytes loaded since the scan's start, stuffing not counted */
    uint32_t restarts_left;  /* MCUs before the next restart marker (restart_interval > 0) */
    int next_marker;         /* 0-7: the RSTn expected next */
} cjpeg_eighth_cursor;

/* A cursor at the scan's start. */
void cjpeg_eighth_cursor_start(const cjpeg_eighth *decoder, cjpeg_eighth_cursor *cursor);

/* A cursor at byte `at` of the scan (not inside FF 00) for a decode that does not know
   where it is: the restart state is what holds right after RSTn when `marker` is 0-7
   (at is then the byte after it), else none. Counts the stuffing before `at`. */
void cjpeg_eighth_cursor_at(const cjpeg_eighth *decoder, cjpeg_eighth_cursor *cursor, size_t at, int marker);

/* The cursor's place in bits from the scan's start, stuffing and markers not
   counted: two decodes at an MCU's start at the same place continue alike. */
uint64_t cjpeg_eighth_position(const cjpeg_eighth_cursor *cursor);

/* Cursors kept after the last MCUs decoded (see cjpeg_eighth_decode). */
#define CJPEG_EIGHTH_ENDS 64

/* Decodes up to `count` MCUs into `records` (record_size each), storing each MCU's
   starting position in `positions` when not NULL, and the cursor after MCU number
   first + i in ends[(first + i) % CJPEG_EIGHTH_ENDS] when `ends` is not NULL (a decode
   that does not know where the data ends finds there the cursor after the last MCU).
   Returns how many were decoded: fewer than count when the data holds something
   unexpected or ends. The cursor stays after the last MCU decoded. */
long cjpeg_eighth_decode(const cjpeg_eighth *decoder, cjpeg_eighth_cursor *cursor, long count,
                         int32_t *records, uint64_t *positions, cjpeg_eighth_cursor *ends, uint64_t first);

/* 1 when only padding bits and EOI follow (the last MCUs may need fewer bits than a
   byte, so this does not say that no MCU is left). */
int cjpeg_eighth_at_end(const cjpeg_eighth *decoder, const cjpeg_eighth_cursor *cursor);

/* Pixels of MCU row `row` from its records: max_v rows of out_width (columns x0 to
   x0 + width) gray or RGB samples. `predictors` (one per component) carry the DC
   values from the row before; `first_mcu` is the row's first MCU's index, for the
   restarts. Returns 0, or -1 when its planes could not be allocated (`out` is then
   not filled). */
int cjpeg_eighth_rows(const cjpeg_eighth *decoder, const int32_t *records, uint64_t first_mcu,
                      int32_t *predictors, uint32_t x0, uint32_t width,
                      uint8_t *out, size_t stride, uint32_t rows);

/* The predictors after `mcus` MCUs from `first_mcu` (records of those), as
   cjpeg_eighth_rows carries them, without making pixels. */
void cjpeg_eighth_carry(const cjpeg_eighth *decoder, const int32_t *records, uint64_t first_mcu, uint64_t mcus,
                        int32_t *predictors);

#endif
