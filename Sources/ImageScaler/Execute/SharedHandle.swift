/// A C handle used by two threads of one decode (PNG: one inflates while the other
/// unfilters; JPEG: one decodes Huffman codes ahead while the other reads rows). The C
/// side keeps the two threads' state apart; the holder waits for the other thread
/// before the handle is closed.
struct SharedHandle: @unchecked Sendable {  // the C side keeps each thread's state apart
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
