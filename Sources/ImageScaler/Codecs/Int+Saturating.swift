extension Int {
    /// The product, or `Int.max` where it would overflow: a header's sizes are the
    /// attacker's, and a working-memory estimate that saturates is refused by the budget
    /// where one that overflowed would trap.
    static func saturatingProduct(_ factors: Int...) -> Int {
        var product = 1
        for f in factors {
            let (p, overflow) = product.multipliedReportingOverflow(by: f)
            if overflow || f < 0 { return Int.max }
            product = p
        }
        return product
    }

    /// The sum of two non-negative sizes, or `Int.max` where it would overflow.
    static func saturatingSum(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Int.max : sum
    }
}
