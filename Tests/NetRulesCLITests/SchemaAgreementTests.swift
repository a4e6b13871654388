import Foundation
import Glibc
import Testing

/// The JSON Schema agrees with `check` (issue 12, item 6): a real validator (`check-jsonschema`,
/// from PyPI, which `scripts/setup` installs) and `netrules check` must accept and refuse the
/// same files: the shipped rules and the corpus in `SchemaCorpus/` (`good-*` valid, `bad-*`
/// invalid). Files named `only-check-*` hold what only `check` can judge (each says why in its
/// first line): the schema accepts them and `check` refuses them.
@Suite(.timeLimit(.minutes(1)))
struct SchemaAgreementTests {
    static let validator: String? =
        ["/usr/local/bin/check-jsonschema", "/root/.pyenv/shims/check-jsonschema"]
        .first { access($0, X_OK) == 0 }
        ?? ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
        .map { "\($0)/check-jsonschema" }.first { access($0, X_OK) == 0 }

    static let corpus: [String] = {
        let directory = CommandTests.path("Tests/NetRulesCLITests/SchemaCorpus")
        let corpus = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".yaml") }.sorted().map { directory + "/" + $0 }
        let shipped = ((try? FileManager.default.contentsOfDirectory(atPath: CommandTests.path("rules"))) ?? [])
            .filter { $0.hasSuffix(".yaml") }.sorted().map { CommandTests.path("rules/" + $0) }
        return shipped + [CommandTests.path("examples/demo/demo.yaml")] + corpus
    }()

    @Test(
        .enabled(
            if: validator != nil,
            "SKIPPED: check-jsonschema is not installed (scripts/setup installs it with pip); the schema was not checked"
        ),
        arguments: corpus)
    func theSchemaAndCheckAgree(file: String) async throws {
        let validator = try #require(Self.validator)
        let schema = FileManager.default.temporaryDirectory.appendingPathComponent("netrules-schema-\(getpid()).json")
        if !FileManager.default.fileExists(atPath: schema.path) {
            let printed = await CommandTests.run("schema")
            try printed.stdout.write(to: schema, atomically: true, encoding: .utf8)
        }
        let schemaAccepts = system("'\(validator)' --schemafile '\(schema.path)' '\(file)' > /dev/null 2>&1") == 0
        let check = await CommandTests.run(
            ["check", file], path: CommandTests.path("examples/plugins") + ":/usr/bin:/bin")
        let checkAccepts = check.code == 0
        let name = (file as NSString).lastPathComponent
        if name.hasPrefix("only-check-") {
            #expect(schemaAccepts && !checkAccepts, "\(name): schema \(schemaAccepts), check \(checkAccepts)")
        } else {
            #expect(
                schemaAccepts == checkAccepts,
                "\(name): schema \(schemaAccepts), check \(checkAccepts): \(check.stderr)")
            #expect(checkAccepts == !name.hasPrefix("bad-"), "\(name): \(check.stderr)")
        }
    }
}
