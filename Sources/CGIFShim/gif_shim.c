#include "gif_shim.h"

#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t at;
    int ran_out;  /* a read asked for more than was left: the file is truncated */
} source;

static int read_memory(GifFileType *gif, GifByteType *buf, int want) {
    source *s = gif->UserData;
    size_t n = s->size - s->at < (size_t)want ? s->size - s->at : (size_t)want;
    memcpy(buf, s->data + s->at, n);
    s->at += n;
    if (n < (size_t)want) s->ran_out = 1;
    return (int)n;
}

static void fail(char *err, size_t errlen, const char *what, int code) {
    const char *text = GifErrorString(code);
    snprintf(err, errlen, "%s: %s", what, text ? text : "unknown giflib error");
}

static GifFileType *open_gif(source *s, char *err, size_t errlen) {
    int code = 0;
    GifFileType *gif = DGifOpen(s, read_memory, &code);
    if (!gif) fail(err, errlen, "cannot read the GIF header", code);
    return gif;
}

static void close_gif(GifFileType *gif) {
    int code = 0;
    DGifCloseFile(gif, &code);
}

/* Reads the extension blocks of one extension record, noting a graphics control
   block's transparent index. */
static int read_extension(GifFileType *gif, int *transparent) {
    int code = 0;
    GifByteType *ext = NULL;
    if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) return GIF_ERROR;
    if (code == GRAPHICS_EXT_FUNC_CODE && ext && ext[0] >= 4) {
        GraphicsControlBlock gcb;
        if (DGifExtensionToGCB(ext[0], ext + 1, &gcb) == GIF_OK) *transparent = gcb.TransparentColor;
    }
    while (ext) {
        if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) return GIF_ERROR;
    }
    return GIF_OK;
}

/* Skips an image's LZW data without decoding it. */
static int skip_image(GifFileType *gif) {
    int codeSize = 0;
    GifByteType *block = NULL;
    if (DGifGetCode(gif, &codeSize, &block) == GIF_ERROR) return GIF_ERROR;
    while (block) {
        if (DGifGetCodeNext(gif, &block) == GIF_ERROR) return GIF_ERROR;
    }
    return GIF_OK;
}

int cgif_read_info(const uint8_t *data, size_t size, cgif_info *info, char *err, size_t errlen) {
    memset(info, 0, sizeof *info);
    source s = {data, size, 0, 0};
    GifFileType *gif = open_gif(&s, err, errlen);
    if (!gif) return -1;
    info->width = (uint32_t)gif->SWidth;
    info->height = (uint32_t)gif->SHeight;
    int transparent = NO_TRANSPARENT_COLOR;
    GifRecordType type;
    /* Counts the images; a file cut short after the first still has a header. */
    while (DGifGetRecordType(gif, &type) == GIF_OK && type != TERMINATE_RECORD_TYPE) {
        if (type == EXTENSION_RECORD_TYPE) {
            if (read_extension(gif, info->frames == 0 ? &transparent : &(int){0}) == GIF_ERROR) break;
        } else if (type == IMAGE_DESC_RECORD_TYPE) {
            size_t before = s.at;
            if (DGifGetImageDesc(gif) == GIF_ERROR) {
                /* giflib 5.2 reads minimum code sizes 2 to 8 (the specification's
                   range) and says only "failed to read" for others, which Pillow and
                   browsers decode: the byte after the descriptor and its colour table
                   says which it was. */
                if (info->frames == 0 && !s.ran_out && s.at > before && data[s.at - 1] > 8) {
                    snprintf(err, errlen, "the first image's LZW code size is %d; giflib reads 2 to 8, the GIF "
                             "specification's range (Pillow and browsers read larger ones)", data[s.at - 1]);
                    close_gif(gif);
                    return -1;
                }
                break;
            }
            if (info->frames == 0) {
                /* A first image reaching past the screen widens the canvas instead of
                   losing its pixels; 16-bit fields, so the sums cannot overflow. */
                const uint32_t right = (uint32_t)gif->Image.Left + (uint32_t)gif->Image.Width;
                const uint32_t bottom = (uint32_t)gif->Image.Top + (uint32_t)gif->Image.Height;
                if (right > info->width) info->width = right;
                if (bottom > info->height) info->height = bottom;
                info->frame_width = (uint32_t)gif->Image.Width;
                info->frame_height = (uint32_t)gif->Image.Height;
                info->interlaced = gif->Image.Interlace;
                info->transparent = transparent != NO_TRANSPARENT_COLOR;
            }
            info->frames++;
            /* A first image cut short still counts: the decode decides what it is worth. */
            if (skip_image(gif) == GIF_ERROR) break;
        } else {
            break;
        }
    }
    int code = gif->Error;
    close_gif(gif);
    if (info->frames == 0) {
        /* giflib checks the LZW code size while reading the image descriptor. */
        fail(err, errlen, s.ran_out ? "truncated GIF: no complete image" : code ? "invalid first image (its descriptor or LZW code size)" : "no image in the GIF",
             code ? code : D_GIF_ERR_NO_IMAG_DSCR);
        return -1;
    }
    if (info->width == 0 || info->height == 0) {
        snprintf(err, errlen, "the screen is %ux%u", info->width, info->height);
        return -1;
    }
    return 0;
}

