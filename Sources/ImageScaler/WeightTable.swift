/// Raw views of one axis's weights, taken once per pass so the inner loops see plain pointers.
struct WeightTable {
    let first: UnsafePointer<Int32>
    let count: UnsafePointer<Int32>
    let coefficients: UnsafePointer<Int32>
    let taps: Int
    let outSize: Int
}
