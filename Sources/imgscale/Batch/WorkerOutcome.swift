/// What a worker process sends back for one job. It crosses a pipe, so it is a value
/// with a wire form; a message that does not decode counts as the worker's death.
protocol WorkerOutcome {
    func wire() -> [UInt8]
    init?(wire: [UInt8])
    /// Takes what a library printed on the worker's stderr during the job (one line),
    /// so that it is reported with this input instead of unattributed.
    mutating func attach(printed: String)
}
