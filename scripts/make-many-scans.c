/* Writes TestImages/regressions/jpeg-many-scans.jpg: a valid progressive JPEG of
   ~1,800 scans (every AC coefficient of every component refined bit plane by bit
   plane), the slow-decode case the scan limit guards against. jpegtran's -scans
   accepts at most 100, hence this program.  gcc scripts/make-many-scans.c -ljpeg
   With PATH W H N it writes a W x H image of the first N of those scans: fewer scans
   than the limit over many pixels, the case the scans-times-blocks bound guards. */
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "TestImages/regressions/jpeg-many-scans.jpg";
    enum { MAX = 3000 };
    int W = argc > 3 ? atoi(argv[2]) : 32, H = argc > 3 ? atoi(argv[3]) : 16;
    int limit = argc > 4 ? atoi(argv[4]) : MAX;
    static jpeg_scan_info scans[MAX];
    int n = 0;
    scans[n++] = (jpeg_scan_info){3, {0, 1, 2}, 0, 0, 0, 0};
    for (int k = 1; k < 64; k++) {
        for (int c = 0; c < 3; c++) {
            scans[n++] = (jpeg_scan_info){1, {c}, k, k, 0, 9};
            for (int al = 8; al >= 0; al--) scans[n++] = (jpeg_scan_info){1, {c}, k, k, al + 1, al};
        }
    }
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr jerr;
    cinfo.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&cinfo);
    FILE *f = fopen(path, "wb");
    if (!f) return 1;
    jpeg_stdio_dest(&cinfo, f);
    cinfo.image_width = W;
    cinfo.image_height = H;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    cinfo.scan_info = scans;
    cinfo.num_scans = n < limit ? n : limit;
    n = cinfo.num_scans;
    jpeg_start_compress(&cinfo, TRUE);
    unsigned char *row = malloc((size_t)W * 3);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W * 3; x++) row[x] = (unsigned char)(x * 7 + y * 13);
        JSAMPROW r = row;
        jpeg_write_scanlines(&cinfo, &r, 1);
    }
    jpeg_finish_compress(&cinfo);
    fclose(f);
    fprintf(stderr, "%d scans\n", n);
    return 0;
}
