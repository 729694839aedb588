/* The PNG decode floor for scripts/bench: libpng's plain row-by-row read of an 8-bit
   RGB(A) PNG, no transforms, output discarded. Built by scripts/bench, not shipped. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    if (!f) return 2;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) return 1;
    png_init_io(png, f);
    png_read_info(png, info);
    png_bytep row = malloc(png_get_rowbytes(png, info));
    for (png_uint_32 y = 0; y < png_get_image_height(png, info); y++) png_read_row(png, row, NULL);
    png_read_end(png, NULL);
    return 0;
}
