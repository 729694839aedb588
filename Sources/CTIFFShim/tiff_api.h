#ifndef IMGSCALE_TIFF_API_H
#define IMGSCALE_TIFF_API_H

#include <tiffio.h>
#include <stddef.h>

/* libtiff, opened on first use instead of linked: it brings libdeflate, JBIG-KIT, LERC
   (C++), zstd and xz, six libraries that every process would load and relocate before
   main (0.8 ms of a 9 ms thumbnail) though few inputs are TIFFs. The shim calls libtiff
   by its own names; they are redirected below to the pointers ctiff_load fills. */
#define CTIFF_FUNCTIONS(X) \
    X(TIFFClientOpenExt) \
    X(TIFFClose) \
    X(TIFFCurrentDirOffset) \
    X(TIFFGetField) \
    X(TIFFGetFieldDefaulted) \
    X(TIFFIsTiled) \
    X(TIFFNumberOfStrips) \
    X(TIFFNumberOfTiles) \
    X(TIFFOpenOptionsAlloc) \
    X(TIFFOpenOptionsFree) \
    X(TIFFOpenOptionsSetErrorHandlerExtR) \
    X(TIFFOpenOptionsSetMaxSingleMemAlloc) \
    X(TIFFOpenOptionsSetWarningHandlerExtR) \
    X(TIFFReadDirectory) \
    X(TIFFReadEncodedStrip) \
    X(TIFFReadEncodedTile) \
    X(TIFFRGBAImageBegin) \
    X(TIFFRGBAImageEnd) \
    X(TIFFRGBAImageGet) \
    X(TIFFRGBAImageOK) \
    X(TIFFSetDirectory) \
    X(TIFFSetField) \
    X(TIFFSetSubDirectory) \
    X(TIFFStripSize) \
    X(TIFFTileSize)

struct ctiff_api {
#define CTIFF_POINTER(name) __typeof__(&name) name;
    CTIFF_FUNCTIONS(CTIFF_POINTER)
#undef CTIFF_POINTER
};
extern struct ctiff_api ctiff_api;

/* 0 once libtiff is loaded (the first call loads it); -1 with the reason in err. */
int ctiff_load(char *err, size_t errlen);

#ifndef CTIFF_API_DEFINITION
#define TIFFClientOpenExt (ctiff_api.TIFFClientOpenExt)
#define TIFFClose (ctiff_api.TIFFClose)
#define TIFFCurrentDirOffset (ctiff_api.TIFFCurrentDirOffset)
#define TIFFGetField (ctiff_api.TIFFGetField)
#define TIFFGetFieldDefaulted (ctiff_api.TIFFGetFieldDefaulted)
#define TIFFIsTiled (ctiff_api.TIFFIsTiled)
#define TIFFNumberOfStrips (ctiff_api.TIFFNumberOfStrips)
#define TIFFNumberOfTiles (ctiff_api.TIFFNumberOfTiles)
#define TIFFOpenOptionsAlloc (ctiff_api.TIFFOpenOptionsAlloc)
#define TIFFOpenOptionsFree (ctiff_api.TIFFOpenOptionsFree)
#define TIFFOpenOptionsSetErrorHandlerExtR (ctiff_api.TIFFOpenOptionsSetErrorHandlerExtR)
#define TIFFOpenOptionsSetMaxSingleMemAlloc (ctiff_api.TIFFOpenOptionsSetMaxSingleMemAlloc)
#define TIFFOpenOptionsSetWarningHandlerExtR (ctiff_api.TIFFOpenOptionsSetWarningHandlerExtR)
#define TIFFReadDirectory (ctiff_api.TIFFReadDirectory)
#define TIFFReadEncodedStrip (ctiff_api.TIFFReadEncodedStrip)
#define TIFFReadEncodedTile (ctiff_api.TIFFReadEncodedTile)
#define TIFFRGBAImageBegin (ctiff_api.TIFFRGBAImageBegin)
#define TIFFRGBAImageEnd (ctiff_api.TIFFRGBAImageEnd)
#define TIFFRGBAImageGet (ctiff_api.TIFFRGBAImageGet)
#define TIFFRGBAImageOK (ctiff_api.TIFFRGBAImageOK)
#define TIFFSetDirectory (ctiff_api.TIFFSetDirectory)
#define TIFFSetField (ctiff_api.TIFFSetField)
#define TIFFSetSubDirectory (ctiff_api.TIFFSetSubDirectory)
#define TIFFStripSize (ctiff_api.TIFFStripSize)
#define TIFFTileSize (ctiff_api.TIFFTileSize)
#endif

#endif
