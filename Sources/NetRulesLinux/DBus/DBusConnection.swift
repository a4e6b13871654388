internal import CSystemd
@preconcurrency import Glibc
import NetRulesSystem

/// One connection to a D-Bus bus through sd-bus (libsystemd), for a client on a dedicated thread.
///
/// Not thread-safe: sd-bus objects belong to the thread that uses them, so the observer that owns
/// a connection creates, uses and closes it on its own thread. Signals are received by adding
/// match rules without callbacks: `sd_bus_process` then hands each matched message back.
final class DBusConnection {
    private var bus: OpaquePointer?

    /// The one thread the daemon's D-Bus round trips run on (NetworkManager's, up to 5 s each and
    /// several per report when it hangs): its own lane, so a hung NetworkManager holds neither of
    /// `BlockingPool.shared`'s threads (state and journal writes, `write:` jobs, the outbox) nor
    /// `ChildProcess.spawner` (an action's start). One thread: the calls of one connection are
    /// sequential anyway, and sd-bus objects then stay on the thread that uses them.
    static let lane = BlockingPool(name: "netrules-dbus", limit: 1)

    /// A failed sd-bus call, with its D-Bus error name when the peer sent one.
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var name: String?
        var message: String

        var description: String { "\(call) failed: \(name.map { "\($0): " } ?? "")\(message)" }
    }

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set, as sd-bus honours it), or
    /// to the bus at `address` (`unix:path=…`).
    init(address: String? = nil) throws(Failure) {
        LoopGuard.offLoop("a D-Bus connect")
        // No system bus here: say so without loading libsystemd at all.
        if address == nil, getenv("DBUS_SYSTEM_BUS_ADDRESS") == nil, access(Self.systemBusSocket, F_OK) != 0 {
            throw Failure(call: "sd_bus_open_system", message: "no system bus at \(Self.systemBusSocket)")
        }
        try Self.loadLibrary()
        var bus: OpaquePointer?
        guard let address else {
            let result = netrules_sd_bus_open_system(&bus)
            guard result >= 0, let bus else { throw Failure(call: "sd_bus_open_system", message: Self.text(result)) }
            self.bus = bus
            return
        }
        var result = netrules_sd_bus_new(&bus)
        guard result >= 0, let bus else { throw Failure(call: "sd_bus_new", message: Self.text(result)) }
        result = netrules_sd_bus_set_address(bus, address)
        if result >= 0 { result = netrules_sd_bus_set_bus_client(bus, 1) }
        if result >= 0 { result = netrules_sd_bus_start(bus) }
        guard result >= 0 else {
            netrules_sd_bus_unref(bus)
            throw Failure(call: "sd_bus_start", message: "\(address): \(Self.text(result))")
        }
        self.bus = bus
    }

    deinit { close() }

    /// Where sd-bus finds the system bus when `DBUS_SYSTEM_BUS_ADDRESS` is not set (sd-bus(3)).
    static let systemBusSocket = "/run/dbus/system_bus_socket"

    /// Loads libsystemd on first use; throws what failed when it cannot.
    private static func loadLibrary() throws(Failure) {
        var message = [CChar](repeating: 0, count: 256)
        guard netrules_sd_bus_load(&message, message.count) != 0 else { return }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw Failure(call: "dlopen", message: text)
    }

    /// Flushes and closes the connection; idempotent.
    func close() {
        if let bus { netrules_sd_bus_flush_close_unref(bus) }
        bus = nil
    }

    /// Calls a method with string arguments and returns the reply's arguments.
    func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, arguments: [String] = [],
        timeout: Duration = .seconds(5)
    ) throws(Failure) -> [DBusValue] {
        LoopGuard.offLoop("a D-Bus method call")
        guard let bus else { throw Failure(call: member, message: "the connection is closed") }
        var message: OpaquePointer?
        var result = netrules_sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else { throw Failure(call: member, message: Self.text(result)) }
        defer { netrules_sd_bus_message_unref(message) }
        for argument in arguments {
            result = argument.withCString {
                netrules_sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0)
            }
            guard result >= 0 else { throw Failure(call: member, message: Self.text(result)) }
        }
        var error = sd_bus_error()
        defer { netrules_sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let microseconds = UInt64(timeout.components.seconds) * 1_000_000
        result = netrules_sd_bus_call(bus, message, microseconds, &error, &reply)
        guard result >= 0, let reply else {
            throw Failure(
                call: member, name: error.name.map { String(cString: $0) },
                message: error.message.map { String(cString: $0) } ?? Self.text(result))
        }
        defer { netrules_sd_bus_message_unref(reply) }
        return try DBusMessageReader.arguments(of: reply)
    }

    /// Reads one property (`org.freedesktop.DBus.Properties.Get`).
    func property(_ destination: String, _ path: String, _ interface: String, _ name: String) throws(Failure)
        -> DBusValue
    {
        let values = try call(
            destination, path, "org.freedesktop.DBus.Properties", "Get", arguments: [interface, name])
        guard let value = values.first else { throw Failure(call: "Get", message: "an empty reply") }
        return value.unwrapped
    }

    /// Reads every property of an interface (`org.freedesktop.DBus.Properties.GetAll`).
    func properties(_ destination: String, _ path: String, _ interface: String) throws(Failure) -> [String: DBusValue] {
        let values = try call(destination, path, "org.freedesktop.DBus.Properties", "GetAll", arguments: [interface])
        return values.first?.properties ?? [:]
    }

    /// Asks the bus to deliver messages matching `rule` to this connection.
    func addMatch(_ rule: String) throws(Failure) {
        guard let bus else { throw Failure(call: "AddMatch", message: "the connection is closed") }
        let result = netrules_sd_bus_add_match(bus, nil, rule, nil, nil)
        guard result >= 0 else { throw Failure(call: "AddMatch", message: Self.text(result)) }
    }

    /// A received signal, as far as a client needs it.
    struct Signal {
        var interface: String
        var member: String
        var path: String
        var arguments: [DBusValue]
    }

    /// Processes what the bus has queued and returns the signals among it, without blocking.
    func receive() throws(Failure) -> [Signal] {
        guard let bus else { return [] }
        var signals: [Signal] = []
        while true {
            var message: OpaquePointer?
            let result = netrules_sd_bus_process(bus, &message)
            guard result >= 0 else { throw Failure(call: "sd_bus_process", message: Self.text(result)) }
            if let message {
                defer { netrules_sd_bus_message_unref(message) }
                var type: UInt8 = 0
                if netrules_sd_bus_message_get_type(message, &type) >= 0, type == UInt8(SD_BUS_MESSAGE_SIGNAL) {
                    signals.append(
                        Signal(
                            interface: netrules_sd_bus_message_get_interface(message).map { String(cString: $0) } ?? "",
                            member: netrules_sd_bus_message_get_member(message).map { String(cString: $0) } ?? "",
                            path: netrules_sd_bus_message_get_path(message).map { String(cString: $0) } ?? "",
                            // A signal whose arguments do not decode is still delivered by interface
                            // and member, and every NM handler reads the properties again rather than trusting the
                            // arguments.
                            arguments: (try? DBusMessageReader.arguments(of: message)) ?? []))
                }
            }
            if result == 0 { return signals }
        }
    }

    /// Blocks until the bus has something to process or `wake` is signalled.
    /// - Returns: false when woken (the caller should stop).
    func wait(wake: WakeEvent) throws(Failure) -> Bool {
        guard let (fd, events, deadline) = try readiness() else { return false }
        do {
            return try waitReadable(fd, events: events, wake: wake, deadline: deadline) != .woken
        } catch {
            throw Failure(call: "poll", message: error.errno.message)
        }
    }

    /// What to wait for before the next `receive()`: the bus's descriptor, its poll events, and
    /// sd-bus's own deadline (a method call's timeout), at most a minute away; nil once closed.
    func readiness() throws(Failure) -> (fd: CInt, events: Int16, deadline: ContinuousClock.Instant?)? {
        guard let bus else { return nil }
        let fd = netrules_sd_bus_get_fd(bus)
        let events = netrules_sd_bus_get_events(bus)
        guard fd >= 0, events >= 0 else { throw Failure(call: "sd_bus_get_fd", message: Self.text(min(fd, events))) }
        var timeoutUsec: UInt64 = 0
        var deadline: ContinuousClock.Instant?
        if netrules_sd_bus_get_timeout(bus, &timeoutUsec) >= 0, timeoutUsec != UInt64.max {
            let nowUsec = sys_monotonicMicroseconds()
            let left = timeoutUsec <= nowUsec ? 0 : min(timeoutUsec - nowUsec, 60_000_000)
            deadline = ContinuousClock.now + .microseconds(left)
        }
        return (fd, Int16(events), deadline)
    }

    static func text(_ result: CInt) -> String { Errno(rawValue: -result).message }
}

