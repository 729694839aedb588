/// A pixel layout with a compile-time channel count, so hot loops can be specialised
/// per layout: the four conforming enums are the four `PixelBuffer` channel layouts.
protocol Layout { static var channels: Int { get } }
enum Gray: Layout { static var channels: Int { 1 } }
enum GrayAlpha: Layout { static var channels: Int { 2 } }
enum RGB: Layout { static var channels: Int { 3 } }
enum RGBA: Layout { static var channels: Int { 4 } }
