@preconcurrency import Glibc

/// A file of lines that grows only at its end and is read back whole: the daemon's state journal
/// segments and its firing history.
///
/// A line is appended with one write(2) on an `O_APPEND` descriptor, opened when first needed
/// (created with mode 0600, `O_NOFOLLOW` so a planted symlink is refused, `O_CLOEXEC`), so a SIGKILL
/// at any instant leaves whole lines and at most one cut-off last line, which `read` leaves out. A
/// short write is continued with the rest (a regular file writes short only when the disk fills
/// up or a signal arrives, and the next write(2) then says why). When the rest cannot be written,
/// the part that was is cut off again (ftruncate(2)), so an append that fails leaves the file as it
/// was and the next one can retry into the same file; should that fail too, the next append starts
/// with a newline, so only the cut-off line is lost, never the one after it. `rewrite` replaces the
/// file atomically (`AtomicFile.replace`), which is how a log is compacted.
///
/// When the lines must reach the disk is the owner's policy: `open()` returns the descriptor for
/// an fdatasync(2) elsewhere; whoever holds it last closes it.
///
/// Not thread-safe: one owner appends and rewrites.
package final class AppendLog {
    /// The file's path.
    package let path: String
    private var descriptor: FileDescriptor?
    /// The file may end in part of a line that could not be cut off: the next append ends it first.
    private var endsInPartialLine = false

    /// A log at `path`; nothing is opened yet.
    package init(path: String) {
        self.path = path
    }

    /// Opens the file for appending if it is not open (creating it), and returns its descriptor.
    /// - Throws: `SystemCallError` from open(2) (`ELOOP` for a symlink).
    @discardableResult
    package func open() throws(SystemCallError) -> FileDescriptor {
        if let descriptor { return descriptor }
        let flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW
        let opened = FileDescriptor(taking: try sys_open(path, flags, 0o600).get(call: "open"))
        descriptor = opened
        return opened
    }

    /// Appends `line` and a newline with one write(2), opening the file first if needed.
    /// - Throws: `SystemCallError` when it cannot be opened or written. What part of the line was
    ///   written is cut off again; `close()` makes the next append open the file again.
    package func append(_ line: [UInt8]) throws(SystemCallError) {
        let newline = UInt8(ascii: "\n")
        let bytes = endsInPartialLine ? [newline] + line + [newline] : line + [newline]
        try open().withFileDescriptor { fd throws(SystemCallError) in
            var offset = 0
            while offset < bytes.count {
                switch bytes[offset...].withUnsafeBytes({ sys_write(fd, $0) }) {
                case .success(let written):
                    offset += written
                case .failure(let errno):
                    if offset > 0 { cutOff(offset, from: fd) }
                    throw SystemCallError(call: "write", errno: errno)
                }
            }
        }
        endsInPartialLine = false
    }

    /// Removes the last `count` bytes of the file (what a failed append wrote), or failing that
    /// remembers that the file ends in part of a line.
    private func cutOff(_ count: Int, from fd: CInt) {
        guard case .success(let info) = sys_fstat(fd), info.st_size >= count,
            case .success = sys_ftruncate(fd, info.st_size - off_t(count))
        else {
            endsInPartialLine = true
            return
        }
    }

    /// Lets go of the descriptor: it closes now, or when another holder of it lets go too.
    package func close() {
        descriptor?.closeDiscardingError()
        descriptor = nil
    }

    /// Replaces the file with `lines`, each with a newline, atomically and without fsync; the next
    /// append opens the new file.
    /// - Throws: `SystemCallError` from `AtomicFile.replace`; the old file is then still there.
    package func rewrite(lines: [[UInt8]]) throws(SystemCallError) {
        close()
        var bytes: [UInt8] = []
        for line in lines {
            bytes += line
            bytes.append(UInt8(ascii: "\n"))
        }
        try AtomicFile.replace(path, with: bytes, mode: 0o600, sync: false)
        endsInPartialLine = false
    }

    /// What `read` found.
    package struct Contents: Sendable {
        /// The complete lines, oldest first, without their newlines; empty lines are left out.
        package var lines: [[UInt8]] = []
        /// Lines longer than the maximum, left out.
        package var overLong = 0
        /// Whether the file ended in a line without its newline (a write cut off), left out.
        package var cutOff = false
    }

    /// The lines of the log at `path`: at most the last `maximumReadLength` bytes are read (the
    /// first line is then only the end of one, and left out), lines longer than
    /// `maximumLineLength` are left out, and so is a last line without its newline.
    /// - Returns: nil when there is no such file.
    /// - Throws: `SystemCallError` naming the call that failed: `open` (`ELOOP` for a symlink),
    ///   `fstat` (`EINVAL` for something other than a regular file) or `pread`.
    package static func read(
        _ path: String, maximumLineLength: Int, maximumReadLength: Int
    ) throws(SystemCallError) -> Contents? {
        let fd: CInt
        switch sys_open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0) {
        case .success(let opened): fd = opened
        case .failure(.noSuchFileOrDirectory): return nil
        case .failure(let errno): throw SystemCallError(call: "open", errno: errno)
        }
        let file = FileDescriptor(taking: fd)
        defer { file.closeDiscardingError() }
        let info = try sys_fstat(fd).get(call: "fstat")
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SystemCallError(call: "fstat", errno: Errno(rawValue: EINVAL))
        }
        let size = Int(info.st_size)
        let start = max(0, size - maximumReadLength)
        var bytes = [UInt8](repeating: 0, count: size - start)
        var filled = 0
        while filled < bytes.count {
            let count = try bytes.withUnsafeMutableBytes { buffer in
                sys_pread(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), off_t(start + filled))
            }.get(call: "pread")
            guard count > 0 else { break }
            filled += count
        }
        var contents = Contents()
        var lineStart = 0
        // Reading from the middle: the first line is only the end of one.
        var first = start > 0
        for index in 0..<filled where bytes[index] == UInt8(ascii: "\n") {
            defer {
                lineStart = index + 1
                first = false
            }
            guard !first, index > lineStart else { continue }
            if index - lineStart > maximumLineLength {
                contents.overLong += 1
            } else {
                contents.lines.append(Array(bytes[lineStart..<index]))
            }
        }
        contents.cutOff = lineStart < filled && !(first && start > 0)
        return contents
    }
}
