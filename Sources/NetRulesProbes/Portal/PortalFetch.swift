@preconcurrency import Glibc
import NetRulesCore
import NetRulesHTTP
import NetRulesSystem

/// One captive-portal probe request over a TCP socket of its own, without libcurl.
///
/// A probe is a plain-HTTP GET whose answer is classified, never followed: nothing of libcurl's
/// (TLS, redirects, proxies, bodies, retries) is needed, and loading it costs about 4.5 ms and
/// some thirty libraries mapped into the process (design note 0002). This does what the probe
/// needs: resolve the name (`Resolver`, with the request's timeout), connect to each address in
/// turn (each gets an equal share of the time left), optionally bound to an interface as
/// `CURLOPT_INTERFACE "if!NAME"` did (`SO_BINDTODEVICE`, else the interface's address when that
/// is not permitted), send one request, and read the answer with `HTTPResponseReader`. The
/// request's timeout bounds the whole exchange; cancelling the caller returns at once and stops
/// the exchange through a `WakeEvent`. The answer and the errors have the same shape as
/// `HTTPClient`'s (`HTTPResponse`, `HTTPError` with the same codes), so the classification and
/// its evidence read the same.
enum PortalFetch {
    static func send(
        _ request: HTTPRequest, executor: BlockingExecutor, loop: ThreadExecutor
    ) async throws(HTTPError) -> HTTPResponse {
        let clock = ContinuousClock()
        let started = clock.now
        let url: ProbeURL
        do {
            url = try ProbeURL(request.url)
        } catch {
            throw HTTPError(code: .invalidRequest, message: "\(error.reason): \(request.url)")
        }
        let addresses: [IPAddress]
        switch await Resolver.resolve(url.host, timeout: request.timeout, on: loop, executor: executor) {
        case .success(let found): addresses = found
        case .failure(let failure):
            if Task.isCancelled { throw cancelled }
            switch failure {
            case .timeout: throw timedOut(request.timeout)
            case .failed(let reason): throw HTTPError(code: .couldNotResolve, message: "\(url.host): \(reason)")
            }
        }
        if Task.isCancelled { throw cancelled }
        // Without an eventfd (EMFILE) cancellation cannot interrupt the wait; the fetch then ends at
        // its own timeout.
        let stop = try? WakeEvent()
        defer { stop?.close() }
        let race = Race<Result<HTTPResponse, HTTPError>>()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                race.install(continuation)
                executor.spawn {
                    let exchange = Exchange(
                        request: request, url: url, started: started, deadline: started + request.timeout, stop: stop)
                    race.finish(exchange.run(addresses))
                }
            }
        } onCancel: {
            race.finish(.failure(cancelled))
            stop?.signal()
        }
        return try outcome.get()
    }

    static let cancelled = HTTPError(code: .cancelled, message: "the request was cancelled")

    static func timedOut(_ limit: Duration) -> HTTPError {
        HTTPError(code: .timeout, message: "no answer within \(DurationSyntax.format(limit))")
    }
}

/// The blocking part of one fetch, on an executor thread.
private struct Exchange {
    var request: HTTPRequest
    var url: ProbeURL
    var started: ContinuousClock.Instant
    var deadline: ContinuousClock.Instant
    var stop: WakeEvent?

    func run(_ addresses: [IPAddress]) -> Result<HTTPResponse, HTTPError> {
        var failure = HTTPError(code: .couldNotConnect, message: "no address for \(url.host)")
        for (position, address) in addresses.enumerated() {
            let now = ContinuousClock.now
            guard now < deadline else { return .failure(PortalFetch.timedOut(request.timeout)) }
            let last = position == addresses.count - 1
            let until = last ? deadline : now + (deadline - now) / (addresses.count - position)
            do throws(HTTPError) {
                let socket = try connect(to: address, until: until, last: last)
                defer { socket.closeDiscardingError() }
                return converse(over: socket)
            } catch {
                if error.code == .cancelled || last { return .failure(error) }
                failure = error
            }
        }
        return .failure(failure)
    }

    // MARK: - Connecting

