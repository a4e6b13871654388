import NetRulesCore

/// What is known about each wireless interface's association; a pure value fed by `NL80211Message`s.
package struct WiFiState: Hashable, Sendable {
    /// One wireless interface.
    struct Interface: Hashable, Sendable {
        var name: String
        var ssid: [UInt8]?
        var bssid: MACAddress?
        var frequency: UInt32?
        var signalDBm: Int?

        var isAssociated: Bool { bssid != nil || ssid != nil }
    }

    var interfaces: [Int32: Interface] = [:]

    package init() {}

    /// Applies a decoded message.
    /// - Returns: whether the interface's details should be queried again (after connect or roam,
    ///   whose events carry the BSSID but not the SSID, frequency or signal).
    @discardableResult
    package mutating func apply(_ message: NL80211Message) -> Bool {
        switch message {
        case .interface(let index, let name, let ssid, let frequency):
            var entry = interfaces[index] ?? Interface(name: name)
            entry.name = name
            entry.ssid = ssid
            entry.frequency = frequency ?? (ssid == nil ? nil : entry.frequency)
            if ssid == nil { entry.bssid = nil; entry.signalDBm = nil }
            interfaces[index] = entry
        case .connected(let index, let bssid, let status):
            guard status == 0 else { return false }
            interfaces[index, default: Interface(name: "")].bssid = bssid
            return true
        case .roamed(let index, let bssid):
            interfaces[index, default: Interface(name: "")].bssid = bssid
            return true
        case .disconnected(let index):
            let name = interfaces[index]?.name ?? ""
            interfaces[index] = Interface(name: name)
        case .bss(let index, let bssid, let frequency, let ssid, let signal, let isAssociated):
            guard isAssociated else { return false }
            var entry = interfaces[index] ?? Interface(name: "")
            entry.bssid = bssid
            entry.frequency = frequency ?? entry.frequency
            // A hidden network's SSID can reach the interface empty (from a beacon); the BSS's
            // probe-response elements may name it.
            if entry.ssid?.isEmpty ?? true { entry.ssid = ssid ?? entry.ssid }
            entry.signalDBm = entry.signalDBm ?? signal
            interfaces[index] = entry
        case .station(let index, _, let signal):
            if let signal { interfaces[index, default: Interface(name: "")].signalDBm = signal }
        }
        return false
    }

    /// Sampled signal changes of this many dB or less are not reported: a steady link's reading
    /// jitters by a dB or two, and every report re-evaluates the rules that read `signal`.
    static let signalHysteresis = 2

    /// Whether a sampled signal differs enough from the one last reported to be reported.
    static func isSignalChange(from reported: Int?, to sample: Int) -> Bool {
        guard let reported else { return true }
        return abs(sample - reported) > signalHysteresis
    }

    /// Applies a periodic sample (the `station` reply for the access point), keeping its signal
    /// only past the hysteresis; association events go through `apply(_:)` and are taken as they are.
    /// - Returns: whether the signal changed.
    @discardableResult
    mutating func applySample(_ message: NL80211Message) -> Bool {
        guard case .station(let index, _, let signal?) = message, var entry = interfaces[index], entry.isAssociated,
            Self.isSignalChange(from: entry.signalDBm, to: signal)
        else { return false }
        entry.signalDBm = signal
        interfaces[index] = entry
        return true
    }

    /// The interface whose facts are reported (see `facts`) and its access point: what a sample reads.
    var sampleTarget: (index: Int32, bssid: MACAddress?)? {
        reported.map { ($0.index, $0.entry.bssid) }
    }

    /// The associated interface with the lowest index.
    private var reported: (index: Int32, entry: Interface)? {
        interfaces.filter { $0.value.isAssociated }.min { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The Wi-Fi facts: those of the associated interface with the lowest index, or all absent
    /// when none is associated. SSIDs stay byte-exact (`FactValue.text`).
    package var facts: [FactKey: FactState] {
        guard let (_, entry) = reported else {
            return [.ssid: .absent, .bssid: .absent, .signal: .absent, .frequency: .absent, .interface: .absent]
        }
        return [
            .ssid: entry.ssid.map { .value(.text($0)) } ?? .absent,
            .bssid: entry.bssid.map { .value(.string($0.description)) } ?? .absent,
            .signal: entry.signalDBm.map { .value(.number(Double($0))) } ?? .absent,
            .frequency: entry.frequency.map { .value(.number(Double($0))) } ?? .absent,
            .interface: .value(.string(entry.name)),
        ]
    }

    /// The facts when the kernel has no nl80211: unknown, not absent, because nothing can tell.
    static let unavailableFacts: [FactKey: FactState] = [
        .ssid: .unknown, .bssid: .unknown, .signal: .unknown, .frequency: .unknown, .interface: .unknown,
    ]
}
