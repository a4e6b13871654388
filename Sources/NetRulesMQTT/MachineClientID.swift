internal import CSystemd

/// The default MQTT client id: stable per machine, different per application, and never the
/// machine id itself (sd_id128_get_machine_app_specific(3): HMAC-SHA256 of /etc/machine-id keyed
/// with netrules' application id), so one machine's topics and Home Assistant device do not
/// reveal an id other software uses to track it.
package enum MachineClientID {
    /// netrules' application id for sd_id128_get_machine_app_specific (generated once with
    /// `systemd-id128 new`; changing it changes every machine's default client id).
    static let applicationID: [UInt8] = [
        0x6e, 0x3a, 0x91, 0x0c, 0x5d, 0x24, 0x4f, 0x8b, 0xa1, 0x77, 0x02, 0xe9, 0x3c, 0xb4, 0x58, 0xd6,
    ]

    /// `netrules-` and 16 hex digits of the app-specific id.
    /// - Throws: `MQTTError` when libsystemd cannot be loaded or the machine id cannot be read.
    package static func derive() throws(MQTTError) -> String {
        var message = [CChar](repeating: 0, count: 256)
        guard netrules_sd_bus_load(&message, message.count) == 0 else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw MQTTError("cannot derive a client id from the machine id: \(reason); set mqtt: client_id:")
        }
        var out = [UInt8](repeating: 0, count: 16)
        let result = applicationID.withUnsafeBufferPointer { app in
            out.withUnsafeMutableBufferPointer {
                netrules_sd_id128_get_machine_app_specific(app.baseAddress, $0.baseAddress)
            }
        }
        guard result == 0 else {
            throw MQTTError(
                "cannot derive a client id from the machine id (/etc/machine-id: error \(-result)); set mqtt: client_id:"
            )
        }
        return "netrules-"
            + out.prefix(8).map { byte in
                let digits = Array("0123456789abcdef")
                return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
            }.joined()
    }
}