int cgif_decode(const uint8_t *data, size_t size, uint32_t width, uint32_t height, int channels, uint8_t *out,
                size_t stride, uint32_t *rows_done, char *err, size_t errlen) {
    *rows_done = 0;
    source s = {data, size, 0, 0};
    GifFileType *gif = open_gif(&s, err, errlen);
    if (!gif) return -1;
    int transparent = NO_TRANSPARENT_COLOR;
    GifRecordType type;
    int status = -1;
    for (;;) {
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) {
            fail(err, errlen, "damaged GIF", gif->Error);
            break;
        }
        if (type == EXTENSION_RECORD_TYPE) {
            if (read_extension(gif, &transparent) == GIF_ERROR) {
                fail(err, errlen, "damaged GIF extension", gif->Error);
                break;
            }
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE) {
            snprintf(err, errlen, "no image in the GIF");
            break;
        }
        if (DGifGetImageDesc(gif) == GIF_ERROR) {
            fail(err, errlen, "damaged GIF image descriptor", gif->Error);
            break;
        }
        /* No colour table at all: indices are gray levels, as Pillow reads them. */
        GifColorType grays[256];
        ColorMapObject gray_map = {.ColorCount = 256, .BitsPerPixel = 8, .SortFlag = false, .Colors = grays};
        for (int i = 0; i < 256; i++) grays[i].Red = grays[i].Green = grays[i].Blue = (GifByteType)i;
        const ColorMapObject *map = gif->Image.ColorMap ? gif->Image.ColorMap : gif->SColorMap ? gif->SColorMap : &gray_map;
        /* The canvas first: background, or transparent when the image has a
           transparent index. */
        uint8_t bg[4] = {0, 0, 0, 0};
        if (!(channels == 4 && transparent != NO_TRANSPARENT_COLOR) && gif->SColorMap &&
            gif->SBackGroundColor < gif->SColorMap->ColorCount) {
            const GifColorType c = gif->SColorMap->Colors[gif->SBackGroundColor];
            bg[0] = c.Red, bg[1] = c.Green, bg[2] = c.Blue, bg[3] = 255;
        } else if (channels == 3 || transparent == NO_TRANSPARENT_COLOR) {
            bg[3] = 255;
        }
        for (uint32_t y = 0; y < height; y++) {
            for (uint32_t x = 0; x < width; x++) memcpy(out + y * stride + x * (size_t)channels, bg, (size_t)channels);
        }
        const GifImageDesc d = gif->Image;
        GifPixelType *line = malloc(d.Width > 0 ? (size_t)d.Width : 1);
        if (!line) {
            snprintf(err, errlen, "out of memory");
            break;
        }
        /* Interlaced images come in four passes: every 8th row from 0, from 4, every
           4th from 2, every 2nd from 1. */
        static const int start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
        int passes = d.Interlace ? 4 : 1;
        int decoded = 0, failed = 0;
        for (int p = 0; p < passes && !failed; p++) {
            for (int r = d.Interlace ? start[p] : 0; r < d.Height; r += d.Interlace ? step[p] : 1) {
                /* Rows below the canvas can change no pixel: a sequential image stops
                   at the canvas's last row instead of decoding a frame far taller. */
                if (!d.Interlace && d.Top + r >= (int)height) break;
                if (DGifGetLine(gif, line, d.Width) == GIF_ERROR) {
                    failed = 1;
                    break;
                }
                decoded++;
                int y = d.Top + r;
                if (y < 0 || (uint32_t)y >= height) continue;
                uint8_t *row = out + (size_t)y * stride;
                for (int i = 0; i < d.Width; i++) {
                    int x = d.Left + i;
                    if (x < 0 || (uint32_t)x >= width) continue;
                    int index = line[i];
                    uint8_t *px = row + (size_t)x * channels;
                    if (index == transparent) {
                        if (channels == 4) px[3] = 0;
                        continue;
                    }
                    if (index < map->ColorCount) {
                        px[0] = map->Colors[index].Red, px[1] = map->Colors[index].Green, px[2] = map->Colors[index].Blue;
                    } else {
                        px[0] = px[1] = px[2] = 0;
                    }
                    if (channels == 4) px[3] = 255;
                }
            }
        }
        free(line);
        /* Rows of an interlaced image arrive out of order: only a complete pass
           sequence counts as rows done. */
        *rows_done = failed ? (d.Interlace ? 0 : (uint32_t)(d.Top + decoded > 0 ? d.Top + decoded : 0)) : height;
        if (failed) {
            /* giflib says "failed to read" for a bad LZW code size too: only running out
               of bytes is truncation. */
            if (s.ran_out) {
                snprintf(err, errlen, "truncated GIF: the data ends in the first image");
                status = -2;
            } else {
                fail(err, errlen, "invalid LZW data in the first image (giflib)", gif->Error);
                status = -1;
            }
        } else {
            status = 0;
        }
        break;
    }
    close_gif(gif);
    return status;
}

