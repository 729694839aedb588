#ifndef IMGSCALE_GIF_SHIM_H
#define IMGSCALE_GIF_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* A small status-returning layer over giflib's record-by-record decoder, for the first
   frame of a GIF held in memory. Functions return 0 on success, or -1 with giflib's
   message in err; cgif_decode returns -2 when the data ends early, with the rows
   decoded before that counted in *rows_done. */

typedef struct {
    uint32_t width;        /* the canvas: the logical screen, grown to hold the first image */
    uint32_t height;       /* where it reaches past the screen, as Pillow and browsers do */
    int frames;            /* images in the file */
    int interlaced;        /* the first image's */
    int transparent;       /* the first image has a transparent colour index */
    uint32_t frame_width;  /* the first image's own size, which may exceed the screen */
    uint32_t frame_height;
} cgif_info;

int cgif_read_info(const uint8_t *data, size_t size, cgif_info *info, char *err, size_t errlen);

/* The first image over the width x height canvas of cgif_read_info as RGB (channels 3) or RGBA (4): the area it does
   not cover is the background colour, or transparent when the image has a transparent
   index; its transparent pixels get alpha 0. Without any colour table the indices are
   gray levels, as Pillow reads such a file. */
int cgif_decode(const uint8_t *data, size_t size, uint32_t width, uint32_t height, int channels, uint8_t *out,
                size_t stride, uint32_t *rows_done, char *err, size_t errlen);

/* Every frame of an animation, composited on the width x height canvas of
   cgif_read_info as browsers show them: the canvas starts as the background colour, or
   transparent when the first frame has a transparent index; a frame's transparent
   pixels keep what is under them; disposal 2 clears the frame's rect to the background
   (transparent where that frame had a transparent index), 3 restores the canvas before
   it. next gives each canvas as RGBA into out, with its delay in ms, and returns 0, 1
   after the last frame, -2 when the data ends early, or -1. The loop count is how
   often it plays, as browsers play it: 0 forever, 1 without a NETSCAPE2.0 block, and
   n + 1 for a block's n repeats. */
typedef struct cgif_frames cgif_frames;
cgif_frames *cgif_frames_open(const uint8_t *data, size_t size, uint32_t width, uint32_t height, uint32_t *loop_count,
                              char *err, size_t errlen);
int cgif_frames_next(cgif_frames *frames, uint8_t *out, int *duration, char *err, size_t errlen);
void cgif_frames_close(cgif_frames *frames);

/* A GIF written by libcgif into memory: frames of width x height palette indices, with
   the file's colour table `global` (RGB, `global_entries` of them) or, where that is
   NULL, each with its own (`palette`, `entries`); tables hold a power of two entries up
   to 256. Each frame has a transparent index (-1: none) and shows delay_cs hundredths
   of a second. loop_count -1
   makes a still; 0 an animation looping forever; 1 one played once (no NETSCAPE2.0
   block); n, one played n times (n - 1 repeats). finish hands over the file (free with free). */
typedef struct cgifw cgifw;
cgifw *cgifw_new(uint16_t width, uint16_t height, int loop_count, const uint8_t *global, int global_entries, char *err,
                 size_t errlen);
int cgifw_add(cgifw *writer, const uint8_t *indices, const uint8_t *palette, int entries, int transparent, int delay_cs,
              char *err, size_t errlen);
int cgifw_finish(cgifw *writer, uint8_t **out, size_t *out_size, char *err, size_t errlen);
void cgifw_free(cgifw *writer);

/* The linked library's version, for `imgscale --version`. */
int cgif_version(void);

#endif
