#ifndef IMGSCALE_JXL_API_H
#define IMGSCALE_JXL_API_H

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
#include <stddef.h>

/* libjxl, opened on first use instead of linked: it brings highway, brotli and the C++
   runtime's share of it, loaded and relocated before main in every process though few
   inputs or outputs are JPEG XL. The shim calls libjxl by its own names; they are
   redirected below to the pointers cjxl_load fills. */
#define CJXL_FUNCTIONS(X) \
    X(JxlDecoderCreate) \
    X(JxlDecoderDestroy) \
    X(JxlDecoderSubscribeEvents) \
    X(JxlDecoderSetKeepOrientation) \
    X(JxlDecoderSetUnpremultiplyAlpha) \
    X(JxlDecoderSetDecompressBoxes) \
    X(JxlDecoderSetInput) \
    X(JxlDecoderCloseInput) \
    X(JxlDecoderProcessInput) \
    X(JxlDecoderGetBasicInfo) \
    X(JxlDecoderGetICCProfileSize) \
    X(JxlDecoderGetColorAsEncodedProfile) \
    X(JxlDecoderGetColorAsICCProfile) \
    X(JxlDecoderGetBoxType) \
    X(JxlDecoderSetBoxBuffer) \
    X(JxlDecoderReleaseBoxBuffer) \
    X(JxlDecoderImageOutBufferSize) \
    X(JxlDecoderSetImageOutBuffer) \
    X(JxlDecoderSetParallelRunner) \
    X(JxlDecoderGetFrameHeader) \
    X(JxlDecoderSetCoalescing) \
    X(JxlDecoderFlushImage) \
    X(JxlEncoderCreate) \
    X(JxlEncoderDestroy) \
    X(JxlEncoderUseContainer) \
    X(JxlEncoderUseBoxes) \
    X(JxlEncoderAddBox) \
    X(JxlEncoderCloseBoxes) \
    X(JxlEncoderInitBasicInfo) \
    X(JxlEncoderSetBasicInfo) \
    X(JxlEncoderInitExtraChannelInfo) \
    X(JxlEncoderSetExtraChannelInfo) \
    X(JxlEncoderSetICCProfile) \
    X(JxlColorEncodingSetToSRGB) \
    X(JxlEncoderSetColorEncoding) \
    X(JxlEncoderFrameSettingsCreate) \
    X(JxlEncoderFrameSettingsSetOption) \
    X(JxlEncoderSetFrameLossless) \
    X(JxlEncoderSetFrameDistance) \
    X(JxlEncoderAddImageFrame) \
    X(JxlEncoderAddJPEGFrame) \
    X(JxlEncoderStoreJPEGMetadata) \
    X(JxlEncoderCloseInput) \
    X(JxlEncoderProcessOutput) \
    X(JxlEncoderGetError)

/* libjxl_threads, beside it: the thread pool a decode lent a core runs on. */
#define CJXL_THREAD_FUNCTIONS(X) \
    X(JxlThreadParallelRunner) \
    X(JxlThreadParallelRunnerCreate) \
    X(JxlThreadParallelRunnerDestroy)

struct cjxl_api {
#define CJXL_POINTER(name) __typeof__(&name) name;
    CJXL_FUNCTIONS(CJXL_POINTER)
    CJXL_THREAD_FUNCTIONS(CJXL_POINTER)
#undef CJXL_POINTER
};
extern struct cjxl_api cjxl_api;

/* 0 once libjxl is loaded (the first call loads it); -1 with the reason in err. */
int cjxl_load(char *err, size_t errlen);

/* libjxl 0.9 dropped these three's unused pixel-format argument: the shim calls them as
   0.9 declares them, and these pass the release that was loaded what it takes. */
JxlDecoderStatus cjxl_color_as_encoded_profile(const JxlDecoder *dec, JxlColorProfileTarget target,
                                               JxlColorEncoding *encoding);
JxlDecoderStatus cjxl_icc_profile_size(const JxlDecoder *dec, JxlColorProfileTarget target, size_t *size);
JxlDecoderStatus cjxl_color_as_icc_profile(const JxlDecoder *dec, JxlColorProfileTarget target, uint8_t *icc,
                                           size_t size);

