/// A binary min-heap by `less`: the first element is always one no other is less than,
/// and pushing or popping costs a logarithm of the count.
struct BinaryHeap<Element> {
    private var items: [Element] = []
    private let less: (Element, Element) -> Bool

    init(_ items: [Element] = [], less: @escaping (Element, Element) -> Bool) {
        self.less = less
        for item in items { push(item) }
    }

    var first: Element? { items.first }
    var isEmpty: Bool { items.isEmpty }

    mutating func push(_ item: Element) {
        items.append(item)
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard less(items[i], items[p]) else { break }
            items.swapAt(i, p)
            i = p
        }
    }

    /// The least element, removed; the heap must not be empty.
    mutating func pop() -> Element {
        let top = items[0]
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count && less(items[l], items[m]) { m = l }
                if r < items.count && less(items[r], items[m]) { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return top
    }
}
