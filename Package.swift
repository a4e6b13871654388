// swift-tools-version:6.0
import PackageDescription

/// Upcoming features every Swift target opts into (STYLE §4).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "netrules",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "netrules", targets: ["netrules"]),
        .library(name: "NetRulesCore", targets: ["NetRulesCore"]),
        .library(name: "NetRulesConfig", targets: ["NetRulesConfig"]),
    ],
    targets: [
        // MARK: C libraries and kernel headers
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // libcurl's headers at build time (libcurl4-openssl-dev); the library itself is loaded with
        // dlopen the first time a request is made (Sources/CCurl/include/CCurl.h).
        .target(name: "CCurl"),
        // OpenSSL's headers are not needed: libcrypto is loaded with dlopen the first time a
        // certificate's public key is hashed (Sources/CCrypto/include/CCrypto.h).
        .target(name: "CCrypto"),
        // sd-bus's headers at build time (libsystemd-dev); libsystemd is loaded with dlopen when the
        // NetworkManager observer first connects (Sources/CSystemd/include/CSystemd.h).
        .target(name: "CSystemd"),
        // libmosquitto's headers at build time (libmosquitto-dev); the library itself is loaded with
        // dlopen when an `mqtt:` section first makes the daemon connect (Sources/CMosquitto/include/CMosquitto.h).
        .target(name: "CMosquitto"),
        .target(name: "CNetRulesLinux"),
        // glibc's <malloc.h> for tests that count heap bytes (mallinfo2); not part of the product.
        .target(name: "CGlibcMalloc"),

        // MARK: The portable core
        .target(name: "NetRulesCore", swiftSettings: swiftSettings),
        .target(name: "NetRulesConfig", dependencies: ["NetRulesCore", "CYAML"], swiftSettings: swiftSettings),

        // MARK: Operating-system parts
        // The one POSIX layer (STYLE §11–§13): system calls, Errno, the fd owner, dedicated threads, wake
        // events and child processes, shared by the OS targets.
        .target(name: "NetRulesSystem", dependencies: ["CNetRulesLinux"], swiftSettings: swiftSettings),
        .target(
            name: "NetRulesLinux",
            dependencies: ["NetRulesCore", "NetRulesSystem", "CNetRulesLinux", "CSystemd"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NetRulesHTTP", dependencies: ["CCurl", "CCrypto", "NetRulesCore", "NetRulesSystem"],
            swiftSettings: swiftSettings),
        .target(
            name: "NetRulesProbes",
            dependencies: ["NetRulesCore", "NetRulesSystem", "NetRulesHTTP", "CNetRulesLinux"],
            swiftSettings: swiftSettings
        ),
        // The MQTT client of `mqtt:` on libmosquitto, driven from the daemon's loop (docs/mqtt.md).
        .target(
            name: "NetRulesMQTT",
            dependencies: ["NetRulesCore", "NetRulesSystem", "CMosquitto", "CSystemd"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NetRulesActions",
            dependencies: ["NetRulesCore", "NetRulesSystem", "NetRulesHTTP", "NetRulesMQTT", "CSystemd"],
            swiftSettings: swiftSettings
        ),

        // MARK: Wiring and the command line
        // The daemon's decisions as a value (DaemonCore: events in, effects out) and the values it
        // keeps: no OS module, no other netrules target, so `.ci/run` checks its imports as Core's.
        .target(name: "NetRulesDaemonCore", dependencies: ["NetRulesCore"], swiftSettings: swiftSettings),
        .target(
            name: "NetRulesDaemon",
            dependencies: [
                "NetRulesCore", "NetRulesDaemonCore", "NetRulesConfig", "NetRulesLinux", "NetRulesProbes",
                "NetRulesActions", "NetRulesSystem", "NetRulesMQTT",
                "CNetRulesLinux",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NetRulesCLI",
            dependencies: [
                "NetRulesCore", "NetRulesConfig", "NetRulesSystem", "NetRulesLinux", "NetRulesProbes",
                "NetRulesHTTP", "NetRulesActions", "NetRulesDaemon", "NetRulesDaemonCore", "NetRulesMQTT",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "netrules", dependencies: ["NetRulesCLI"], swiftSettings: swiftSettings),

        // MARK: Benchmarks
        // `netrules-bench engine|daemon|load|idle|mqtt`: figures, not tests, and not part of `netrules`
        // nor of its Debian package (scripts/package builds only the `netrules` product).
        .target(
            name: "NetRulesBench",
            dependencies: [
                "NetRulesCLI", "NetRulesCore", "NetRulesConfig", "NetRulesDaemon", "NetRulesLinux", "NetRulesMQTT",
                "NetRulesSystem", "NetRulesTesting",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "netrules-bench", dependencies: ["NetRulesBench", "NetRulesCLI"], swiftSettings: swiftSettings),

        // MARK: Fuzzing (Fuzz/README.md)
        // The fuzz targets, run by the libFuzzer driver below and replayed by NetRulesFuzzingTests.
        .target(
            name: "NetRulesFuzzing",
            dependencies: ["NetRulesCore", "NetRulesConfig", "NetRulesLinux", "NetRulesProbes", "NetRulesDaemon"],
            swiftSettings: swiftSettings
        ),
        // Declares libFuzzer's driver entry point for netrules-fuzz.
        .target(name: "CLibFuzzer", path: "Fuzz/Sources/CLibFuzzer"),
        // `scripts/fuzz` builds it with `-sanitize=fuzzer` and NETRULES_FUZZING; a plain build is a replayer.
        .executableTarget(
            name: "netrules-fuzz",
            dependencies: ["NetRulesFuzzing", "CLibFuzzer"],
            path: "Fuzz/Sources/netrules-fuzz",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .target(
            name: "NetRulesTesting", dependencies: ["NetRulesCore", "NetRulesSystem"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NetRulesCoreTests",
            dependencies: ["NetRulesCore", "NetRulesTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NetRulesConfigTests",
            dependencies: ["NetRulesConfig", "NetRulesTesting", "CGlibcMalloc"],
            exclude: ["Golden"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NetRulesHTTPTests",
            dependencies: ["NetRulesHTTP", "NetRulesTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NetRulesSystemTests",
            dependencies: ["NetRulesSystem", "NetRulesTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NetRulesLinuxTests",
            dependencies: ["NetRulesLinux", "NetRulesSystem", "NetRulesTesting"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NetRulesProbesTests",
            dependencies: ["NetRulesProbes", "NetRulesSystem", "NetRulesHTTP", "NetRulesTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NetRulesActionsTests",
            dependencies: ["NetRulesActions", "NetRulesSystem", "NetRulesHTTP", "NetRulesMQTT", "NetRulesTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NetRulesCLITests",
            dependencies: [
                "NetRulesCLI", "NetRulesDaemon", "NetRulesDaemonCore", "NetRulesLinux", "NetRulesMQTT",
                "NetRulesProbes", "NetRulesSystem", "NetRulesTesting",
            ],
            exclude: ["SchemaCorpus", "Golden"],
            swiftSettings: swiftSettings
        ),
        // DaemonCore on virtual time: restart, reload and shutdown without root.
        .testTarget(
            name: "NetRulesDaemonTests",
            dependencies: [
                "NetRulesDaemon", "NetRulesDaemonCore", "NetRulesConfig", "NetRulesActions", "NetRulesCore",
                "NetRulesLinux", "NetRulesSystem", "NetRulesTesting",
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        // Replays Fuzz/Corpus and Fuzz/Regressions through every fuzz target.
        .testTarget(
            name: "NetRulesFuzzingTests",
            dependencies: ["NetRulesFuzzing", "NetRulesConfig", "NetRulesCore"],
            swiftSettings: swiftSettings
        ),
        // The MQTT client against a real mosquitto broker the tests start (skipped without one).
        .testTarget(
            name: "NetRulesMQTTTests",
            dependencies: ["NetRulesMQTT", "NetRulesCore", "NetRulesSystem", "NetRulesTesting"],
            swiftSettings: swiftSettings
        ),
        // Runs the built `netrules` binary as a daemon inside network namespaces (needs root).
        .testTarget(
            name: "NetRulesIntegrationTests",
            dependencies: ["NetRulesCLI", "NetRulesCore", "NetRulesSystem", "NetRulesTesting"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