#ifndef CJXL_API_DEFINITION
#define JxlDecoderCreate (cjxl_api.JxlDecoderCreate)
#define JxlDecoderDestroy (cjxl_api.JxlDecoderDestroy)
#define JxlDecoderSubscribeEvents (cjxl_api.JxlDecoderSubscribeEvents)
#define JxlDecoderSetKeepOrientation (cjxl_api.JxlDecoderSetKeepOrientation)
#define JxlDecoderSetUnpremultiplyAlpha (cjxl_api.JxlDecoderSetUnpremultiplyAlpha)
#define JxlDecoderSetDecompressBoxes (cjxl_api.JxlDecoderSetDecompressBoxes)
#define JxlDecoderSetInput (cjxl_api.JxlDecoderSetInput)
#define JxlDecoderCloseInput (cjxl_api.JxlDecoderCloseInput)
#define JxlDecoderProcessInput (cjxl_api.JxlDecoderProcessInput)
#define JxlDecoderGetBasicInfo (cjxl_api.JxlDecoderGetBasicInfo)
#define JxlDecoderGetICCProfileSize cjxl_icc_profile_size
#define JxlDecoderGetColorAsEncodedProfile cjxl_color_as_encoded_profile
#define JxlDecoderGetColorAsICCProfile cjxl_color_as_icc_profile
#define JxlDecoderGetBoxType (cjxl_api.JxlDecoderGetBoxType)
#define JxlDecoderSetBoxBuffer (cjxl_api.JxlDecoderSetBoxBuffer)
#define JxlDecoderReleaseBoxBuffer (cjxl_api.JxlDecoderReleaseBoxBuffer)
#define JxlDecoderImageOutBufferSize (cjxl_api.JxlDecoderImageOutBufferSize)
#define JxlDecoderSetImageOutBuffer (cjxl_api.JxlDecoderSetImageOutBuffer)
#define JxlDecoderSetParallelRunner (cjxl_api.JxlDecoderSetParallelRunner)
#define JxlDecoderGetFrameHeader (cjxl_api.JxlDecoderGetFrameHeader)
#define JxlDecoderSetCoalescing (cjxl_api.JxlDecoderSetCoalescing)
#define JxlDecoderFlushImage (cjxl_api.JxlDecoderFlushImage)
#define JxlThreadParallelRunner (cjxl_api.JxlThreadParallelRunner)
#define JxlThreadParallelRunnerCreate (cjxl_api.JxlThreadParallelRunnerCreate)
#define JxlThreadParallelRunnerDestroy (cjxl_api.JxlThreadParallelRunnerDestroy)
#define JxlEncoderCreate (cjxl_api.JxlEncoderCreate)
#define JxlEncoderDestroy (cjxl_api.JxlEncoderDestroy)
#define JxlEncoderUseContainer (cjxl_api.JxlEncoderUseContainer)
#define JxlEncoderUseBoxes (cjxl_api.JxlEncoderUseBoxes)
#define JxlEncoderAddBox (cjxl_api.JxlEncoderAddBox)
#define JxlEncoderCloseBoxes (cjxl_api.JxlEncoderCloseBoxes)
#define JxlEncoderInitBasicInfo (cjxl_api.JxlEncoderInitBasicInfo)
#define JxlEncoderSetBasicInfo (cjxl_api.JxlEncoderSetBasicInfo)
#define JxlEncoderInitExtraChannelInfo (cjxl_api.JxlEncoderInitExtraChannelInfo)
#define JxlEncoderSetExtraChannelInfo (cjxl_api.JxlEncoderSetExtraChannelInfo)
#define JxlEncoderSetICCProfile (cjxl_api.JxlEncoderSetICCProfile)
#define JxlColorEncodingSetToSRGB (cjxl_api.JxlColorEncodingSetToSRGB)
#define JxlEncoderSetColorEncoding (cjxl_api.JxlEncoderSetColorEncoding)
#define JxlEncoderFrameSettingsCreate (cjxl_api.JxlEncoderFrameSettingsCreate)
#define JxlEncoderFrameSettingsSetOption (cjxl_api.JxlEncoderFrameSettingsSetOption)
#define JxlEncoderSetFrameLossless (cjxl_api.JxlEncoderSetFrameLossless)
#define JxlEncoderSetFrameDistance (cjxl_api.JxlEncoderSetFrameDistance)
#define JxlEncoderAddImageFrame (cjxl_api.JxlEncoderAddImageFrame)
#define JxlEncoderAddJPEGFrame (cjxl_api.JxlEncoderAddJPEGFrame)
#define JxlEncoderStoreJPEGMetadata (cjxl_api.JxlEncoderStoreJPEGMetadata)
#define JxlEncoderCloseInput (cjxl_api.JxlEncoderCloseInput)
#define JxlEncoderProcessOutput (cjxl_api.JxlEncoderProcessOutput)
#define JxlEncoderGetError (cjxl_api.JxlEncoderGetError)
#endif

#endif
