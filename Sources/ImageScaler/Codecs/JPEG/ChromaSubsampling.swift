extension RenderOptions {
    /// JPEG chroma subsampling: how many luma samples share one chroma sample, named as
    /// usual (4:4:4 none, 4:2:2 horizontal halving, 4:2:0 both directions).
    public enum ChromaSubsampling: String, Sendable, CaseIterable {
        case s444 = "444"
        case s422 = "422"
        case s420 = "420"

        /// The number the C shim takes.
        /// Invariant: every raw value ("444", "422", "420") is digits.
        var code: Int32 { Int32(rawValue)! }
    }
}

/// The name the package's own code uses.
package typealias ChromaSubsampling = RenderOptions.ChromaSubsampling
