/// Two namespaces, `client` (10.77.0.1/24 on `nrc0`) and `server` (10.77.0.2/24 on `nrs0`), joined by a veth pair.
///
/// The addresses exist only inside these namespaces. The client gets a default route via the
/// server unless `defaultRoute` is false (the "no route at all" case).
package final class TestNetwork: Sendable {
    package let client: TestNamespace
    package let server: TestNamespace
    package static let clientAddress = "10.77.0.1"
    package static let serverAddress = "10.77.0.2"

    package init(defaultRoute: Bool = true) throws {
        client = try TestNamespace.create()
        do {
            server = try TestNamespace.create()
        } catch {
            client.delete()
            throw error
        }
        do {
            try client.ip("link", "add", "nrc0", "type", "veth", "peer", "name", "nrs0", "netns", server.name)
            try client.ip("addr", "add", "\(Self.clientAddress)/24", "dev", "nrc0")
            try server.ip("addr", "add", "\(Self.serverAddress)/24", "dev", "nrs0")
            try client.ip("link", "set", "nrc0", "up")
            try server.ip("link", "set", "nrs0", "up")
            if defaultRoute {
                try client.ip("route", "add", "default", "via", Self.serverAddress)
            }
        } catch {
            delete()
            throw error
        }
    }

    /// Deletes both namespaces (and the veth pair with them).
    package func delete() {
        client.delete()
        server.delete()
    }
}
