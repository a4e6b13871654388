// Not named main.swift: SwiftPM then compiles this one file as a library (`-parse-as-library`), so
// the two modes below can differ in whether there is an `@main`.
@preconcurrency import Glibc
import NetRulesFuzzing

#if NETRULES_FUZZING
    import CLibFuzzer

    // libFuzzer mode (`scripts/fuzz`): the target named by NETRULES_FUZZ_TARGET, on libFuzzer's inputs.
    //
    // SwiftPM links an executable with `--defsym main=netrules_fuzz_main` (so tests can link it), which
    // replaces libFuzzer's own `main`; this entry point hands the arguments to libFuzzer's driver instead.

    /// The target to run, looked up once.
    let target: @Sendable ([UInt8]) -> Void = {
        let name = getenv("NETRULES_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = FuzzTargets.all[name] else {
            fputs(
                "netrules-fuzz: set NETRULES_FUZZ_TARGET to one of: \(FuzzTargets.names.joined(separator: ", "))\n",
                stderr)
            exit(2)
        }
        return target
    }()

    @_cdecl("LLVMFuzzerTestOneInput")
    func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        target(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    @_cdecl("netrules_fuzz_main")
    func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        _ = target
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzz(data, size) }
    }
#else
    // Replay mode (a plain `swift build`): `netrules-fuzz TARGET FILE|DIR…` runs every file through the
    // target, as the fuzzer would, and exits 0 when none crashed; a crash is the process dying.

    @main
    struct Replayer {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTargets.all[name], arguments.count >= 2 else {
                let names = FuzzTargets.names.joined(separator: "|")
                fputs("usage: netrules-fuzz \(names) FILE|DIR…\n", stderr)
                exit(2)
            }
            var count = 0
            for path in arguments.dropFirst() {
                for file in FuzzInputs.files(at: path) {
                    guard let bytes = FuzzInputs.read(file) else {
                        fputs("netrules-fuzz: cannot read \(file)\n", stderr)
                        exit(1)
                    }
                    target(bytes)
                    count += 1
                }
            }
            print("netrules-fuzz: \(name): \(count) input\(count == 1 ? "" : "s") ran without a crash")
        }
    }
#endif
