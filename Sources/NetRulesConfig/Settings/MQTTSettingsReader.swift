import NetRulesCore

/// The reader of the top-level `mqtt:` section (docs/mqtt.md).
extension ValidationContext {
    static let mqttKeys = [
        "broker", "client_id", "username", "password", "ca_file", "cert_file", "key_file", "insecure", "keepalive",
        "topic_prefix", "publish", "discovery", "subscribe", "commands",
    ]

    /// `mqtt: { broker, client_id, username, password, ca_file, cert_file, key_file, insecure,
    /// keepalive, topic_prefix, publish, discovery, subscribe, commands }`; nil when anything in it is wrong
    /// (each problem reported).
    mutating func mqtt(_ node: YAMLNode, _ path: KeyPath) -> MQTTSettings? {
        guard let m = mapping(node, path) else { return nil }
        // A misspelt key (`pasword:`) must not connect without what it meant to set.
        let before = diagnostics.count
        rejectUnknownKeys(m, path, known: Self.mqttKeys, what: "mqtt")
        var ok = diagnostics.count == before
        guard let brokerNode = m["broker"] else {
            error(
                "'mqtt' needs 'broker'", at: m.mark, path: path,
                hint: "broker: mqtt://HOST:PORT, mqtts://HOST:PORT or unix:/path")
            return nil
        }
        guard let broker = mqttBroker(brokerNode, path.key("broker")) else { return nil }
        var settings = MQTTSettings(broker: broker)
        if let n = m["client_id"] {
            if let id = text(n, path.key("client_id")) {
                if MQTTSettings.isValidClientID(id) {
                    settings.clientID = id
                } else {
                    error(
                        "a client id is 1 to 64 of the characters a-z, A-Z, 0-9, '_' and '-'", at: n.mark,
                        path: path.key("client_id"),
                        hint: "it is also a topic level and a Home Assistant device id; leave it out to derive one "
                            + "from the machine id")
                    ok = false
                }
            } else {
                ok = false
            }
        }
        if let n = m["username"] {
            if let name = text(n, path.key("username")) { settings.username = name } else { ok = false }
        }
        if let n = m["password"] {
            if let variable = mqttSecret(n, path.key("password")) {
                settings.passwordVariable = variable
            } else {
                ok = false
            }
        }
        for (key, keyPath) in [("ca_file", \MQTTSettings.caFile), ("cert_file", \.certFile), ("key_file", \.keyFile)] {
            guard let n = m[key] else { continue }
            guard let file = text(n, path.key(key), what: "a file path") else {
                ok = false
                continue
            }
            if !file.hasPrefix("/") {
                error("'\(key)' must be an absolute path", at: n.mark, path: path.key(key))
                ok = false
                continue
            }
            if let problem = fileProblem?(file) { warning(problem, at: n.mark, path: path.key(key)) }
            settings[keyPath: keyPath] = file
        }
        if (settings.certFile == nil) != (settings.keyFile == nil) {
            let (key, node) = settings.certFile == nil ? ("key_file", m["key_file"]!) : ("cert_file", m["cert_file"]!)
            error(
                "'\(key)' needs '\(key == "key_file" ? "cert_file" : "key_file")' beside it", at: node.mark,
                path: path.key(key), hint: "a client certificate and its private key go together")
            ok = false
        }
        if !broker.usesTLS {
            for key in ["ca_file", "cert_file", "key_file", "insecure"] {
                guard let entry = m.entry(key) else { continue }
                error(
                    "'\(key)' needs a TLS broker (mqtts://)", at: entry.key.mark, path: path.key(key),
                    hint: "write the broker as mqtts://HOST:PORT")
                ok = false
            }
        }
        if let n = m["insecure"] {
            if let insecure = bool(n, path.key("insecure")) {
                settings.insecure = insecure
                if insecure && broker.usesTLS {
                    warning(
                        "'insecure: true' accepts a broker certificate that does not match its host name",
                        at: n.mark, path: path.key("insecure"),
                        hint: "anyone on the path can then read and forge this machine's messages; give the "
                            + "broker's CA with 'ca_file' instead")
                }
            } else {
                ok = false
            }
        }
        if let n = m["keepalive"] {
            if let d = duration(n, path.key("keepalive")) {
                if d < MQTTSettings.minimumKeepalive || d > MQTTSettings.maximumKeepalive
                    || d.components.attoseconds != 0
                {
                    error(
                        "the keepalive must be whole seconds from 15s to 300s", at: n.mark, path: path.key("keepalive"),
                        hint: "Home Assistant asks for at least 15s; past 5 minutes NATs drop idle connections")
                    ok = false
                } else {
                    settings.keepalive = d
                }
            } else {
                ok = false
            }
        }
        if let n = m["topic_prefix"] {
            if let prefix = text(n, path.key("topic_prefix")) {
                if let problem = MQTTSettings.publishTopicProblem(prefix) {
                    error("the topic prefix is not a topic: \(problem)", at: n.mark, path: path.key("topic_prefix"))
                    ok = false
                } else {
                    settings.topicPrefix = prefix
                }
            } else {
                ok = false
            }
        }
        if let n = m["publish"] {
            // The names `subscribe:` declares, as written (a broken entry still counts: it is
            // reported there, not again here).
            let declared = Set((m["subscribe"]?.mapping?.entries ?? []).map { $0.key.text })
            if let keys = mqttPublished(n, path.key("publish"), subscribed: declared) {
                settings.published = keys
            } else {
                ok = false
            }
        }
        if let n = m["discovery"] {
            if let s = n.scalar, !s.isNull, s.text == "false" {
                settings.discovery = nil
            } else if let dm = mapping(n, path.key("discovery"), what: "'false' or '{ prefix: homeassistant }'") {
                rejectUnknownKeys(dm, path.key("discovery"), known: ["prefix", "name"], what: "mqtt discovery")
                var discovery = MQTTSettings.Discovery()
                if let p = dm["prefix"] {
                    if let prefix = text(p, path.key("discovery").key("prefix")) {
                        if let problem = MQTTSettings.publishTopicProblem(prefix) {
                            error(
                                "the discovery prefix is not a topic: \(problem)", at: p.mark,
                                path: path.key("discovery").key("prefix"))
                            ok = false
                        } else {
                            discovery.prefix = prefix
                        }
                    } else {
                        ok = false
                    }
                }
                if let nameNode = dm["name"] {
                    if let name = text(nameNode, path.key("discovery").key("name")) {
                        discovery.name = name
                    } else {
                        ok = false
                    }
                }
                settings.discovery = discovery
            } else {
                ok = false
            }
        }
        if let n = m["commands"] {
            if let commands = bool(n, path.key("commands")) { settings.commands = commands } else { ok = false }
        }
        if let n = m["subscribe"] {
            if let subscriptions = mqttSubscriptions(n, path.key("subscribe")),
                rejectOwnTopics(subscriptions, of: settings, n, path.key("subscribe"))
            {
                settings.subscriptions = subscriptions
            } else {
                ok = false
            }
        }
        return ok ? settings : nil
    }

