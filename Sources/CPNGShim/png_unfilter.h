#ifndef IMGSCALE_PNG_UNFILTER_H
#define IMGSCALE_PNG_UNFILTER_H

#include <stddef.h>
#include <stdint.h>

/* One row's filter (0-4) undone: `raw` as stored after the filter byte, `prev` the
   row above unfiltered (zeros for the first row), n bytes of bpp-byte pixels. `out`
   must not overlap `raw` or `prev`: a pixel's store may also write the next pixel's
   first byte before that pixel is made. */
void cpng_unfilter(uint8_t *out, const uint8_t *raw, const uint8_t *prev, size_t n, size_t bpp, int filter);

#endif
