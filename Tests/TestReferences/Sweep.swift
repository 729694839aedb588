import Foundation

/// Byte-identity sweeps check arithmetic, which a sanitizer does not change. Under the
/// sanitizers (IMGSCALE_SANITIZED set) a sweep takes every `stride`-th case, starting
/// with the first; the plain run takes every case. Tests of damaged, hostile or
/// threaded input never sample.
public enum Sweep {
    public static let sanitized = ProcessInfo.processInfo.environment["IMGSCALE_SANITIZED"] != nil

    public static func sample<S: Sequence>(_ cases: S, every stride: Int) -> [S.Element] {
        let all = Array(cases)
        guard sanitized, stride > 1 else { return all }
        return all.enumerated().compactMap { $0.offset % stride == 0 ? $0.element : nil }
    }
}
