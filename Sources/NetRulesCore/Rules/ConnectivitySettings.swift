/// The top-level `connectivity:` map: how the captive-portal probe decides `online`.
public struct ConnectivitySettings: Hashable, Sendable {
    /// One plain-HTTP probe and the answer that means `online`.
    public struct Probe: Hashable, Sendable {
        /// The page to fetch, over plain HTTP so that a captive portal can intercept it.
        public var url: String
        /// The HTTP status that means online (200 for a page, 204 for `generate_204`).
        public var expectedStatus: Int
        /// The page text that means online (trimmed), or nil for "empty body".
        public var expectedBody: String?

        /// Creates a probe of `url` that means `online` when it answers `expectedStatus` with
        /// `expectedBody` (nil: an empty body).
        public init(url: String, expectedStatus: Int, expectedBody: String?) {
            self.url = url
            self.expectedStatus = expectedStatus
            self.expectedBody = expectedBody
        }
    }

    /// The probes, run in parallel: the first conclusive answer decides, and none conclusive means
    /// `offline`.
    public var probes: [Probe]
    /// The re-check period once online.
    public var onlineInterval: Duration
    /// How long one probe may take.
    public var timeout: Duration

    /// Apple's success page and a `generate_204` endpoint.
    public static let defaultProbes: [Probe] = [
        Probe(url: "http://captive.apple.com/hotspot-detect.html", expectedStatus: 200, expectedBody: "Success"),
        Probe(url: "http://connectivitycheck.gstatic.com/generate_204", expectedStatus: 204, expectedBody: nil),
    ]

    /// Creates the settings; the defaults are `defaultProbes`, a re-check every 5 minutes once online,
    /// and 5 seconds per probe.
    public init(
        probes: [Probe] = ConnectivitySettings.defaultProbes, onlineInterval: Duration = .seconds(300),
        timeout: Duration = .seconds(5)
    ) {
        self.probes = probes
        self.onlineInterval = onlineInterval
        self.timeout = timeout
    }
}
