import NetRulesCore
import Testing

@Suite(.timeLimit(.minutes(1)))
struct TruthTests {
    static let all: [Truth] = [.true, .false, .unknown]

    @Test(arguments: [
        (Truth.true, Truth.true, Truth.true), (.true, .false, .false), (.true, .unknown, .unknown),
        (.false, .unknown, .false), (.unknown, .false, .false), (.unknown, .unknown, .unknown),
        (.false, .false, .false),
    ])
    func conjunctionIsKleene(lhs: Truth, rhs: Truth, expected: Truth) {
        #expect((lhs && rhs) == expected)
        #expect((rhs && lhs) == expected)
    }

    @Test(arguments: [
        (Truth.true, Truth.unknown, Truth.true), (.false, .unknown, .unknown), (.false, .false, .false),
        (.unknown, .unknown, .unknown), (.true, .false, .true),
    ])
    func disjunctionIsKleene(lhs: Truth, rhs: Truth, expected: Truth) {
        #expect((lhs || rhs) == expected)
        #expect((rhs || lhs) == expected)
    }

    @Test func negationKeepsUnknown() {
        #expect(!Truth.true == .false)
        #expect(!Truth.false == .true)
        #expect(!Truth.unknown == .unknown)
    }
}
