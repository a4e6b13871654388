import NetRulesCore

/// Readers for the top-level settings beside `rules:`: `hosts:`, `connectivity:`, `wifi:`, `observers:`, `plugins:`.
extension ValidationContext {
    /// `hosts: { NAME: ADDRESS | { address, port, interval, timeout, tries } }`.
    mutating func hosts(_ node: YAMLNode, _ path: KeyPath) -> [(HostDefinition, SourceMark)] {
        guard let m = mapping(node, path, what: "a mapping of host names to addresses") else { return [] }
        var out: [(HostDefinition, SourceMark)] = []
        for (key, value) in m.entries {
            let p = path.key(key.text)
            if let s = value.scalar, !s.isNull {
                guard let inline = HostDefinition(inline: s.text) else {
                    error("'\(s.text)' is not an address, a DNS name or NAME:PORT", at: s.mark, path: p)
                    continue
                }
                var host = inline
                host.name = key.text
                out.append((host, key.mark))
                continue
            }
            guard let hm = mapping(value, p, what: "an address or '{ address: ..., tries: ... }'") else { continue }
            rejectUnknownKeys(hm, p, known: ["address", "port", "interval", "timeout", "tries"], what: "a host")
            guard let addressNode = hm["address"] else {
                error("host '\(key.text)' needs 'address'", at: hm.mark, path: p)
                continue
            }
            guard let address = text(addressNode, p.key("address"), what: "an address or DNS name") else { continue }
            guard let parsed = HostDefinition(inline: address), parsed.port == nil else {
                error(
                    "'\(address)' is not an address or DNS name", at: addressNode.mark, path: p.key("address"),
                    hint: address.contains(":") ? "give the port as 'port:'" : nil)
                continue
            }
            var host = HostDefinition(name: key.text, address: parsed.address)
            var ok = true
            if let n = hm["port"] {
                if let port = integer(n, p.key("port"), in: 1...65535) { host.port = port } else { ok = false }
            }
            if let n = hm["interval"] {
                if let d = duration(n, p.key("interval")), d >= .milliseconds(100) {
                    host.interval = d
                } else {
                    if DurationSyntax.parse(n.scalar?.text ?? "") != nil {
                        error("the interval must be at least 100ms", at: n.mark, path: p.key("interval"))
                    }
                    ok = false
                }
            }
            if let n = hm["timeout"] {
                if let d = duration(n, p.key("timeout")) { host.timeout = d } else { ok = false }
            }
            if let n = hm["tries"] {
                if let t = integer(n, p.key("tries"), in: 1...100) { host.tries = t } else { ok = false }
            }
            if ok { out.append((host, key.mark)) }
        }
        return out
    }

    /// `wifi: { source: auto | nl80211 | networkmanager | none, signal_interval: DURATION }`.
    mutating func wifi(_ node: YAMLNode, _ path: KeyPath) -> WiFiSettings? {
        guard let m = mapping(node, path) else { return nil }
        rejectUnknownKeys(m, path, known: ["source", "signal_interval"], what: "wifi")
        var settings = WiFiSettings()
        var ok = true
        if let s = m["source"] {
            if let word = word(s, path.key("source"), oneOf: WiFiSettings.Source.allCases.map(\.rawValue)),
                let source = WiFiSettings.Source(rawValue: word)
            {
                settings.source = source
            } else {
                ok = false
            }
        }
        if let n = m["signal_interval"] {
            if let d = duration(n, path.key("signal_interval")) {
                if d >= WiFiSettings.minimumSignalInterval {
                    settings.signalInterval = d
                } else {
                    error(
                        "the signal interval must be at least \(DurationSyntax.format(WiFiSettings.minimumSignalInterval))",
                        at: n.mark, path: path.key("signal_interval"),
                        hint: "the kernel's reading averages several beacons; sampling faster shows nothing new")
                    ok = false
                }
            } else {
                ok = false
            }
        }
        return ok ? settings : nil
    }

    /// `connectivity: { probes: [{ url, status, body }], interval, timeout }`.
    mutating func connectivity(_ node: YAMLNode, _ path: KeyPath) -> ConnectivitySettings? {
        guard let m = mapping(node, path) else { return nil }
        rejectUnknownKeys(m, path, known: ["probes", "interval", "timeout"], what: "connectivity")
        var settings = ConnectivitySettings()
        var ok = true
        if let probesNode = m["probes"] {
            if let list = sequence(probesNode, path.key("probes")) {
                var probes: [ConnectivitySettings.Probe] = []
                for (i, item) in list.items.enumerated() {
                    let p = path.key("probes").index(i)
                    guard let pm = mapping(item, p, what: "'{ url: ..., status: 204 }'") else {
                        ok = false
                        continue
                    }
                    rejectUnknownKeys(pm, p, known: ["url", "status", "body"], what: "a connectivity probe")
                    guard let urlNode = pm["url"], let url = text(urlNode, p.key("url"), what: "a URL") else {
                        if pm["url"] == nil { error("a connectivity probe needs 'url'", at: pm.mark, path: p) }
                        ok = false
                        continue
                    }
                    if !url.hasPrefix("http://") {
                        error(
                            "a portal probe URL must be plain http://", at: urlNode.mark, path: p.key("url"),
                            hint: "a captive portal can only intercept unencrypted HTTP")
                        ok = false
                    } else {
                        do {
                            _ = try ProbeURL(url)
                        } catch {
                            self.error(
                                "a portal probe URL that cannot be probed: \(error.reason)", at: urlNode.mark,
                                path: p.key("url"))
                            ok = false
                        }
                    }
                    var status = 200
                    if let s = pm["status"] {
                        if let n = integer(s, p.key("status"), in: 100...599) { status = n } else { ok = false }
                    }
                    var body: String? = status == 204 ? nil : "Success"
                    if let b = pm["body"] {
                        if let s = b.scalar {
                            body = s.isNull ? nil : s.text
                        } else {
                            expected("the expected page text", found: b, path: p.key("body"))
                            ok = false
                        }
                    }
                    probes.append(.init(url: url, expectedStatus: status, expectedBody: body))
                }
                if list.items.isEmpty {
                    error("give at least one probe", at: list.mark, path: path.key("probes"))
                    ok = false
                }
                settings.probes = probes
            } else {
                ok = false
            }
        }
        if let n = m["interval"] {
            if let d = duration(n, path.key("interval")) { settings.onlineInterval = d } else { ok = false }
        }
        if let n = m["timeout"] {
            if let d = duration(n, path.key("timeout")) { settings.timeout = d } else { ok = false }
        }
        return ok ? settings : nil
    }

