import NetRulesHTTP

/// Reads an HTTP/1.x response from the bytes a server sends, as they arrive, for the portal probe.
///
/// A captive portal is a hostile server by definition, so every part is bounded, and so is the
/// whole: the header sections of the final answer, of at most `interimLimit` interim 1xx answers
/// before it, and the chunked body's trailers share one budget of `headerLimit` bytes; the body
/// is kept to `bodyLimit` (the rest is not waited for: the response is then marked truncated);
/// chunk-size lines are at most 1 KiB each and `chunkFramingLimit` together. So a response is
/// at most about `headerLimit + bodyLimit + chunkFramingLimit` bytes, whatever the server sends,
/// and each byte is looked at a fixed number of times, however the server splits its writes. Framing follows RFC 9112 §6.3: no body
/// for HEAD, 1xx, 204 and 304; `Transfer-Encoding: chunked`; else `Content-Length`; else until
/// the server closes. Interim 1xx responses are skipped. Pure: no I/O (`PortalFetch` feeds it).
package struct HTTPResponseReader {
    /// The status line and header fields of the final response.
    package struct Head: Equatable {
        package var status: Int
        package var headers: [Header]

        package struct Header: Equatable {
            package var name: String
            package var value: String
        }

        /// The first field called `name`, compared without regard to ASCII case.
        package func value(of name: String) -> String? {
            let wanted = name.lowercased()
            return headers.first { $0.name.lowercased() == wanted }?.value
        }
    }

    /// What the bytes so far amount to.
    package enum Progress: Equatable {
        case needMore
        /// The whole response (or as much of its body as is kept).
        case complete(Head, body: [UInt8], truncated: Bool)
        case failed(String)
    }

    static let headerLimit = 64 * 1024
    static let chunkLineLimit = 1024
    /// All chunk-size lines and the line ends after chunk data, together.
    static let chunkFramingLimit = 64 * 1024
    /// Interim 1xx answers (`100 Continue`, `103 Early Hints`) accepted before the final one.
    static let interimLimit = 4

    private enum Phase {
        case head
        case fixed(remaining: Int)
        case untilClose
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case done
    }

    private let bodyLimit: Int
    private let isHead: Bool
    private var phase = Phase.head
    /// The header section (or the current chunk-size or trailer line) read so far.
    private var pending: [UInt8] = []
    /// How many bytes of `pending` were already searched for the end of the section or line.
    private var scanned = 0
    private var head: Head?
    private var body: [UInt8] = []
    private var truncated = false
    private var outcome = Progress.needMore
    /// What is left of `headerLimit` for header sections and trailers.
    private var headerBudget = HTTPResponseReader.headerLimit
    /// What is left of `chunkFramingLimit`.
    private var chunkFramingBudget = HTTPResponseReader.chunkFramingLimit
    private var interimCount = 0

    /// - Parameters:
    ///   - bodyLimit: The most body bytes kept.
    ///   - requestWasHead: Whether the request was HEAD (its response has no body).
    package init(bodyLimit: Int, requestWasHead: Bool = false) {
        self.bodyLimit = bodyLimit
        self.isHead = requestWasHead
    }

    /// Takes the next bytes the server sent; returns `.needMore` until the response is whole or
    /// unusable, then that outcome (also for any later call).
    package mutating func consume(_ bytes: ArraySlice<UInt8>) -> Progress {
        var input = bytes
        while !input.isEmpty, outcome == .needMore {
            switch phase {
            case .head:
                input = readHead(input)
            case .fixed(let remaining):
                let left = takeBody(&input, upTo: remaining)
                phase = left == 0 ? .done : .fixed(remaining: left)
            case .untilClose:
                keep(input)
                input = input.dropFirst(input.count)
            case .chunkSize:
                guard let line = takeLine(&input, limit: Self.chunkLineLimit) else { continue }
                guard spendChunkFraming(line.count + 2) else { continue }
                // The size is hex digits, then optional extensions after ';'.
                let digits = line.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != 0x20 && $0 != 0x09 }
                // Only hex digits: Int(_:radix:) would also take a sign ("-1").
                guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy(\.isHexDigit),
                    let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
                else {
                    outcome = .failed("a malformed chunk size")
                    continue
                }
                phase = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let left = takeBody(&input, upTo: remaining)
                phase = left == 0 ? .chunkDataEnd : .chunkData(remaining: left)
            case .chunkDataEnd:
                guard let line = takeLine(&input, limit: 2) else { continue }
                if !line.isEmpty { outcome = .failed("a chunk longer than its size") }
                guard spendChunkFraming(2) else { continue }
                phase = .chunkSize
            case .trailers:
                // Trailers are header fields too: they spend what the header sections left (a line
                // may overdraw it once, by at most `headerLimit`).
                guard let line = takeLine(&input, limit: Self.headerLimit) else { continue }
                headerBudget -= line.count + 2
                if headerBudget < 0 {
                    outcome = .failed(Self.headerBudgetSpent)
                } else if line.isEmpty {
                    phase = .done
                }
            case .done:
                input = input.dropFirst(input.count)
            }
            if case .done = phase, outcome == .needMore { finishBody() }
        }
        if case .done = phase, outcome == .needMore { finishBody() }
        return outcome
    }

    /// `consume` for a whole array.
    package mutating func consume(_ bytes: [UInt8]) -> Progress { consume(bytes[...]) }

    /// The server closed the connection: the outcome now (a body read until the close ends here).
    package mutating func end() -> Progress {
        guard outcome == .needMore else { return outcome }
        switch phase {
        // After the last chunk only trailers can follow: the body is whole even if they are cut off.
        case .untilClose, .done, .trailers: finishBody()
        case .head: outcome = .failed("the connection closed before the response's header section ended")
        default: outcome = .failed("the connection closed before the response's body ended")
        }
        return outcome
    }

    // MARK: - Parts

    private static let headerBudgetSpent =
        "the response's header sections and trailers are longer than \(headerLimit / 1024) KiB together"

    /// Spends `count` bytes of the chunk framing budget; false (and the response failed) when spent.
    private mutating func spendChunkFraming(_ count: Int) -> Bool {
        chunkFramingBudget -= count
        guard chunkFramingBudget < 0 else { return true }
        outcome = .failed("the chunked body's size lines are longer than \(Self.chunkFramingLimit / 1024) KiB together")
        return false
    }

    private mutating func finishBody() {
        guard let head else { return }
        outcome = .complete(head, body: body, truncated: truncated)
    }

    /// Takes up to `count` body bytes from `input`; returns how many are still to come.
    private mutating func takeBody(_ input: inout ArraySlice<UInt8>, upTo count: Int) -> Int {
        let taken = input.prefix(count)
        keep(taken)
        input = input.dropFirst(taken.count)
        return count - taken.count
    }

    /// Keeps body bytes up to the limit; past it the response is complete and truncated.
    private mutating func keep(_ bytes: some Collection<UInt8>) {
        let room = bodyLimit - body.count
        body.append(contentsOf: bytes.prefix(room))
        if bytes.count > room {
            truncated = true
            finishBody()
        }
    }

    /// Adds to the header section until its blank line, then parses it.
    private mutating func readHead(_ input: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let before = pending.count
        pending.append(contentsOf: input.prefix(headerBudget - before))
        // A blank line is "\n\n" or "\n\r\n"; resume the search a few bytes back.
        var index = max(scanned - 2, 0)
        var end: Int?
        while index < pending.count {
            if pending[index] == 0x0A {
                if index + 1 < pending.count, pending[index + 1] == 0x0A {
                    end = index + 2
                    break
                }
                if index + 2 < pending.count, pending[index + 1] == 0x0D, pending[index + 2] == 0x0A {
                    end = index + 3
                    break
                }
            }
            index += 1
        }
        scanned = pending.count
        guard let end else {
            if pending.count >= headerBudget {
                outcome = .failed(
                    interimCount == 0
                        ? "the response's header section is longer than \(Self.headerLimit / 1024) KiB"
                        : Self.headerBudgetSpent)
            }
            return input.dropFirst(input.count)
        }
        // What followed the blank line in this read is the body's start (the blank line cannot
        // end in bytes an earlier call searched, or that call would have found it).
        let used = end - before
        let section = Array(pending[..<end])
        pending = []
        scanned = 0
        headerBudget -= end
        guard let parsed = Self.parseHead(section) else {
            outcome = .failed("not an HTTP/1.x response")
            return input.dropFirst(input.count)
        }
        if (100..<200).contains(parsed.status) && parsed.status != 101 {
            // An interim response: the final one follows, within the budget left.
            interimCount += 1
            if interimCount > Self.interimLimit {
                outcome = .failed("more than \(Self.interimLimit) interim (1xx) answers")
            }
            return input.dropFirst(used)
        }
        head = parsed
        phase = framing(of: parsed)
        if case .done = phase { finishBody() }
        return input.dropFirst(used)
    }

    private func framing(of head: Head) -> Phase {
        if isHead || head.status < 200 || head.status == 204 || head.status == 304 { return .done }
        if let coding = head.value(of: "Transfer-Encoding"),
            coding.split(separator: ",").last?.trimmingSpaces().lowercased() == "chunked"
        {
            return .chunkSize
        }
        // Field values are trimmed when the header section is parsed.
        if let length = head.value(of: "Content-Length"),
            !length.isEmpty, length.count <= 18, length.allSatisfy({ $0.isASCII && $0.isNumber }),
            let count = Int(length)
        {
            return count == 0 ? .done : .fixed(remaining: count)
        }
        return .untilClose
    }

    /// Takes one line (without its CR LF or LF) from `pending` plus `input`; nil until a whole
    /// line is there. A line longer than `limit` fails the response.
    private mutating func takeLine(_ input: inout ArraySlice<UInt8>, limit: Int) -> [UInt8]? {
        if let newline = input.firstIndex(of: 0x0A) {
            var line = pending + input[..<newline]
            input = input[(newline + 1)...]
            pending = []
            if line.last == 0x0D { line.removeLast() }
            if line.count > limit {
                outcome = .failed("a line longer than \(limit) bytes in the body's framing")
                return nil
            }
            return line
        }
        pending.append(contentsOf: input)
        input = input.dropFirst(input.count)
        if pending.count > limit + 1 { outcome = .failed("a line longer than \(limit) bytes in the body's framing") }
        return nil
    }

    /// The status line and fields of one header section; nil when it is not HTTP/1.x.
    static func parseHead(_ section: [UInt8]) -> Head? {
        var lines = section.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let statusLine = lines.first else { return nil }
        // "HTTP/1.1 200 OK": the version, a space, three digits, then a space and the reason or nothing.
        let prefix = Array("HTTP/1.".utf8)
        guard statusLine.count >= 12, Array(statusLine.prefix(7)) == prefix,
            statusLine[statusLine.startIndex + 7].isDigit, statusLine[statusLine.startIndex + 8] == 0x20
        else { return nil }
        let code = statusLine[(statusLine.startIndex + 9)..<(statusLine.startIndex + 12)]
        guard code.allSatisfy(\.isDigit), statusLine.count == 12 || statusLine[statusLine.startIndex + 12] == 0x20
        else { return nil }
        let status = code.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        var headers: [Head.Header] = []
        for line in lines.dropFirst() {
            // A folded continuation line (obsolete) and a line without a colon carry no field.
            guard let first = line.first, first != 0x20, first != 0x09, let colon = line.firstIndex(of: 0x3A) else {
                continue
            }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces()
            headers.append(.init(name: name, value: value))
        }
        return Head(status: status, headers: headers)
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= 0x30 && self <= 0x39 }
    fileprivate var isHexDigit: Bool { isDigit || (self | 0x20 >= 0x61 && self | 0x20 <= 0x66) }
}