    /// Reports each filter of `subscriptions` that matches one of the daemon's own topics
    /// (`MQTTSettings.ownTopics`, with `settings`' prefixes and client id); false when one does.
    /// Hearing its own state would set `mqtt.NAME` from it, republish, and hear that again.
    private mutating func rejectOwnTopics(
        _ subscriptions: [MQTTSettings.Subscription], of settings: MQTTSettings, _ node: YAMLNode, _ path: KeyPath
    ) -> Bool {
        var ok = true
        let own = settings.ownTopics
        for subscription in subscriptions {
            guard let topic = own.first(where: { $0.pattern.isMatched(by: subscription.topic) }) else { continue }
            let mark = node.mapping?[subscription.name]?.mark ?? node.mark
            let what =
                topic.isCommand
                ? "that this daemon keeps for commands to its rules: a message there is a command, not a fact"
                : "that this daemon publishes: it would hear its own messages"
            error(
                "subscribe: '\(subscription.name)': the filter '\(subscription.topic)' matches the topic "
                    + "\(topic.pattern) \(what)",
                at: mark, path: path.key(subscription.name),
                hint: "name the other machines' topics (netrules/OTHER-ID/state), or give this machine a "
                    + "'topic_prefix' the filter does not match")
            ok = false
        }
        return ok
    }

