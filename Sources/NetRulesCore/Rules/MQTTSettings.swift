/// The top-level `mqtt:` map: the broker the daemon publishes its state and firings to, and what
/// it publishes (docs/mqtt.md).
///
/// A rule set without `mqtt:` has none (`RuleSet.mqtt` is nil) and the daemon runs no client.
public struct MQTTSettings: Hashable, Sendable {
    /// Where the broker listens.
    public enum Broker: Hashable, Sendable, CustomStringConvertible {
        /// `mqtt://HOST:PORT` (plain TCP, port 1883 by default) or `mqtts://HOST:PORT` (TLS, the
        /// broker's certificate verified; port 8883 by default).
        case tcp(host: String, port: Int, tls: Bool)
        /// `unix:/path`: a broker's unix-domain socket.
        case unix(path: String)

        /// Whether the connection uses TLS.
        public var usesTLS: Bool {
            if case .tcp(_, _, true) = self { return true }
            return false
        }

        /// Whether the broker runs on this machine (a unix socket, `localhost` or a loopback
        /// address): it needs no route, and trying it costs nothing.
        public var isLocal: Bool {
            switch self {
            case .unix: true
            case .tcp(let host, _, _): host == "localhost" || host.hasPrefix("127.") || host == "::1"
            }
        }

        /// The broker as written in `broker:` (with the default port filled in).
        public var description: String {
            switch self {
            case .tcp(let host, let port, let tls):
                let shown = host.contains(":") ? "[\(host)]" : host
                return "\(tls ? "mqtts" : "mqtt")://\(shown):\(port)"
            case .unix(let path): return "unix:\(path)"
            }
        }
    }

    /// `discovery: { prefix, name }`: Home Assistant's MQTT discovery.
    public struct Discovery: Hashable, Sendable {
        /// The discovery prefix Home Assistant listens on (`homeassistant`).
        public var prefix: String
        /// The device's name in Home Assistant; nil: the host name.
        public var name: String?

        /// Creates discovery settings; `homeassistant` and the host name by default.
        public init(prefix: String = "homeassistant", name: String? = nil) {
            self.prefix = prefix
            self.name = name
        }
    }

    /// The facts published by default.
    public static let defaultPublished: [FactKey] = ["ssid", "connectivity", "place", "vpn", "network", "signal"]
    /// The shortest keepalive: Home Assistant's floor.
    public static let minimumKeepalive: Duration = .seconds(15)
    /// The longest keepalive: past it, NAT and firewalls forget idle connections.
    public static let maximumKeepalive: Duration = .seconds(300)

    /// Where the broker listens.
    public var broker: Broker
    /// The MQTT client id; nil: derived from the machine id (`netrules-` and 16 hex digits of an
    /// app-specific HMAC-SHA256 of it, never the raw id).
    public var clientID: String?
    /// The user name given to the broker, if any.
    public var username: String?
    /// The environment variable `password: "{{env.NAME}}"` names: the password is read from the
    /// daemon's environment when it connects and is never written to disk or logged.
    public var passwordVariable: String?
    /// The CA certificates that verify the broker (`mqtts://`); nil: the system's.
    public var caFile: String?
    /// A client certificate and its key, for brokers that authenticate clients by certificate.
    public var certFile: String?
    /// The private key of `certFile`.
    public var keyFile: String?
    /// `insecure: true`: the broker's certificate is not checked against its host name. Never
    /// implied; `check` warns about it.
    public var insecure: Bool
    /// How often the client and the broker hear from each other when idle.
    public var keepalive: Duration
    /// The topics' prefix; nil: `netrules/<client id>`.
    public var topicPrefix: String?
    /// The facts `<prefix>/state` holds, in this order.
    public var published: [FactKey]
    /// Home Assistant discovery, or nil (`discovery: false`).
    public var discovery: Discovery?
    /// `subscribe: { NAME: TOPIC }`: topics whose last message is the fact `mqtt.NAME`.
    public var subscriptions: [Subscription]
    /// `commands: true`: the daemon subscribes to `<prefix>/rule/+/set`, where `ON` resumes a
    /// rule and `OFF` pauses it (a Home Assistant `switch` per rule). Off unless asked for: a
    /// command from the broker changes what the daemon does, so whoever may publish there must be
    /// chosen first (docs/mqtt.md has the ACL).
    public var commands: Bool

    /// One `subscribe:` entry.
    public struct Subscription: Hashable, Sendable {
        /// The fact's name after `mqtt.`.
        public var name: String
        /// The topic filter (may hold `+` and `#`).
        public var topic: String

        /// Creates a subscription of `topic` as `mqtt.<name>`.
        public init(name: String, topic: String) {
            self.name = name
            self.topic = topic
        }

        /// The fact the subscription sets.
        public var factKey: FactKey { FactKey("mqtt.\(name)") }
    }

    /// Creates settings for `broker`; every other key has its documented default.
    public init(
        broker: Broker, clientID: String? = nil, username: String? = nil, passwordVariable: String? = nil,
        caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil, insecure: Bool = false,
        keepalive: Duration = .seconds(60), topicPrefix: String? = nil,
        published: [FactKey] = MQTTSettings.defaultPublished, discovery: Discovery? = Discovery(),
        subscriptions: [Subscription] = [], commands: Bool = false
    ) {
        self.broker = broker
        self.clientID = clientID
        self.username = username
        self.passwordVariable = passwordVariable
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.insecure = insecure
        self.keepalive = keepalive
        self.topicPrefix = topicPrefix
        self.published = published
        self.discovery = discovery
        self.subscriptions = subscriptions
        self.commands = commands
    }

    /// The prefix of every topic the client publishes, for the client id it connects with.
    public func prefix(clientID: String) -> String {
        topicPrefix ?? "netrules/\(clientID)"
    }

    /// Whether `id` may be an MQTT client id here: it is also a topic level and a Home Assistant
    /// discovery id, so only `[a-zA-Z0-9_-]`, 1–64 characters.
    public static func isValidClientID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy { b in
                (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x2D
                    || b == 0x5F
            }
    }

    /// Why `topic` cannot be a topic to publish on (a wildcard, an empty level, a NUL), or nil.
    public static func publishTopicProblem(_ topic: String) -> String? {
        if topic.isEmpty { return "a topic cannot be empty" }
        if topic.utf8.count > 65535 { return "a topic is at most 65535 bytes" }
        if topic.contains("+") || topic.contains("#") { return "a topic to publish on cannot hold '+' or '#'" }
        if topic.unicodeScalars.contains(where: { $0.value == 0 }) { return "a topic cannot hold NUL" }
        if topic.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "a topic cannot have an empty level ('//', or '/' at either end)"
        }
        return nil
    }
}
