extension EncodeOptions {
    /// These options for a format that holds no ICC profile, EXIF or XMP (`name`, as
    /// messages call it): each one asked for is left out, and said once.
    func withoutMetadata(in name: String) -> (EncodeOptions, [String]) {
        var o = self, warnings: [String] = []
        if o.iccProfile != nil { warnings.append("\(name) holds no ICC profile; the input's was not carried") }
        if o.exif != nil || o.xmp != nil { warnings.append("\(name) holds no EXIF or XMP; --keep-metadata copied none") }
        o.iccProfile = nil
        o.exif = nil
        o.xmp = nil
        return (o, warnings)
    }
}