    /// `mqtt://HOST[:PORT]`, `mqtts://HOST[:PORT]` or `unix:/path`.
    private mutating func mqttBroker(_ node: YAMLNode, _ path: KeyPath) -> MQTTSettings.Broker? {
        guard let url = text(node, path, what: "a broker URL") else { return nil }
        let hint = "write mqtt://HOST:PORT, mqtts://HOST:PORT or unix:/path"
        if url.hasPrefix("unix:") {
            let socket = String(url.dropFirst("unix:".count))
            guard socket.hasPrefix("/") else {
                error(
                    "a unix broker needs an absolute socket path", at: node.mark, path: path,
                    hint: "unix:/run/mosquitto.sock")
                return nil
            }
            return .unix(path: socket)
        }
        let tls: Bool
        let rest: Substring
        if url.hasPrefix("mqtts://") {
            (tls, rest) = (true, url.dropFirst("mqtts://".count))
        } else if url.hasPrefix("mqtt://") {
            (tls, rest) = (false, url.dropFirst("mqtt://".count))
        } else {
            let scheme = url.split(separator: ":", maxSplits: 1).first.map(String.init) ?? url
            error("unsupported broker scheme '\(scheme)'", at: node.mark, path: path, hint: hint)
            return nil
        }
        var hostPart = rest
        if hostPart.hasSuffix("/") { hostPart = hostPart.dropLast() }
        if hostPart.contains("/") || hostPart.contains("@") || hostPart.contains("?") {
            error(
                "a broker URL is only a scheme, a host and a port", at: node.mark, path: path,
                hint: "give the user with 'username:' and the password with 'password: \"{{env.NAME}}\"'")
            return nil
        }
        var host: Substring
        var portText: Substring?
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else {
                error("an IPv6 broker address needs its closing ']'", at: node.mark, path: path, hint: hint)
                return nil
            }
            host = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { host = "" }
        } else if let colon = hostPart.lastIndex(of: ":") {
            host = hostPart[..<colon]
            portText = hostPart[hostPart.index(after: colon)...]
        } else {
            host = hostPart
        }
        guard !host.isEmpty else {
            error("the broker URL has no host", at: node.mark, path: path, hint: hint)
            return nil
        }
        var port = tls ? 8883 : 1883
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else {
                error("the broker's port must be a number from 1 to 65535", at: node.mark, path: path, hint: hint)
                return nil
            }
            port = p
        }
        return .tcp(host: String(host), port: port, tls: tls)
    }

    /// `password: "{{env.NAME}}"`: only a placeholder, so the secret never sits in a rule file.
    private mutating func mqttSecret(_ node: YAMLNode, _ path: KeyPath) -> String? {
        guard let template = template(node, path, what: "\"{{env.NAME}}\"", use: .mqttPassword) else { return nil }
        // One segment that is the one placeholder: nothing written around it.
        if template.segments.count == 1, template.names.count == 1, case .environment(let variable) = template.names[0]
        {
            return variable
        }
        error(
            "the password must be a secret from the environment, written \"{{env.NAME}}\"", at: node.mark, path: path,
            hint: "put the password in /etc/netrules/environment (mode 0600) as NAME=… and write "
                + "password: \"{{env.NAME}}\"; a rule file is readable by more than root")
        return nil
    }

    /// `publish: [FACT, ...]`: built-in facts or `hosts.NAME`/`interfaces.NAME`/`places.NAME`.
    /// An `mqtt.NAME` must be a NAME of `subscribe`.
    private mutating func mqttPublished(_ node: YAMLNode, _ path: KeyPath, subscribed: Set<String>) -> [FactKey]? {
        guard let list = sequence(node, path, what: "a list of fact names") else { return nil }
        var keys: [FactKey] = []
        var ok = true
        let known = FactCatalog.fixedKeys.map(\.rawValue)
        for (i, item) in list.items.enumerated() {
            guard let name = text(item, path.index(i), what: "a fact name") else {
                ok = false
                continue
            }
            let namespace = name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
            let inNamespace =
                name.contains(".") && (FactKey.vocabularyNamespaces.contains(namespace) || namespace == "mqtt")
            guard known.contains(name) || inNamespace else {
                let hint =
                    EditDistance.closest(to: name, among: known).map { "did you mean '\($0)'?" }
                    ?? "see 'netrules facts' for the facts there are"
                error("'\(name)' is not a fact netrules knows", at: item.mark, path: path.index(i), hint: hint)
                ok = false
                continue
            }
            if namespace == "mqtt", case let own = String(name.dropFirst("mqtt.".count)), !subscribed.contains(own) {
                let hint =
                    EditDistance.closest(to: own, among: subscribed.sorted()).map { "did you mean 'mqtt.\($0)'?" }
                    ?? "declare it in 'subscribe: { \(own): TOPIC }'"
                error(
                    "'\(name)' is not a fact of this section: 'subscribe:' declares no '\(own)'", at: item.mark,
                    path: path.index(i), hint: hint)
                ok = false
                continue
            }
            if keys.contains(FactKey(name)) {
                error("'\(name)' is published twice", at: item.mark, path: path.index(i))
                ok = false
                continue
            }
            keys.append(FactKey(name))
        }
        return ok ? keys : nil
    }

    /// `subscribe: { NAME: TOPIC }`.
    private mutating func mqttSubscriptions(_ node: YAMLNode, _ path: KeyPath) -> [MQTTSettings.Subscription]? {
        guard let m = mapping(node, path, what: "a mapping of fact names to topics") else { return nil }
        var out: [MQTTSettings.Subscription] = []
        var ok = true
        for (key, value) in m.entries {
            let p = path.key(key.text)
            guard MQTTSettings.isValidClientID(key.text) else {
                error(
                    "'\(key.text)' cannot name a fact: use a-z, A-Z, 0-9, '_' and '-'", at: key.mark, path: p,
                    hint: "the fact is mqtt.\(key.text)")
                ok = false
                continue
            }
            guard let topic = text(value, p, what: "a topic") else {
                ok = false
                continue
            }
            let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
            let wildcardMisused = levels.enumerated().contains { index, level in
                (level.contains("#") && (level != "#" || index != levels.count - 1))
                    || (level.contains("+") && level != "+")
            }
            if topic.isEmpty || wildcardMisused {
                error(
                    "'\(topic)' is not a topic filter", at: value.mark, path: p,
                    hint: "'+' stands for one whole level and '#' for the rest, only as the last level")
                ok = false
                continue
            }
            out.append(.init(name: key.text, topic: topic))
        }
        return ok ? out : nil
    }
}
