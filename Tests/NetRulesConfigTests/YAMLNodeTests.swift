import NetRulesConfig
import NetRulesCore
import Testing

/// The small conveniences on marks, scalars and nodes.
@Suite(.timeLimit(.minutes(1)))
struct YAMLNodeTests {
    @Test(arguments: [
        ("~", YAMLScalarStyle.plain, true),
        ("null", .plain, true),
        ("Null", .plain, true),
        ("NULL", .plain, true),
        ("", .plain, true),
        ("nUll", .plain, false),
        ("nil", .plain, false),
        ("none", .plain, false),
        ("null", .doubleQuoted, false),
        ("null", .singleQuoted, false),
        ("~", .singleQuoted, false),
        ("", .doubleQuoted, false),
        ("", .literal, false),
        ("null", .folded, false),
    ])
    func nullIsOnlyAPlainSpelling(text: String, style: YAMLScalarStyle, isNull: Bool) {
        let scalar = YAMLScalar(text: text, style: style, mark: SourceMark(line: 1, column: 1))
        #expect(scalar.isNull == isNull)
        #expect(YAMLNode.scalar(scalar).kindDescription == (isNull ? "null" : "a string"))
    }

    @Test(arguments: [
        ("a: ~", true),
        ("a: null", true),
        ("a:", true),
        ("a: \"null\"", false),
        ("a: 'null'", false),
        ("a: ''", false),
        ("a: no", false),
    ])
    func nullDetectionAfterParsing(text: String, isNull: Bool) throws {
        let (root, _) = parseYAML(text)
        let scalar = try #require(root?.mapping?["a"]?.scalar)
        #expect(scalar.isNull == isNull)
    }

    @Test func kindDescriptions() throws {
        let root = try #require(parseYAML("m: {}\nl: []\ns: text\nn: ~\n").root?.mapping)
        #expect(root["m"]?.kindDescription == "a mapping")
        #expect(root["l"]?.kindDescription == "a list")
        #expect(root["s"]?.kindDescription == "a string")
        #expect(root["n"]?.kindDescription == "null")
        #expect(YAMLNode.mapping(root).kindDescription == "a mapping")
    }

    @Test func accessorsReturnOnlyTheirOwnKind() throws {
        let root = try #require(parseYAML("m: {}\nl: [x]\ns: text\n").root?.mapping)
        #expect(root["m"]?.mapping?.entries.isEmpty == true)
        #expect(root["m"]?.sequence == nil)
        #expect(root["m"]?.scalar == nil)
        #expect(root["l"]?.sequence?.items.count == 1)
        #expect(root["l"]?.mapping == nil)
        #expect(root["s"]?.scalar?.text == "text")
        #expect(root["s"]?.sequence == nil)
        #expect(root["missing"] == nil)
    }

    @Test func entryKeepsTheKeysOwnMark() throws {
        let root = try #require(parseYAML("a: 1\n\"b\": 2\n").root?.mapping)
        let entry = try #require(root.entry("b"))
        #expect(entry.key == YAMLScalar(text: "b", style: .doubleQuoted, mark: SourceMark(line: 2, column: 1)))
        #expect(entry.value.mark == SourceMark(line: 2, column: 6))
        #expect(root.entry("c") == nil)
    }

    @Test func sourceMarkDescriptionAndOrder() {
        #expect(SourceMark(line: 12, column: 7).description == "12:7")
        #expect(SourceMark(line: 1, column: 9) < SourceMark(line: 2, column: 1))
        #expect(SourceMark(line: 2, column: 1) < SourceMark(line: 2, column: 3))
        #expect(!(SourceMark(line: 2, column: 3) < SourceMark(line: 2, column: 3)))
    }
}
