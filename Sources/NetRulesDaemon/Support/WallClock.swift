import FoundationEssentials

/// Wall-clock time as rules and logs show it.
public enum WallClock {
    /// RFC 3339 in UTC with second precision: `2026-11-29T09:00:00Z` (`{{time}}`, `NETRULES_TIME`).
    ///
    /// Computed from the epoch seconds with Howard Hinnant's civil-from-days algorithm rather than
    /// `Calendar`: the daemon links FoundationEssentials only, whose time zones need no ICU data.
    public static func rfc3339(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ n: Int64, _ width: Int = 2) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month))-\(pad(day))T\(pad(secondOfDay / 3_600)):"
            + "\(pad(secondOfDay % 3_600 / 60)):\(pad(secondOfDay % 60))Z"
    }
}
