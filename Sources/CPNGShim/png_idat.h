#ifndef IMGSCALE_PNG_IDAT_H
#define IMGSCALE_PNG_IDAT_H

#include <stddef.h>
#include <stdint.h>

/* The image data of a PNG (png_idat.c): rows filtered and deflated into IDAT
   chunks, then IEND, appended to the header chunks libpng wrote. Rows are `channels`
   bytes per pixel (1-4 8-bit samples, or up to 8 bytes of 16-bit ones), top row first. With filter 0 every row is written unfiltered
   (palette indices, as libpng does). */
typedef struct cpng_idat cpng_idat;

/* Takes over `header` (malloc'd, header_size bytes used of header_capacity), also on
   success only: NULL leaves it with the caller. */
cpng_idat *cpng_idat_open(uint32_t width, int channels, int level, int filter,
                          uint8_t *header, size_t header_size, size_t header_capacity);
int cpng_idat_write_rows(cpng_idat *idat, const uint8_t *pixels, size_t stride, uint32_t rows);
/* The whole file, malloc'd, handed to the caller. */
int cpng_idat_finish(cpng_idat *idat, uint8_t **out, size_t *out_size);
void cpng_idat_close(cpng_idat *idat);

#endif
