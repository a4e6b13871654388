/// The outcome of one captive-portal classification, with its evidence.
package struct PortalVerdict: Sendable {
    /// The value of the `connectivity` fact.
    package enum Connectivity: String, Sendable {
        /// A probe got exactly the expected answer.
        case online
        /// A probe was redirected, got 511, or got a page other than the expected one.
        case portal
        /// No probe got a conclusive answer.
        case offline
    }

    /// What one probe saw.
    package struct Evidence: Sendable {
        /// The probe's URL.
        package var url: String
        /// The HTTP status, or nil when there was no answer.
        package var status: Int?
        /// The redirect target, when the answer had one that ``ReportedURL`` keeps (resolved
        /// against ``url`` and percent-encoded as it says).
        package var location: String?
        /// Why the answer's `Location` was not kept, when it was not.
        package var locationRefusal: String? = nil
        /// Why there was no answer (timeout, resolution, connection), or nil.
        package var error: String?
        /// From sending to the answer or the failure.
        package var duration: Duration
        /// What this answer means on its own, or nil when it proves nothing (an error, a 404, a 500).
        package var conclusion: Connectivity?
        /// Why the answer counts as its ``conclusion``, in words (the status, the page, the
        /// redirect): `a redirect (302) to http://login.example/; online is 204 with an empty
        /// body`; nil when there was no answer.
        package var reason: String? = nil
    }

    /// The classification.
    package var connectivity: Connectivity
    /// Where the portal wants the user to log in: the redirect target, else the probe's URL;
    /// nil unless ``connectivity`` is `portal`, and nil when the deciding answer's `Location` was
    /// refused (``Evidence/locationRefusal`` says why).
    package var portalURL: String?
    /// The probe whose answer decided, or nil for `offline`.
    package var decidingProbe: Evidence?
    /// Every probe that finished before the decision (the losers are cancelled, not listed).
    package var evidence: [Evidence]
    /// From the start of the classification to the decision.
    package var duration: Duration
}
