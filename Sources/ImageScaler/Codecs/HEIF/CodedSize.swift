/// The frame size a video bitstream codes, read from its parameter sets before any
/// decoder allocates for it: HEVC's sequence parameter set (pic_width and
/// pic_height_in_luma_samples) and AV1's sequence header (max_frame_width and height).
/// A HEIF item's `ispe` is only a claim; these are what libde265 and dav1d allocate.
enum CodedSize {
    /// The luma size every HEVC SPS in `nals` codes (NAL units without start codes or
    /// length prefixes); nil for an SPS that does not parse.
    static func hevc(sps nal: [UInt8]) -> Size? {
        // The NAL header (2 bytes), then the payload without emulation prevention bytes.
        guard nal.count > 2 else { return nil }
        var payload: [UInt8] = []
        payload.reserveCapacity(nal.count)
        var zeros = 0
        for b in nal[2...] {
            if zeros >= 2 && b == 3 {
                zeros = 0
                continue
            }
            zeros = b == 0 ? zeros + 1 : 0
            payload.append(b)
        }
        var r = BitCursor(payload)
        _ = r.bits(4)  // sps_video_parameter_set_id
        let subLayers = Int(r.bits(3))  // sps_max_sub_layers_minus1
        _ = r.bits(1)
        // profile_tier_level(1, subLayers): the general part is 96 bits.
        _ = r.bits(64)
        _ = r.bits(32)
        var profilePresent = [Bool](), levelPresent = [Bool]()
        for _ in 0..<subLayers {
            profilePresent.append(r.flag())
            levelPresent.append(r.flag())
        }
        if subLayers > 0 { for _ in subLayers..<8 { _ = r.bits(2) } }
        for i in 0..<subLayers {
            if profilePresent[i] { _ = r.bits(64); _ = r.bits(24) }
            if levelPresent[i] { _ = r.bits(8) }
        }
        guard r.unsignedExpGolomb() != nil, let chroma = r.unsignedExpGolomb() else { return nil }
        if chroma == 3 { _ = r.bits(1) }
        guard let w = r.unsignedExpGolomb(), let h = r.unsignedExpGolomb(), !r.overran,
              w <= UInt64(Int32.max), h <= UInt64(Int32.max) else { return nil }
        return Size(width: Int(w), height: Int(h))
    }

    /// HEVC NAL units of type 33 (SPS) in a run of `lengthBytes`-prefixed NAL units.
    static func hevcSPSs(inPrefixed data: ArraySlice<UInt8>, lengthBytes: Int) -> [[UInt8]] {
        var found: [[UInt8]] = []
        var at = data.startIndex
        while data.endIndex - at >= lengthBytes {
            var n = 0
            for i in 0..<lengthBytes { n = n << 8 | Int(data[at + i]) }
            at += lengthBytes
            guard n > 0, n <= data.endIndex - at else { break }
            if (data[at] >> 1) & 0x3F == 33 { found.append(Array(data[at ..< at + n])) }
            at += n
        }
        return found
    }

    /// The maximum frame size of every AV1 sequence header among the OBUs in `data`
    /// (each with its size field, as AV1 in ISOBMFF requires); nil when an OBU or a
    /// sequence header does not parse.
    static func av1(obus data: ArraySlice<UInt8>) -> [Size]? {
        var sizes: [Size] = []
        var at = data.startIndex
        while at < data.endIndex {
            let header = data[at]
            let type = (header >> 3) & 0x0F, hasExtension = header & 4 != 0, hasSize = header & 2 != 0
            at += hasExtension ? 2 : 1
            guard hasSize else { return sizes.isEmpty ? nil : sizes }
            var length = 0, shift = 0
            while true {
                guard at < data.endIndex, shift < 56 else { return nil }
                let b = data[at]
                at += 1
                length |= Int(b & 0x7F) << shift
                shift += 7
                if b & 0x80 == 0 { break }
            }
            guard length <= data.endIndex - at else { return nil }
            if type == 1 {
                guard let s = av1SequenceHeader(Array(data[at ..< at + length])) else { return nil }
                sizes.append(s)
            }
            at += length
        }
        return sizes
    }

    /// max_frame_width_minus_1 + 1 and its height from a sequence_header_obu payload.
    static func av1SequenceHeader(_ payload: [UInt8]) -> Size? {
        var r = BitCursor(payload)
        _ = r.bits(3)  // seq_profile
        _ = r.bits(1)  // still_picture
        if r.flag() {  // reduced_still_picture_header
            _ = r.bits(5)
        } else {
            var decoderModel = false, bufferDelayBits = 0
            if r.flag() {  // timing_info_present_flag
                _ = r.bits(32)
                _ = r.bits(32)
                if r.flag() { _ = r.uvlc() }
                decoderModel = r.flag()
                if decoderModel {
                    bufferDelayBits = Int(r.bits(5)) + 1
                    _ = r.bits(32)
                    _ = r.bits(5)
                    _ = r.bits(5)
                }
            }
            let displayDelay = r.flag()
            let points = Int(r.bits(5)) + 1
            for _ in 0..<points {
                _ = r.bits(12)
                if r.bits(5) > 7 { _ = r.bits(1) }
                if decoderModel, r.flag() {
                    _ = r.bits(bufferDelayBits)
                    _ = r.bits(bufferDelayBits)
                    _ = r.bits(1)
                }
                if displayDelay, r.flag() { _ = r.bits(4) }
            }
        }
        let widthBits = Int(r.bits(4)) + 1, heightBits = Int(r.bits(4)) + 1
        let w = r.bits(widthBits) + 1, h = r.bits(heightBits) + 1
        guard !r.overran else { return nil }
        return Size(width: Int(w), height: Int(h))
    }
}
