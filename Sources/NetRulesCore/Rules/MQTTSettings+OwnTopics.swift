extension MQTTSettings {
    /// A topic of the daemon's own.
    public struct OwnTopic: Hashable, Sendable {
        /// The topic, with the levels not known before the daemon runs (the derived client id).
        public var pattern: MQTTTopicPattern
        /// Whether the daemon reads commands there (`<prefix>/rule/…`) rather than publishing.
        public var isCommand: Bool

        /// Creates an own topic.
        public init(_ pattern: MQTTTopicPattern, isCommand: Bool = false) {
            self.pattern = pattern
            self.isCommand = isCommand
        }
    }

    /// The topics the daemon publishes or keeps for itself: `<prefix>/state`, `/event`,
    /// `/availability`, everything under `<prefix>/rule/` (commands to rules), and the discovery
    /// config `<discovery prefix>/device/<client id>/config` when discovery is on.
    ///
    /// With no `client_id`, the client id is derived from the machine when the daemon starts, so
    /// its level (in the default prefix `netrules/<client id>` and in the discovery topic) is one
    /// that matches anything. A `subscribe:` filter matching one of these would hear the
    /// daemon's own messages, so `check` refuses it.
    public var ownTopics: [OwnTopic] {
        let clientLevel: MQTTTopicPattern.Level = clientID.map { .exact($0) } ?? .any(placeholder: "<client id>")
        let prefix: [MQTTTopicPattern.Level] =
            topicPrefix.map { MQTTTopicPattern(topic: $0).levels } ?? [.exact("netrules"), clientLevel]
        var out = ["state", "event", "availability"].map { OwnTopic(MQTTTopicPattern(prefix + [.exact($0)])) }
        out.append(
            OwnTopic(MQTTTopicPattern(prefix + [.exact("rule"), .rest(placeholder: "<rule>/set")]), isCommand: true))
        if let discovery {
            out.append(
                OwnTopic(
                    MQTTTopicPattern(
                        MQTTTopicPattern(topic: discovery.prefix).levels + [
                            .exact("device"), clientLevel, .exact("config"),
                        ]
                    )))
        }
        return out
    }
}
