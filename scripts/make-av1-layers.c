/* A still AV1 temporal unit of two spatial layers at one size, for the layered-AVIF test:
   layer 0 coarse, layer 1 fine and predicted from it, so that operating point 1 (the base
   layer alone) and operating point 0 (both) decode to different pictures. Writes the
   OBUs to the file named. Usage: make-av1-layers WIDTH HEIGHT OUT.obu (cc ... -laom) */
#include <aom/aom_encoder.h>
#include <aom/aomcx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int put(aom_codec_ctx_t *c, FILE *out) {
    const aom_codec_cx_pkt_t *pkt;
    aom_codec_iter_t it = NULL;
    int n = 0;
    while ((pkt = aom_codec_get_cx_data(c, &it)))
        if (pkt->kind == AOM_CODEC_CX_FRAME_PKT) { fwrite(pkt->data.frame.buf, 1, pkt->data.frame.sz, out); n++; }
    return n;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: make-av1-layers WIDTH HEIGHT OUT.obu\n");
        return 2;
    }
    int w = atoi(argv[1]), h = atoi(argv[2]);
    FILE *out = fopen(argv[3], "wb");
    if (!out || w < 16 || h < 16) return 2;
    aom_image_t img;
    aom_img_alloc(&img, AOM_IMG_FMT_I420, w, h, 1);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) img.planes[0][y * img.stride[0] + x] = (unsigned char)(16 + (x * 7 + y * 3) % 200);
    for (int p = 1; p < 3; p++)
        for (int y = 0; y < (h + 1) / 2; y++)
            for (int x = 0; x < (w + 1) / 2; x++) img.planes[p][y * img.stride[p] + x] = (unsigned char)(p == 1 ? 64 + x % 128 : 200 - y % 128);
    aom_codec_iface_t *iface = aom_codec_av1_cx();
    aom_codec_enc_cfg_t cfg;
    if (aom_codec_enc_config_default(iface, &cfg, AOM_USAGE_GOOD_QUALITY)) return 1;
    cfg.g_w = w;
    cfg.g_h = h;
    cfg.g_lag_in_frames = 0;
    cfg.rc_end_usage = AOM_Q;
    cfg.save_as_annexb = 0;
    aom_codec_ctx_t c;
    if (aom_codec_enc_init(&c, iface, &cfg, 0)) return 1;
    aom_codec_control(&c, AOME_SET_CPUUSED, 8);
    aom_codec_control(&c, AOME_SET_NUMBER_SPATIAL_LAYERS, 2);
    aom_codec_control(&c, AOME_SET_SPATIAL_LAYER_ID, 0);
    aom_codec_control(&c, AOME_SET_CQ_LEVEL, 40);
    if (aom_codec_encode(&c, &img, 0, 1, AOM_EFLAG_FORCE_KF)) { fprintf(stderr, "%s\n", aom_codec_error_detail(&c)); return 1; }
    put(&c, out);
    aom_codec_control(&c, AOME_SET_SPATIAL_LAYER_ID, 1);
    aom_codec_control(&c, AOME_SET_CQ_LEVEL, 10);
    int flags = AOM_EFLAG_NO_REF_LAST2 | AOM_EFLAG_NO_REF_LAST3 | AOM_EFLAG_NO_REF_GF | AOM_EFLAG_NO_REF_ARF |
                AOM_EFLAG_NO_REF_BWD | AOM_EFLAG_NO_REF_ARF2 | AOM_EFLAG_NO_UPD_LAST | AOM_EFLAG_NO_UPD_GF | AOM_EFLAG_NO_UPD_ARF |
                AOM_EFLAG_NO_UPD_ENTROPY;
    if (aom_codec_encode(&c, &img, 1, 1, flags)) { fprintf(stderr, "%s\n", aom_codec_error_detail(&c)); return 1; }
    put(&c, out);
    /* Bounded: a flush that kept handing out packets must not fill the disk. */
    for (int k = 0; k < 8 && aom_codec_encode(&c, NULL, 2, 1, 0) == 0 && put(&c, out); k++) {}
    aom_codec_destroy(&c);
    aom_img_free(&img);
    return fclose(out) == 0 ? 0 : 1;
}
