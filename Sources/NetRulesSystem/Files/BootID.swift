/// The kernel's boot id: `/proc/sys/kernel/random/boot_id`, a random UUID the kernel makes at each
/// boot. What the daemon saves with its state and its plugins' record, to tell a restart within
/// one boot from a new boot.
package enum BootID {
    /// The boot id, or nil where it cannot be read (no procfs).
    package static func current() -> String? {
        // Without a boot id every start counts as one within the same boot.
        guard let bytes = try? FileContents.read("/proc/sys/kernel/random/boot_id", limit: 64) else { return nil }
        let text = String(decoding: bytes.filter { $0 > 0x20 && $0 < 0x7F }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}