/* giflib has no run-time version call: the header's, which the soname pins. */
int cgif_version(void) { return GIFLIB_MAJOR * 10000 + GIFLIB_MINOR * 100 + GIFLIB_RELEASE; }


struct cgif_frames {
    source s;
    GifFileType *gif;
    uint32_t width, height;
    uint8_t *canvas;         /* RGBA, what is shown now */
    uint8_t *saved;          /* RGBA, the canvas before the last frame (disposal 3) */
    GifPixelType *line;
    int frames;              /* frames drawn */
    /* The last frame's rect and disposal, applied before the next is drawn. */
    int last_left, last_top, last_width, last_height, last_disposal, last_transparent;
};

/* The screen's background colour, or transparent where frames have transparency. */
static void background(const GifFileType *gif, int transparent, uint8_t px[4]) {
    memset(px, 0, 4);
    if (transparent != NO_TRANSPARENT_COLOR) return;
    px[3] = 255;
    if (gif->SColorMap && gif->SBackGroundColor < gif->SColorMap->ColorCount) {
        const GifColorType c = gif->SColorMap->Colors[gif->SBackGroundColor];
        px[0] = c.Red, px[1] = c.Green, px[2] = c.Blue;
    }
}

cgif_frames *cgif_frames_open(const uint8_t *data, size_t size, uint32_t width, uint32_t height, uint32_t *loop_count,
                              char *err, size_t errlen) {
    cgif_frames *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->s = (source){data, size, 0, 0};
    f->width = width;
    f->height = height;
    f->canvas = malloc((size_t)width * height * 4);
    f->saved = malloc((size_t)width * height * 4);
    f->line = malloc(65536);
    f->gif = f->canvas && f->saved && f->line ? open_gif(&f->s, err, errlen) : NULL;
    if (!f->gif) {
        if (!f->canvas || !f->saved || !f->line) snprintf(err, errlen, "out of memory");
        cgif_frames_close(f);
        return NULL;
    }
    /* NETSCAPE2.0's loop count, when given before the first image (where writers put
       it): the blocks after the screen descriptor and its colour table, walked up to the
       first image. Browsers play a GIF without one once, with 0 forever, and with n
       n + 1 times (the first play, then n repeats); the count returned is the plays. */
    *loop_count = 1;
    size_t at = 13;
    if (size >= 13 && data[10] & 0x80) at += 3u << ((data[10] & 7) + 1);
    while (at + 2 < size && data[at] == 0x21) {
        size_t label = data[at + 1], block = at + 2;
        if (label == 0xFF && block + 16 < size && data[block] == 11 && !memcmp(data + block + 1, "NETSCAPE2.0", 11) &&
            data[block + 12] == 3 && data[block + 13] == 1) {
            uint32_t repeats = data[block + 14] | data[block + 15] << 8;
            *loop_count = repeats ? repeats + 1 : 0;
            break;
        }
        while (block < size && data[block]) block += 1 + (size_t)data[block];
        at = block + 1;
    }
    return f;
}

