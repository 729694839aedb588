import Foundation
import XCTest

/// An outside reference (a tool, Pillow, a profile, the install) that is not here: the test is
/// skipped, saying SKIPPED and why, except with IMGSCALE_REQUIRE_REFERENCES=1 (set by
/// .ci/run), where it fails and names what is missing, so a broken install step cannot
/// leave CI green with the references unchecked. The shared corpus (../shared/testdata) is
/// not one: a checkout elsewhere has none, and its tests say SKIPPED there.
public func missingReference(_ what: String) -> Error {
    if ProcessInfo.processInfo.environment["IMGSCALE_REQUIRE_REFERENCES"] == "1" { return ReferenceMissing(what: what) }
    return XCTSkip("SKIPPED: " + what)
}

/// A reference that part of a test needs is not here and the rest still ran: a line saying
/// SKIPPED (in part) and why, or under IMGSCALE_REQUIRE_REFERENCES=1 the failure naming it.
public func partlyMissing(_ what: String) throws {
    if ProcessInfo.processInfo.environment["IMGSCALE_REQUIRE_REFERENCES"] == "1" { throw ReferenceMissing(what: what) }
    print("SKIPPED (in part): " + what)
}

/// The failure a missing reference is in CI.
public struct ReferenceMissing: Error, CustomStringConvertible {
    public let what: String
    public var description: String { "REQUIRED REFERENCE MISSING (IMGSCALE_REQUIRE_REFERENCES=1): \(what)" }
}
