extension RenderOptions {
    /// Bits per sample in the output.
    public enum Depth: String, Sendable, CaseIterable {
        /// 8 bits, whatever the input's depth (the default, as libvips and sharp).
        case eight = "8"
        /// 16 bits, kept from a 16-bit input through every stage (8-bit inputs widened
        /// exactly); only formats that hold 16 bits can be written so.
        case sixteen = "16"
        /// The input's depth where the output format holds it (and no palette is asked
        /// for), else 8.
        case auto
    }
}

/// The name the package's own code uses.
package typealias OutputDepth = RenderOptions.Depth