    /// `observers: [NAME | { name, command }, ...]` or `{ NAME: COMMAND | [ARGV] }`. A bare name is
    /// found as `netrules-observer-NAME`; a command is a program path or an argv list (no shell).
    mutating func observers(_ node: YAMLNode, _ path: KeyPath, find: (String) -> String?) -> [ObserverDefinition] {
        var out: [ObserverDefinition] = []
        if let list = node.sequence {
            for (i, item) in list.items.enumerated() {
                if let m = item.mapping {
                    let p = path.index(i)
                    rejectUnknownKeys(m, p, known: ["name", "command", "provides"], what: "an observer")
                    let provides = m["provides"].map { observerProvides($0, p.key("provides")) } ?? []
                    guard let nameNode = m["name"], let name = text(nameNode, p.key("name"), what: "a name") else {
                        if m["name"] == nil { error("an observer needs 'name'", at: m.mark, path: p) }
                        continue
                    }
                    guard let command = m["command"] else {
                        if let program = find(name) {
                            out.append(ObserverDefinition(name: name, command: [program], provides: provides))
                        } else {
                            error(
                                "no observer plugin '\(name)': 'netrules-observer-\(name)' was not found in the plugin directories or PATH",
                                at: nameNode.mark, path: p.key("name"), hint: "or give its 'command'")
                        }
                        continue
                    }
                    if let argv = observerCommand(command, p.key("command")) {
                        out.append(ObserverDefinition(name: name, command: argv, provides: provides))
                    }
                    continue
                }
                guard let name = text(item, path.index(i), what: "an observer plugin name") else { continue }
                guard let program = find(name) else {
                    error(
                        "no observer plugin '\(name)': 'netrules-observer-\(name)' was not found in the plugin directories or PATH",
                        at: item.mark, path: path.index(i))
                    continue
                }
                out.append(ObserverDefinition(name: name, command: [program]))
            }
            return out
        }
        guard let m = mapping(node, path, what: "a list of observer names or a mapping of names to commands") else {
            return []
        }
        for (key, value) in m.entries {
            if let argv = observerCommand(value, path.key(key.text)) {
                out.append(ObserverDefinition(name: key.text, command: argv))
            }
        }
        return out
    }

    /// `provides: [KEY, ...]`: the facts an observer plugin reports. A key spelled almost like a
    /// built-in fact (`sssid`) is refused with the fix, since its built-in facts would then be dropped.
    private mutating func observerProvides(_ node: YAMLNode, _ path: KeyPath) -> [FactKey] {
        guard let items = oneOrMany(node, path, what: "a fact key") else { return [] }
        var keys: [FactKey] = []
        let builtIn = FactKey.vocabulary.map(\.rawValue)
        for item in items {
            let key = FactKey(item.text)
            if item.text.isEmpty || item.text.contains(where: { $0 == " " || $0 == "\t" }) {
                error("'\(item.text)' is not a fact key", at: item.mark, path: item.path)
                continue
            }
            if !key.isBuiltIn, !item.text.contains("."),
                let close = EditDistance.closest(to: item.text, among: builtIn), close != item.text,
                EditDistance.between(item.text, close) <= 2
            {
                error(
                    "'\(item.text)' is not a built-in fact", at: item.mark, path: item.path,
                    hint: "did you mean '\(close)'? (a plugin's own facts are named NAME.KEY, like vpn.connected)")
                continue
            }
            keys.append(key)
        }
        return keys
    }

    /// A program path, or `[program, arguments...]`; the program is absolute or under `~/`.
    private mutating func observerCommand(_ node: YAMLNode, _ path: KeyPath) -> [String]? {
        var argv: [String] = []
        if let s = node.scalar, !s.isNull {
            argv = [s.text]
        } else if let list = node.sequence, !list.items.isEmpty {
            for (i, item) in list.items.enumerated() {
                guard let t = text(item, path.index(i), what: "an argument") else { return nil }
                argv.append(t)
            }
        } else {
            expected("a program path or a list [program, arguments...]", found: node, path: path)
            return nil
        }
        guard argv[0].hasPrefix("/") || argv[0].hasPrefix("~/") else {
            error("'\(argv[0])' is not an absolute path", at: node.mark, path: path, hint: "start it with / or ~/")
            return nil
        }
        return argv
    }

    /// `plugins: [DIRECTORY, ...]`.
    mutating func pluginDirectories(_ node: YAMLNode, _ path: KeyPath) -> [String] {
        let items: [YAMLNode]
        if let list = node.sequence { items = list.items } else { items = [node] }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            if let dir = literalPath(item, node.sequence == nil ? path : path.index(i), what: "a plugin directory") {
                out.append(dir)
            }
        }
        return out
    }
}