    private func connect(to address: IPAddress, until: ContinuousClock.Instant, last: Bool) throws(HTTPError)
        -> FileDescriptor
    {
        let target = "\(address) port \(url.port)"
        let socket: FileDescriptor
        do {
            socket = try FileDescriptor.socket(
                domain: address.isV6 ? AF_INET6 : AF_INET, type: CInt(SOCK_STREAM.rawValue), protocol: 0)
        } catch {
            throw HTTPError(code: .other, message: "cannot open a socket: \(error)")
        }
        // This exchange owns the socket until it returns it or closes it: the raw number stays valid.
        // The socket was just opened and is owned by this exchange, so it has a number (see above).
        let fd = (try? socket.withFileDescriptor { $0 }) ?? -1
        do throws(HTTPError) {
            if let interface = request.interface {
                try bind(fd, to: interface, family: address.isV6 ? AF_INET6 : AF_INET)
            }
            let attempt =
                // SocketAddress builds from a parsed IPAddress and cannot fail; EINVAL would still
                // report the connect as failed.
                (try? SocketAddress(address, port: url.port).withSockAddr { pointer, length in
                    sys_connect(fd, pointer, length)
                }) ?? .failure(Errno(rawValue: EINVAL))
            switch attempt {
            case .success: return socket
            // An interrupted connect carries on asynchronously, like a non-blocking one.
            case .failure(.inProgress), .failure(.interrupted): break
            case .failure(let errno):
                throw HTTPError(code: .couldNotConnect, message: "connect to \(target) failed: \(errno)")
            }
            switch try wait(fd, for: Int16(POLLOUT), until: until) {
            case .ready: break
            case .woken: throw PortalFetch.cancelled
            case .timedOut:
                throw last
                    ? PortalFetch.timedOut(request.timeout)
                    : HTTPError(code: .couldNotConnect, message: "connect to \(target) took too long")
            }
            // Getsockopt(SO_ERROR) on our own socket cannot fail short of EBADF; if it did, EIO
            // reports the connect as failed rather than succeeded.
            let error = (try? sys_getsockopt_int(fd, SOL_SOCKET, SO_ERROR).get()) ?? EIO
            if error != 0 {
                throw HTTPError(
                    code: .couldNotConnect, message: "connect to \(target) failed: \(Errno(rawValue: error))")
            }
            return socket
        } catch {
            socket.closeDiscardingError()
            throw error
        }
    }

    /// Sends from `interface` only: `SO_BINDTODEVICE`, which needs CAP_NET_RAW; without it, a
    /// bind to the interface's address of the same family (as curl falls back to).
    private func bind(_ fd: CInt, to interface: String, family: CInt) throws(HTTPError) {
        let name = Array(interface.utf8) + [0]
        switch sys_setsockopt_bytes(fd, SOL_SOCKET, SO_BINDTODEVICE, name) {
        case .success: return
        case .failure(.permissionDenied), .failure(.notPermitted): break
        case .failure(let errno):
            throw HTTPError(code: .couldNotConnect, message: "cannot bind to interface '\(interface)': \(errno)")
        }
        guard let local = Self.address(of: interface, family: family) else {
            throw HTTPError(
                code: .couldNotConnect,
                message:
                    "cannot bind to interface '\(interface)': it has no \(family == AF_INET6 ? "IPv6" : "IPv4") address"
            )
        }
        do {
            _ = try local.withSockAddr { pointer, length throws(SystemCallError) in
                try sys_bind(fd, pointer, length).get(call: "bind")
            }
        } catch {
            throw HTTPError(
                code: .couldNotConnect, message: "cannot bind to the address of interface '\(interface)': \(error)")
        }
    }

    /// The interface's first address of `family`, a link-local one only when there is no other.
    private static func address(of interface: String, family: CInt) -> SocketAddress? {
        sys_getifaddrs { list in
            var found: [SocketAddress] = []
            var cursor = list
            while let entry = cursor {
                defer { cursor = UnsafePointer(entry.pointee.ifa_next) }
                guard let address = entry.pointee.ifa_addr, CInt(address.pointee.sa_family) == family,
                    String(cString: entry.pointee.ifa_name) == interface
                else { continue }
                let length = family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
                if let copy = SocketAddress(address, length: socklen_t(length)) { found.append(copy) }
            }
            return found.first { !isLinkLocal($0.ipAddress) } ?? found.first
        } ?? nil
    }