int cgif_frames_next(cgif_frames *f, uint8_t *out, int *duration, char *err, size_t errlen) {
    GifFileType *gif = f->gif;
    int transparent = NO_TRANSPARENT_COLOR, disposal = 0, delay = 0;
    GifRecordType type;
    for (;;) {
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) {
            if (f->frames > 0 && f->s.ran_out) return 1; /* a trailer cut off ends the animation */
            fail(err, errlen, "damaged GIF", gif->Error);
            return f->s.ran_out ? -2 : -1;
        }
        if (type == TERMINATE_RECORD_TYPE) return 1;
        if (type == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType *ext = NULL;
            if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR) {
                fail(err, errlen, "damaged GIF extension", gif->Error);
                return -1;
            }
            if (code == GRAPHICS_EXT_FUNC_CODE && ext && ext[0] >= 4) {
                GraphicsControlBlock gcb;
                if (DGifExtensionToGCB(ext[0], ext + 1, &gcb) == GIF_OK) {
                    transparent = gcb.TransparentColor;
                    disposal = gcb.DisposalMode;
                    delay = gcb.DelayTime;
                }
            }
            while (ext) {
                if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR) {
                    fail(err, errlen, "damaged GIF extension", gif->Error);
                    return -1;
                }
            }
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(gif) == GIF_ERROR) {
            fail(err, errlen, "damaged GIF image descriptor", gif->Error);
            return f->s.ran_out ? -2 : -1;
        }
        break;
    }
    size_t canvas_bytes = (size_t)f->width * f->height * 4;
    if (f->frames == 0) {
        uint8_t bg[4];
        background(gif, transparent, bg);
        for (size_t i = 0; i < canvas_bytes; i += 4) memcpy(f->canvas + i, bg, 4);
    } else if (f->last_disposal == DISPOSE_BACKGROUND) {
        uint8_t bg[4];
        background(gif, f->last_transparent, bg);
        for (int y = f->last_top; y < f->last_top + f->last_height && y < (int)f->height; y++) {
            for (int x = f->last_left; x < f->last_left + f->last_width && x < (int)f->width; x++) {
                memcpy(f->canvas + ((size_t)y * f->width + (size_t)x) * 4, bg, 4);
            }
        }
    } else if (f->last_disposal == DISPOSE_PREVIOUS) {
        memcpy(f->canvas, f->saved, canvas_bytes);
    }
    if (disposal == DISPOSE_PREVIOUS) memcpy(f->saved, f->canvas, canvas_bytes);
    const GifImageDesc d = gif->Image;
    GifColorType grays[256];
    ColorMapObject gray_map = {.ColorCount = 256, .BitsPerPixel = 8, .SortFlag = false, .Colors = grays};
    for (int i = 0; i < 256; i++) grays[i].Red = grays[i].Green = grays[i].Blue = (GifByteType)i;
    const ColorMapObject *map = d.ColorMap ? d.ColorMap : gif->SColorMap ? gif->SColorMap : &gray_map;
    static const int start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
    int passes = d.Interlace ? 4 : 1;
    for (int p = 0; p < passes; p++) {
        for (int r = d.Interlace ? start[p] : 0; r < d.Height; r += d.Interlace ? step[p] : 1) {
            if (DGifGetLine(gif, f->line, d.Width) == GIF_ERROR) {
                if (f->s.ran_out) {
                    snprintf(err, errlen, "truncated GIF: the data ends in frame %d", f->frames + 1);
                    return -2;
                }
                fail(err, errlen, "invalid LZW data (giflib)", gif->Error);
                return -1;
            }
            int y = d.Top + r;
            if (y < 0 || (uint32_t)y >= f->height) continue;
            for (int i = 0; i < d.Width; i++) {
                int x = d.Left + i, index = f->line[i];
                if (x < 0 || (uint32_t)x >= f->width || index == transparent) continue;
                uint8_t *px = f->canvas + ((size_t)y * f->width + (size_t)x) * 4;
                if (index < map->ColorCount) {
                    px[0] = map->Colors[index].Red, px[1] = map->Colors[index].Green, px[2] = map->Colors[index].Blue;
                } else {
                    px[0] = px[1] = px[2] = 0;
                }
                px[3] = 255;
            }
        }
    }
    f->last_left = d.Left, f->last_top = d.Top, f->last_width = d.Width, f->last_height = d.Height;
    f->last_disposal = disposal;
    f->last_transparent = transparent;
    f->frames++;
    memcpy(out, f->canvas, canvas_bytes);
    /* Centiseconds; 0 shows as fast as the viewer goes, which browsers make 100 ms. */
    *duration = delay * 10;
    return 0;
}