/// Turns an sd-bus message's arguments into `DBusValue`s.
enum DBusMessageReader {
    static func arguments(of message: OpaquePointer) throws(DBusConnection.Failure) -> [DBusValue] {
        netrules_sd_bus_message_rewind(message, 1)
        var values: [DBusValue] = []
        while let value = try next(message) { values.append(value) }
        return values
    }

    /// The next value at the message's read position, or nil at the end of the current container.
    private static func next(_ message: OpaquePointer) throws(DBusConnection.Failure) -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = netrules_sd_bus_message_peek_type(message, &type, &contents)
        guard peeked > 0 else {
            if peeked < 0 { throw DBusConnection.Failure(call: "peek", message: DBusConnection.text(peeked)) }
            return nil
        }
        let code = UInt8(bitPattern: type)
        switch code {
        case UInt8(ascii: "a"), UInt8(ascii: "v"), UInt8(ascii: "r"), UInt8(ascii: "e"):
            let inner = contents.map { String(cString: $0) } ?? ""
            guard netrules_sd_bus_message_enter_container(message, type, contents) >= 0 else {
                throw DBusConnection.Failure(call: "enter_container", message: "cannot read a '\(inner)' container")
            }
            var items: [DBusValue] = []
            while let item = try next(message) { items.append(item) }
            netrules_sd_bus_message_exit_container(message)
            switch code {
            case UInt8(ascii: "v"): return .variant(items.first ?? .structure([]))
            case UInt8(ascii: "r"), UInt8(ascii: "e"): return .structure(items)
            default:
                if inner == "y" { return .bytes(items.compactMap { if case .byte(let b) = $0 { b } else { nil } }) }
                if inner.hasPrefix("{") {
                    var dictionary: [DBusValue: DBusValue] = [:]
                    for item in items {
                        if case .structure(let pair) = item, pair.count == 2 { dictionary[pair[0]] = pair[1] }
                    }
                    return .dictionary(dictionary)
                }
                return .array(items)
            }
        default:
            return try basic(message, type: type)
        }
    }

    private static func basic(_ message: OpaquePointer, type: CChar) throws(DBusConnection.Failure) -> DBusValue {
        var storage = (UInt64(0), UInt64(0))
        let read = withUnsafeMutableBytes(of: &storage) {
            netrules_sd_bus_message_read_basic(message, type, $0.baseAddress)
        }
        guard read > 0 else { throw DBusConnection.Failure(call: "read_basic", message: DBusConnection.text(read)) }
        return withUnsafeBytes(of: &storage) { raw -> DBusValue in
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "y"): return .byte(raw.load(as: UInt8.self))
            case UInt8(ascii: "b"): return .bool(raw.load(as: CInt.self) != 0)
            case UInt8(ascii: "n"): return .int(Int64(raw.load(as: Int16.self)))
            case UInt8(ascii: "q"): return .uint(UInt64(raw.load(as: UInt16.self)))
            case UInt8(ascii: "i"), UInt8(ascii: "h"): return .int(Int64(raw.load(as: Int32.self)))
            case UInt8(ascii: "u"): return .uint(UInt64(raw.load(as: UInt32.self)))
            case UInt8(ascii: "x"): return .int(raw.load(as: Int64.self))
            case UInt8(ascii: "t"): return .uint(raw.load(as: UInt64.self))
            case UInt8(ascii: "d"): return .double(raw.load(as: Double.self))
            case UInt8(ascii: "s"):
                return .string(raw.load(as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? "")
            case UInt8(ascii: "o"):
                return .objectPath(raw.load(as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? "")
            case UInt8(ascii: "g"):
                return .signature(raw.load(as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? "")
            default: return .structure([])
            }
        }
    }
}
