/// The parts of resolv.conf(5) the `dns` fact needs.
enum ResolvConf {
    /// The `nameserver` addresses in file order (order matters to the resolver), comments ignored.
    static func nameservers(in text: String) -> [String] {
        var servers: [String] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0] == "nameserver" else { continue }
            servers.append(String(words[1]))
        }
        return servers
    }
}
