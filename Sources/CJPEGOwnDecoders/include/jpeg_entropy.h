#ifndef IMGSCALE_JPEG_ENTROPY_H
#define IMGSCALE_JPEG_ENTROPY_H

/* imgscale's Huffman decoder in place of libjpeg's, for a started single-scan
   sequential decode; libjpeg keeps everything else (IDCT, upsampling, colour), so the
   pixels are its own. libjpeg-turbo 2.1 decodes files with restart markers on its slow
   path and decodes every coefficient of blocks it crops away; this decoder does
   neither. On anything a conforming encoder does not write it hands the rest of the
   scan to a second libjpeg decompressor, brought to the same MCU, so damaged files
   decode and report exactly as libjpeg alone would. */

#include "jpeg_reader.h"

/* Installs the decoder on a started reader that has read no scan data yet, after
   jpeg_crop_scanline moved its columns to start at crop_x (0 when not cropped).
   Returns 1 when installed, 0 when the file does not suit (libjpeg decodes it). */
int cjpeg_entropy_install(cjpeg_reader *reader, uint32_t crop_x);

/* Frees what install made; after jpeg_destroy_decompress. */
void cjpeg_entropy_free(cjpeg_reader *reader);

#endif