void cgif_frames_close(cgif_frames *f) {
    if (!f) return;
    if (f->gif) close_gif(f->gif);
    free(f->canvas);
    free(f->saved);
    free(f->line);
    free(f);
}

/* The writer: libcgif, into a growing buffer. */
#include <cgif.h>

struct cgifw {
    CGIF *gif;
    uint8_t *data;
    size_t size, capacity;
    int failed;
    uint16_t width, height;
};

static int cgifw_write(void *context, const uint8_t *bytes, const size_t count) {
    cgifw *w = context;
    if (w->size + count > w->capacity) {
        size_t capacity = w->capacity ? w->capacity : 65536;
        while (capacity < w->size + count) capacity *= 2;
        uint8_t *grown = realloc(w->data, capacity);
        if (!grown) {
            w->failed = 1;
            return -1;
        }
        w->data = grown;
        w->capacity = capacity;
    }
    memcpy(w->data + w->size, bytes, count);
    w->size += count;
    return 0;
}

cgifw *cgifw_new(uint16_t width, uint16_t height, int loop_count, const uint8_t *global, int global_entries, char *err,
                 size_t errlen) {
    cgifw *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    CGIF_Config config = {0};
    /* One table for the file, or each frame its own. libcgif 0.3 writes a frame's
       graphic control block, which holds its transparent index, only in an animation: a
       still is an animation of one frame played once, which readers show as the still. */
    config.attrFlags = CGIF_ATTR_IS_ANIMATED;
    if (global) {
        config.pGlobalPalette = (uint8_t *)global;
        config.numGlobalPaletteEntries = (uint16_t)global_entries;
    } else {
        config.attrFlags |= CGIF_ATTR_NO_GLOBAL_TABLE;
    }
    /* Played once: no NETSCAPE block; n plays: n - 1 repeats (see cgif_frames_open). */
    if (loop_count == 1 || loop_count < 0) config.attrFlags |= CGIF_ATTR_NO_LOOP;
    config.numLoops = loop_count > 1 ? (uint16_t)(loop_count - 1 > 65535 ? 65535 : loop_count - 1) : CGIF_INFINITE_LOOP;
    config.width = width;
    config.height = height;
    config.pWriteFn = cgifw_write;
    config.pContext = w;
    w->width = width;
    w->height = height;
    if (!(w->gif = cgif_newgif(&config))) {
        free(w->data);
        free(w);
        snprintf(err, errlen, "libcgif could not start the file");
        return NULL;
    }
    return w;
}

int cgifw_add(cgifw *w, const uint8_t *indices, const uint8_t *palette, int entries, int transparent, int delay_cs,
              char *err, size_t errlen) {
    CGIF_FrameConfig frame = {0};
    frame.pImageData = (uint8_t *)indices;
    if (palette) {
        frame.pLocalPalette = (uint8_t *)palette;
        frame.numLocalPaletteEntries = (uint16_t)entries;
        frame.attrFlags = CGIF_FRAME_ATTR_USE_LOCAL_TABLE;
    }
    if (transparent >= 0) {
        frame.attrFlags |= CGIF_FRAME_ATTR_HAS_ALPHA;
        frame.transIndex = (uint8_t)transparent;
    }
    frame.delay = (uint16_t)(delay_cs < 0 ? 0 : delay_cs > 65535 ? 65535 : delay_cs);
    int status = cgif_addframe(w->gif, &frame);
    if (status != CGIF_OK || w->failed) {
        snprintf(err, errlen, "libcgif could not add a frame (status %d)", status);
        return -1;
    }
    return 0;
}

int cgifw_finish(cgifw *w, uint8_t **out, size_t *out_size, char *err, size_t errlen) {
    int status = cgif_close(w->gif);
    w->gif = NULL;
    if (status != CGIF_OK || w->failed) {
        snprintf(err, errlen, "libcgif could not end the file (status %d)", status);
        return -1;
    }
    *out = w->data;
    *out_size = w->size;
    w->data = NULL;
    return 0;
}

void cgifw_free(cgifw *w) {
    if (!w) return;
    if (w->gif) cgif_close(w->gif);
    free(w->data);
    free(w);
}
