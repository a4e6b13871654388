import NetRulesCore
import Testing

/// Random UUIDs as RFC 4122 writes version 4: lower-case hex in 8-4-4-4-12, the version and variant
/// bits set, the other 122 bits from the generator.
@Suite(.timeLimit(.minutes(1)))
struct RandomUUIDTests {
    /// Hands out the given words in turn.
    struct Words: RandomNumberGenerator {
        var words: [UInt64]
        mutating func next() -> UInt64 { words.removeFirst() }
    }

    @Test func isLowerCaseHexInFiveGroupsWithTheVersionAndVariantBits() {
        for _ in 0..<100 {
            let uuid = RandomUUID.make()
            let groups = uuid.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.map(\.count) == [8, 4, 4, 4, 12], "\(uuid)")
            #expect(uuid.allSatisfy { "0123456789abcdef-".contains($0) }, "\(uuid)")
            #expect(groups[2].first == "4", "version 4: \(uuid)")
            #expect(groups[3].first.map { "89ab".contains($0) } == true, "variant 10: \(uuid)")
        }
    }

    @Test func twoAreNotTheSame() {
        #expect(RandomUUID.make() != RandomUUID.make())
    }

    @Test func keepsEveryGeneratedBitButTheSixFixedOnes() {
        var ones = Words(words: [.max, .max])
        #expect(RandomUUID.make(using: &ones) == "ffffffff-ffff-4fff-bfff-ffffffffffff")
        var zeros = Words(words: [0, 0])
        #expect(RandomUUID.make(using: &zeros) == "00000000-0000-4000-8000-000000000000")
        // Bytes in the order the words give them, least significant first.
        var counting = Words(words: [0x0706_0504_0302_0100, 0x0F0E_0D0C_0B0A_0908])
        #expect(RandomUUID.make(using: &counting) == "00010203-0405-4607-8809-0a0b0c0d0e0f")
    }
}
