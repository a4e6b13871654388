@preconcurrency import Glibc

/// The machine's local time zone, as the C library sees it (`TZ`, else `/etc/localtime`).
package enum SystemTimeZone {
    /// Seconds east of UTC in force at a Unix time (`localtime_r(3)`'s `tm_gmtoff`).
    package static func utcOffset(atUnixTime seconds: Int64) -> Int64 {
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int64(parts.tm_gmtoff)
    }

    /// Re-reads `TZ` (after a caller changed it), as `tzset(3)` does.
    package static func reload() { tzset() }
}
