/* The serial floor of a PNG decode for scripts/bench: its IDAT stream inflated by ISA-L
   (the fastest inflater here) into a 1 MiB buffer over and over, the raw deflate data
   only (no Adler-32), nothing else done. One zlib stream cannot be inflated on two
   cores, so no decoder of that file finishes sooner. Built by scripts/bench, not shipped. */
#include <isa-l/igzip_lib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

int main(int argc, char **argv) {
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    if (!f) return 2;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(n), *stream = malloc(n);
    if (!data || !stream || fread(data, 1, n, f) != (size_t)n) return 2;
    size_t length = 0;
    for (long at = 8; at + 12 <= n;) {
        uint32_t len = be32(data + at);
        if (!memcmp(data + at + 4, "IDAT", 4)) {
            memcpy(stream + length, data + at + 8, len);
            length += len;
        }
        at += 12 + (long)len;
    }
    free(data);
    static uint8_t out[1 << 20];
    struct inflate_state s;
    isal_inflate_init(&s);
    s.crc_flag = ISAL_DEFLATE;
    s.next_in = stream + 2;
    s.avail_in = (uint32_t)(length - 6);
    while (s.block_state != ISAL_BLOCK_FINISH) {
        s.next_out = out;
        s.avail_out = sizeof out;
        if (isal_inflate(&s) != ISAL_DECOMP_OK || s.avail_out == sizeof out) return 1;
    }
    return 0;
}
