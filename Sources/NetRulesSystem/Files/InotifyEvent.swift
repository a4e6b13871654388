@preconcurrency import Glibc

/// One inotify(7) event, parsed from the bytes `read(2)` returned.
package struct InotifyEvent: Equatable, Sendable {
    /// The watch descriptor the event belongs to; -1 for `IN_Q_OVERFLOW`.
    package var watch: CInt
    /// The `IN_*` bits.
    package var mask: UInt32
    /// Pairs `IN_MOVED_FROM` with `IN_MOVED_TO`.
    package var cookie: UInt32
    /// The name of the entry inside the watched directory; empty for events on the directory itself.
    package var name: String

    /// The size of `struct inotify_event` before its flexible `name` array.
    static let headerSize = 16

    /// An event with these fields.
    package init(watch: CInt, mask: UInt32, cookie: UInt32, name: String) {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }

    /// Parses every complete event in `bytes`; a truncated tail is ignored (the kernel never
    /// splits an event across reads).
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = 0
        while offset + headerSize <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let cookie = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + headerSize
            guard nameStart + length <= bytes.count else { break }
            // The name is NUL-terminated and padded with more NULs to an alignment boundary.
            let nameBytes = bytes[nameStart..<(nameStart + length)].prefix { $0 != 0 }
            events.append(
                InotifyEvent(watch: watch, mask: mask, cookie: cookie, name: String(decoding: nameBytes, as: UTF8.self))
            )
            offset = nameStart + length
        }
        return events
    }
}
