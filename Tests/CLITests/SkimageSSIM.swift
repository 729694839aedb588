/// Python for the tests that hold imgscale's SSIM to scikit-image's, to interpolate at the
/// top of a script: `luma(path)`, the BT.601 luma of a file's RGB premultiplied and laid on
/// white, and `ssim(a, b)`, `structural_similarity` of two files' luma with the Gaussian
/// window (σ 1.5), population covariance and range 255. Exits as a missing reference when
/// scikit-image is not installed.
enum SkimageSSIM {
    static let prelude = """
    import numpy as np
    from PIL import Image
    try:
        from skimage.metrics import structural_similarity
    except ImportError:
        raise SystemExit('No module named skimage')
    def luma(path):
        a = np.asarray(Image.open(path).convert('RGBA')).astype(float)
        w = a[..., 3] / 255
        return (0.299 * a[..., 0] + 0.587 * a[..., 1] + 0.114 * a[..., 2]) * w + 255 * (1 - w)
    def ssim(a, b):
        return structural_similarity(luma(a), luma(b), gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=255)
    """
}
