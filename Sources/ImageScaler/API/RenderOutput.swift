extension ImageOperation {
    /// One output of a render: the operation that makes it from the upright image and the
    /// format it is encoded in, nil for the input's own (found by the sniff the render
    /// makes anyway). Several outputs of one input share its decodes
    /// (`ImageOperation.render(_:outputs:decode:encode:settings:)`).
    public struct Output: Sendable {
        public var operation: ImageOperation
        public var format: ImageFormat?
        /// When set, the result also holds the pixels encoded, reduced to fit this box
        /// (`RenderResult.preview`), for placeholders; the output's bytes are the same.
        public var preview: Size? = nil

        public init(_ operation: ImageOperation, as format: ImageFormat? = nil, preview: Size? = nil) {
            self.operation = operation
            self.format = format
            self.preview = preview
        }
    }
}

/// The name the package's own code uses.
package typealias RenderOutput = ImageOperation.Output
