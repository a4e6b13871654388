// A stand-in for `netrules ping` / `netrules portal` until the CLI wires them: it calls the same
// library functions. Built by scripts/bench-ping against the release build of NetRulesProbes.
import Glibc
import NetRulesProbes

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
if arguments.first == "portal" {
    status = await PortalCommand.run(urls: Array(arguments.dropFirst()), json: false) { print($0) }
} else {
    // ping -c 1 -W 0.5 HOST…, summary lines only (a line per reply would measure the terminal).
    status = await PingCommand.run(
        hosts: arguments, count: 1, interval: .seconds(1), timeout: .milliseconds(500), json: false,
        output: { line in if line.hasPrefix("1 packets") && !line.contains(" 1 received") { print(line) } })
}
exit(status)
