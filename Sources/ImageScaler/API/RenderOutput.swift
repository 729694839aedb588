extension ImageOperation {
    /// One output of a render: the operation that makes it from the upright image and the
    /// format it is encoded in, nil for the input's own (found by the sniff the render
    /// makes anyway). Several outputs of one input share its decodes
    /// (`ImageOperation.render(_:outputs:decode:encode:settings:)`).
    public struct Output: Sendable {
        public var operation: ImageOperation
        public var format: ImageFormat?

        public init(_ operation: ImageOperation, as format: ImageFormat? = nil) {
            self.operation = operation
            self.format = format
        }
    }
}

/// The name the package's own code uses.
package typealias RenderOutput = ImageOperation.Output