    /// fe80::/10 or 169.254.0.0/16: usable only with a scope, so a last resort for a bind.
    private static func isLinkLocal(_ address: IPAddress?) -> Bool {
        guard let bytes = address?.bytes, bytes.count >= 2 else { return false }
        return bytes.count == 16 ? bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 : bytes[0] == 169 && bytes[1] == 254
    }

    // MARK: - The request and the answer

    private func converse(over socket: FileDescriptor) -> Result<HTTPResponse, HTTPError> {
        var text = "\(request.method) \(url.target) HTTP/1.1\r\nHost: \(url.authority)\r\n"
        text += "User-Agent: netrules\r\nAccept: */*\r\n"
        for (name, value) in request.headers { text += "\(name): \(value)\r\n" }
        text += "Connection: close\r\n\r\n"
        let message = Array(text.utf8)
        var reader = HTTPResponseReader(bodyLimit: request.maxResponseBytes, requestWasHead: request.method == "HEAD")
        do throws(HTTPError) {
            // The caller owns the socket and closes it after this returns.
            // The caller owns an open socket here (see above), so it has a number; -1 would fail the
            // send with EBADF, reported.
            let fd = (try? socket.withFileDescriptor { $0 }) ?? -1
            try sendAll(message, on: fd)
            let progress = try receive(on: fd, into: &reader)
            switch progress {
            case .complete(let head, let body, let truncated):
                let location = head.value(of: "Location").flatMap { $0.isEmpty ? nil : url.resolve($0) }
                return .success(
                    HTTPResponse(
                        status: head.status, headers: head.headers.map { ($0.name, $0.value) }, body: body,
                        isTruncated: truncated, location: location, duration: ContinuousClock.now - started))
            case .failed(let reason):
                return .failure(HTTPError(code: .other, message: "\(reason) (from \(url.authority))"))
            case .needMore:
                return .failure(HTTPError(code: .other, message: "the answer ended early"))
            }
        } catch {
            return .failure(error)
        }
    }

    private func sendAll(_ message: [UInt8], on fd: CInt) throws(HTTPError) {
        var sent = 0
        while sent < message.count {
            let result = message[sent...].withUnsafeBytes { sys_send(fd, $0, CInt(MSG_NOSIGNAL)) }
            switch result {
            case .success(let count): sent += count
            case .failure(.wouldBlock):
                try waitUntilReady(fd, for: Int16(POLLOUT))
            case .failure(let errno):
                throw HTTPError(code: .other, message: "sending the request to \(url.authority) failed: \(errno)")
            }
        }
    }

    private func receive(on fd: CInt, into reader: inout HTTPResponseReader) throws(HTTPError)
        -> HTTPResponseReader.Progress
    {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let result = buffer.withUnsafeMutableBytes { sys_read(fd, $0) }
            switch result {
            case .success(0):
                return reader.end()
            case .success(let count):
                let progress = reader.consume(buffer[..<count])
                if progress != .needMore { return progress }
            case .failure(.wouldBlock):
                try waitUntilReady(fd, for: Int16(POLLIN))
            case .failure(let errno):
                throw HTTPError(code: .other, message: "reading the answer from \(url.authority) failed: \(errno)")
            }
        }
    }

    /// Waits for `events` on `fd` until the exchange's deadline; throws when it passes or the
    /// caller went away.
    private func waitUntilReady(_ fd: CInt, for events: Int16) throws(HTTPError) {
        switch try wait(fd, for: events, until: deadline) {
        case .ready: return
        case .woken: throw PortalFetch.cancelled
        case .timedOut: throw PortalFetch.timedOut(request.timeout)
        }
    }

    private func wait(_ fd: CInt, for events: Int16, until: ContinuousClock.Instant) throws(HTTPError) -> WaitOutcome {
        do {
            return try waitReadable(fd, events: events, wake: stop, deadline: until)
        } catch {
            throw HTTPError(code: .other, message: "poll failed: \(error)")
        }
    }
}
