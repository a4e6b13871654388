/// A scalar with its simple lower-, upper- and title-case forms, for `(?i)`.
///
/// Only one-to-one mappings count (`ß` does not become `SS`), as in RE2 and PCRE: a step of the
/// matcher consumes one scalar, so a mapping to several could never line up with the text.
/// Folding both the pattern's literals and the text's scalars makes pairs like `K`/`k`/`K` (Kelvin)
/// meet, whichever of them is written.
///
/// Kept in fixed storage rather than an array: the matcher builds one per scalar of the text and
/// thread, and that must not allocate.
struct CaseVariants {
    private var original: Unicode.Scalar
    private var others: (Unicode.Scalar?, Unicode.Scalar?, Unicode.Scalar?) = (nil, nil, nil)

    init(of scalar: Unicode.Scalar) {
        original = scalar
        if scalar.isASCII {
            // The common case, answered without the Unicode tables.
            let v = scalar.value
            if (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) { others.0 = Unicode.Scalar(v ^ 0x20) }
            return
        }
        let properties = scalar.properties
        others.0 = Self.single(properties.lowercaseMapping, besides: scalar)
        others.1 = Self.single(properties.uppercaseMapping, besides: scalar)
        others.2 = Self.single(properties.titlecaseMapping, besides: scalar)
    }

    /// The scalar itself first, then its distinct variants.
    var all: [Unicode.Scalar] {
        var result = [original]
        for case let other? in [others.0, others.1, others.2] where !result.contains(other) { result.append(other) }
        return result
    }

    func contains(where predicate: (Unicode.Scalar) -> Bool) -> Bool {
        if predicate(original) { return true }
        if let other = others.0, predicate(other) { return true }
        if let other = others.1, predicate(other) { return true }
        if let other = others.2, predicate(other) { return true }
        return false
    }

    private static func single(_ mapping: String, besides scalar: Unicode.Scalar) -> Unicode.Scalar? {
        var scalars = mapping.unicodeScalars.makeIterator()
        guard let only = scalars.next(), scalars.next() == nil, only != scalar else { return nil }
        return only
    }
}
