/// Native-endian reading and writing of integers in byte arrays, as netlink lays them out.
///
/// Netlink carries host-order integers; only addresses and ports inside attributes are in
/// network order, and those are kept as bytes.
extension Array where Element == UInt8 {
    /// Reads a host-order integer at `offset`; zero when the array is too short.
    func readInteger<T: FixedWidthInteger>(at offset: Int, as: T.Type = T.self) -> T {
        guard offset >= 0, offset + MemoryLayout<T>.size <= count else { return 0 }
        return withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    /// Reads a C structure at `offset`, or nil when the array is too short.
    func readStruct<T>(at offset: Int = 0, as: T.Type) -> T? {
        guard offset + MemoryLayout<T>.size <= count else { return nil }
        return withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    /// Appends a host-order integer.
    mutating func appendInteger<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value) { append(contentsOf: $0) }
    }

    /// Appends the bytes of a C structure.
    mutating func appendStruct<T>(_ value: T) {
        Swift.withUnsafeBytes(of: value) { append(contentsOf: $0) }
    }

    /// Pads with zero bytes to netlink's 4-byte alignment.
    mutating func padToAlignment() {
        while count % 4 != 0 { append(0) }
    }

    /// The bytes up to the first NUL, as text (lossy for invalid UTF-8).
    var cString: String {
        let end = firstIndex(of: 0) ?? count
        return String(decoding: self[..<end], as: UTF8.self)
    }
}
