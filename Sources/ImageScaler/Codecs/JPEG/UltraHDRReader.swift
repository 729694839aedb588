/// Finds an UltraHDR JPEG's gain map from the header's bytes: the MPF index in the base's
/// APP2, the image it lists after the base, which must be a JPEG described as a gain map
/// (ISO 21496-1's APP2, or XMP with `hdrgm:`). Other MPF images (a camera's previews)
/// are no gain map and pass in silence. What is wrong with a map (an index pointing
/// outside the file, a map larger than its base, a map holding maps itself, an index of
/// more than `MPFDirectory.maxImages`) drops the map with one warning: the base image is
/// whole either way. Reads only segment headers and the map's own header.
enum UltraHDRReader {
    static let isoSignature: [UInt8] = Array("urn:iso:std:iso:ts:21496:-1".utf8) + [0]
    static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    static let iccSignature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
    static let gainMapNamespace: [UInt8] = Array("hdr-gain-map".utf8)

    /// The gain map of the JPEG `data` whose base image is `base`, or the warning that
    /// says why one found was dropped; (nil, nil) for a JPEG without one.
    static func find(in data: [UInt8], base: Size) -> (GainMap?, String?) {
        let primary = JPEGSegments(data)
        guard let mpf = primary.app(2, data, startingWith: MPFDirectory.signature).first else { return (nil, nil) }
        let directory: MPFDirectory
        do {
            directory = try MPFDirectory(data, payload: mpf.payload)
        } catch MPFDirectory.Problem.tooManyImages(let n) {
            return (nil, "gain map dropped: its MPF index lists \(n) images, more than the \(MPFDirectory.maxImages) read")
        } catch MPFDirectory.Problem.malformed(let why) {
            return (nil, "gain map dropped: its MPF index is malformed (\(why))")
        } catch {
            return (nil, "gain map dropped: \(error)")
        }
        let origin = mpf.payload.lowerBound + MPFDirectory.offsetBase
        for entry in directory.entries.dropFirst() {
            let start = origin + entry.offset
            guard entry.offset > 0, entry.size > 0, start <= data.count, entry.size <= data.count - start else {
                return (nil, "gain map dropped: its MPF index places image 2 at bytes \(start)-\(start + entry.size) of a \(data.count)-byte file")
            }
            // Walked where it lies: only the map chosen is copied.
            let found = JPEGSegments(data, from: start, end: start + entry.size)
            let isAMap = !found.app(2, data, startingWith: isoSignature).isEmpty
                || found.app(1, data, startingWith: xmpSignature).contains { contains(data[$0.payload], gainMapNamespace) }
            // A preview or depth map, not a gain map.
            guard found.complete, isAMap else { continue }
            if !found.app(2, data, startingWith: MPFDirectory.signature).isEmpty {
                return (nil, "gain map dropped: the gain map is itself a multi-picture file")
            }
            let file = Array(data[start ..< start + entry.size])
            let segments = JPEGSegments(file)
            let iso = segments.app(2, file, startingWith: isoSignature)
            let xmp = segments.app(1, file, startingWith: xmpSignature).filter { contains(file[$0.payload], gainMapNamespace) }
            guard let info = try? JPEGCodec.info(file) else {
                return (nil, "gain map dropped: the gain map's JPEG header does not parse")
            }
            guard info.size.width <= base.width, info.size.height <= base.height else {
                return (nil, "gain map dropped: the gain map (\(info.size)) is larger than its image (\(base))")
            }
            let icc = segments.app(2, file, startingWith: iccSignature)
            let carried = (iso + xmp + icc).sorted { $0.extent.lowerBound < $1.extent.lowerBound }.map { Array(file[$0.extent]) }
            let baseISO = primary.app(2, data, startingWith: isoSignature).map { Array(data[$0.extent]) }
            let baseXMP = primary.app(1, data, startingWith: xmpSignature).first.map { Array(data[$0.payload].dropFirst(xmpSignature.count)) }
            return (GainMap(size: info.size, channels: info.channels, file: file, baseSegments: baseISO,
                            baseXMP: baseXMP.flatMap { contains($0[...], gainMapNamespace) ? $0 : nil }, mapSegments: carried), nil)
        }
        return (nil, nil)
    }

    private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        JPEGSegments.find(needle, in: haystack) != nil
    }
}
