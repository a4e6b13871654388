import CSystemd
import Testing

@testable import NetRulesActions

/// sd-login (`user: active`) and sd-bus (NetworkManager, the MQTT client id) come from the one
/// libsystemd handle of CSystemd (`library.h`): whichever loads first opens it, the other
/// resolves its functions from the same handle, and both work in one process.
@Suite(.timeLimit(.minutes(1)))
struct LibsystemdHandleTests {
    @Test func sdLoginAndSDBusBothLoadFromTheOneHandle() throws {
        let sessions = try LoginSession.current()
        var message = [CChar](repeating: 0, count: 256)
        let loaded = netrules_sd_bus_load(&message, message.count)
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(loaded == 0, "\(reason)")
        #expect(try LoginSession.current().count == sessions.count)
    }
}
