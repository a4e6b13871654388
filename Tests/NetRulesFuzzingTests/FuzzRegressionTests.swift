import Foundation
import NetRulesConfig
import NetRulesCore
import NetRulesFuzzing
import Testing

/// Every seed of `Fuzz/Corpus/TARGET/` and every crash input kept in `Fuzz/Regressions/TARGET/`
/// runs through its fuzz target in process: a crash found by `scripts/fuzz` becomes a regression
/// test by adding its input to `Fuzz/Regressions/TARGET/`.
@Suite(.timeLimit(.minutes(1)))
struct FuzzRegressionTests {
    static let fuzz = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    static func inputs(_ folder: String, _ target: String) -> [String] {
        FuzzInputs.files(at: fuzz.appendingPathComponent(folder).appendingPathComponent(target).path)
    }

    @Test(arguments: FuzzTargets.names)
    func corpusRunsWithoutACrash(target: String) throws {
        let files = Self.inputs("Corpus", target)
        #expect(!files.isEmpty, "Fuzz/Corpus/\(target) has no seeds")
        let run = try #require(FuzzTargets.all[target])
        for file in files {
            run(try #require(FuzzInputs.read(file), "cannot read \(file)"))
        }
    }

    @Test(arguments: FuzzTargets.names)
    func regressionsRunWithoutACrash(target: String) throws {
        let run = try #require(FuzzTargets.all[target])
        for file in Self.inputs("Regressions", target) {
            run(try #require(FuzzInputs.read(file), "cannot read \(file)"))
        }
    }

    @Test func everyCorpusAndRegressionFolderIsATarget() throws {
        for folder in ["Corpus", "Regressions"] {
            let names = try FileManager.default.contentsOfDirectory(
                atPath: Self.fuzz.appendingPathComponent(folder).path)
            for name in names where !name.hasPrefix(".") {
                #expect(FuzzTargets.all[name] != nil, "Fuzz/\(folder)/\(name) names no fuzz target")
            }
        }
    }

    @Test func theTimelineTargetsRulesLoadCleanly() {
        let result = TimelineTarget.loadRules()
        #expect(result.diagnostics.isEmpty, "\(result.renderedDiagnostics())")
        #expect(result.ruleSet.rules.count == 4)
    }
}
